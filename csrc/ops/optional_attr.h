// This file declares OptionalAttr, used by the generated attribute structs.
#pragma once

#include <optional>
#include <type_traits>

#include "core/attr_value.h"

namespace ember {

// Reads an attribute declared optional: None becomes nullopt.
template <typename R>
std::optional<std::decay_t<R>> OptionalAttr(const AttrValue& v, R (AttrValue::*get)() const) {
  if (v.is_none()) return std::nullopt;
  return (v.*get)();
}

}  // namespace ember
