// This file implements AttrValue hashing and printing.
#include "core/attr_value.h"

#include <functional>

namespace ember {

const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kBool: return "bool";
    case AttrType::kInt: return "int";
    case AttrType::kFloat: return "float";
    case AttrType::kString: return "string";
    case AttrType::kIntList: return "list(int)";
    case AttrType::kDType: return "dtype";
  }
  return "?";
}

namespace {
inline size_t Mix(size_t seed, size_t v) { return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2)); }
}  // namespace

size_t AttrValue::Hash() const {
  size_t h = v_.index();
  std::visit(
      [&h](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) {
        } else if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
          for (int64_t e : x) h = Mix(h, std::hash<int64_t>()(e));
        } else if constexpr (std::is_same_v<X, DType>) {
          h = Mix(h, static_cast<size_t>(x));
        } else {
          h = Mix(h, std::hash<X>()(x));
        }
      },
      v_);
  return h;
}

std::string AttrValue::ToString() const {
  return std::visit(
      [](const auto& x) -> std::string {
        using X = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<X, std::monostate>) return "None";
        else if constexpr (std::is_same_v<X, bool>) return x ? "True" : "False";
        else if constexpr (std::is_same_v<X, std::string>) return "'" + x + "'";
        else if constexpr (std::is_same_v<X, DType>) return DTypeName(x);
        else if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
          std::string s = "[";
          for (size_t i = 0; i < x.size(); ++i) s += (i ? ", " : "") + std::to_string(x[i]);
          return s + "]";
        } else return std::to_string(x);
      },
      v_);
}

size_t HashAttrs(const AttrList& attrs) {
  size_t h = attrs.size();
  for (const AttrValue& a : attrs) h = Mix(h, a.Hash());
  return h;
}

}  // namespace ember
