// This file declares AttrValue, the value of one op attribute.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "core/dtype.h"

namespace ember {

enum class AttrType : uint8_t { kBool, kInt, kFloat, kString, kIntList, kDType };
const char* AttrTypeName(AttrType type);  // "bool", "int", ..., "list(int)"

// None (monostate) is only valid for attributes declared optional.
class AttrValue {
 public:
  AttrValue() = default;
  AttrValue(bool v) : v_(v) {}
  AttrValue(int64_t v) : v_(v) {}
  AttrValue(double v) : v_(v) {}
  AttrValue(std::string v) : v_(std::move(v)) {}
  AttrValue(std::vector<int64_t> v) : v_(std::move(v)) {}
  AttrValue(DType v) : v_(v) {}

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  bool as_bool() const { return std::get<bool>(v_); }
  int64_t as_int() const { return std::get<int64_t>(v_); }
  double as_float() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const std::vector<int64_t>& as_int_list() const { return std::get<std::vector<int64_t>>(v_); }
  DType as_dtype() const { return std::get<DType>(v_); }

  size_t Hash() const;
  bool operator==(const AttrValue& o) const { return v_ == o.v_; }
  std::string ToString() const;

 private:
  std::variant<std::monostate, bool, int64_t, double, std::string, std::vector<int64_t>, DType> v_;
};

// Attributes of one op call, in the order the op definition declares them.
using AttrList = std::vector<AttrValue>;

size_t HashAttrs(const AttrList& attrs);

}  // namespace ember
