// This file declares BindTypeVars: resolving an op's type variables
// (T, SrcT, ...) from its inputs and attributes.
#pragma once

#include <cstdint>

#include "core/attr_value.h"
#include "core/dtype.h"
#include "ops/op_def.h"

namespace ember {

inline constexpr int kMaxTypeVars = 8;

// What binding needs to know of one input. A weak input is a Python scalar
// or list: it has a kind but no dtype of its own (see docs/dtypes.md).
struct InputTypeInfo {
  DType dtype;
  bool weak;
  DTypeKind weak_kind;
};

// Fills bindings[0 .. op.type_vars.size()). TypeError, naming the op's
// argument, when a binding falls outside the variable's allowed set.
// `inputs` is flat; `arg_starts` maps arguments to it (Note [List
// arguments]) and may be null when no input is a list.
Status BindTypeVars(const OpDef& op, const InputTypeInfo* inputs, const int* arg_starts,
                    const AttrList& attrs, DType* bindings);

// The dtype input/output `arg` has under `bindings`.
// The dtype of a typed or fixed argument; `list(any)` arguments have none
// (callers check type_var == kAnyDTypeVar first).
inline DType ArgDType(const ArgDef& arg, const DType* bindings) {
  return arg.type_var >= 0 ? bindings[arg.type_var] : arg.fixed_dtype;
}

}  // namespace ember
