// This file implements the DType tables and the promotion rules.
#include "core/dtype.h"

namespace ember {
namespace {

struct DTypeInfo {
  const char* name;
  size_t size;
  DTypeKind kind;
  int rank;  // position in the promotion lattice
};

constexpr DTypeInfo kInfo[kNumDTypes] = {
    {"bool", 1, DTypeKind::kBool, 0},    {"int32", 4, DTypeKind::kInt, 1},
    {"int64", 8, DTypeKind::kInt, 2},    {"float32", 4, DTypeKind::kFloat, 3},
    {"float64", 8, DTypeKind::kFloat, 4},
};

const DTypeInfo& Info(DType d) { return kInfo[static_cast<int>(d)]; }

}  // namespace

size_t DTypeSize(DType d) { return Info(d).size; }
const char* DTypeName(DType d) { return Info(d).name; }
DTypeKind KindOf(DType d) { return Info(d).kind; }

Status ParseDType(const std::string& name, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (name == kInfo[i].name) {
      *out = static_cast<DType>(i);
      return Status::OK();
    }
  }
  if (name == "float") { *out = DType::kFloat32; return Status::OK(); }
  if (name == "double") { *out = DType::kFloat64; return Status::OK(); }
  return TypeError("unknown dtype '" + name + "'");
}

DType DefaultDTypeForKind(DTypeKind kind) {
  switch (kind) {
    case DTypeKind::kBool: return DType::kBool;
    case DTypeKind::kInt: return DType::kInt32;
    case DTypeKind::kFloat: break;
  }
  return DType::kFloat32;
}

// Note [Type promotion]: the lattice is bool < int32 < int64 < float32 <
// float64, and the join is the higher of the two. Mixing an integer with
// float32 gives float32 (as in JAX and PyTorch), not float64 (as in NumPy):
// keeping models in float32 matters more than exactness for huge integers.
DType PromoteTypes(DType a, DType b) { return Info(a).rank >= Info(b).rank ? a : b; }

std::string DTypeSet::ToString() const {
  std::string s = "{";
  bool first = true;
  for (int i = 0; i < kNumDTypes; ++i) {
    if (!Contains(static_cast<DType>(i))) continue;
    if (!first) s += ", ";
    s += kInfo[i].name;
    first = false;
  }
  return s + "}";
}

}  // namespace ember
