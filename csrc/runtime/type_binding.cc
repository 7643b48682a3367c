// This file implements BindTypeVars.
#include "runtime/type_binding.h"

#include <algorithm>

namespace ember {

// Note [Weak types]: Python scalars and lists do not force a dtype. A type
// variable is bound from its strongly typed inputs (tensors, NumPy arrays),
// promoted along the lattice of PromoteTypes; weak inputs only raise the
// *kind* (bool < int < float): float32 + 2.0 stays float32, int32 + 2.5
// becomes float32. With only weak inputs the kind's default dtype is used.
Status BindTypeVars(const OpDef& op, const InputTypeInfo* inputs, const int* arg_starts,
                    const AttrList& attrs, DType* bindings) {
  const int num_vars = static_cast<int>(op.type_vars.size());
  if (num_vars > kMaxTypeVars) return Internal("too many type variables");
  for (int v = 0; v < num_vars; ++v) {
    const TypeVarDef& var = op.type_vars[v];
    const char* from_arg = nullptr;
    DType bound = DType::kBool;
    if (var.bound_by_attr >= 0) {
      bound = attrs[var.bound_by_attr].as_dtype();
    } else {
      bool have_strong = false;
      bool have_weak = false;
      DTypeKind weak_kind = DTypeKind::kBool;
      for (size_t a = 0; a < op.inputs.size(); ++a) {
        if (op.inputs[a].type_var != v) continue;
        if (from_arg == nullptr) from_arg = op.inputs[a].name;
        const int begin = arg_starts ? arg_starts[a] : static_cast<int>(a);
        const int end = arg_starts ? arg_starts[a + 1] : begin + 1;
        for (int i = begin; i < end; ++i) {
          const InputTypeInfo& in = inputs[i];
          if (in.weak) {
            weak_kind = have_weak ? std::max(weak_kind, in.weak_kind) : in.weak_kind;
            have_weak = true;
          } else {
            bound = have_strong ? PromoteTypes(bound, in.dtype) : in.dtype;
            have_strong = true;
          }
        }
      }
      if (!have_strong && !have_weak && from_arg != nullptr) {
        return InvalidArgument(std::string("argument '") + from_arg + "' is an empty list; cannot infer " +
                               var.name);
      }
      if (!have_strong) {
        bound = DefaultDTypeForKind(weak_kind);
      } else if (have_weak && KindOf(bound) < weak_kind) {
        bound = PromoteTypes(bound, DefaultDTypeForKind(weak_kind));
      }
      const DTypeKind kind = KindOf(bound);
      if (var.int_promotion >= 0 &&
          (kind == DTypeKind::kBool || kind == DTypeKind::kInt || kind == DTypeKind::kUInt)) {
        bound = static_cast<DType>(var.int_promotion);
      }
    }
    if (!var.allowed.Contains(bound)) {
      std::string where = from_arg ? std::string(" (from argument '") + from_arg + "')" : "";
      return TypeError(std::string("dtype ") + DTypeName(bound) + " is not supported" + where +
                       "; " + var.name + " must be one of " + var.allowed.ToString());
    }
    bindings[v] = bound;
  }
  return Status::OK();
}

}  // namespace ember
