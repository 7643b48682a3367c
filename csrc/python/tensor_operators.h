// This file declares the Tensor type's C operator slots (Note [Operator
// slots] in tensor_operators.cc).
#pragma once

#include <Python.h>

#include <vector>

namespace ember::python {

// The number slots InitTensorType adds to ember.Tensor.
const std::vector<PyType_Slot>& TensorOperatorSlots();
// The dunder methods those slots provide (null-terminated): the generated
// _install_tensor_methods skips them (_C._TENSOR_C_OPERATORS).
extern const char* const kTensorOperatorMethods[];

}  // namespace ember::python
