// This file declares the conversion of Python values (scalars, lists,
// NumPy arrays, tensors) into tensor handles.
#pragma once

#include <Python.h>

#include "runtime/tensor_handle.h"
#include "runtime/type_binding.h"

namespace ember::python {

// Describes `obj` for type binding without converting it. Tensors and
// NumPy values are strong; Python scalars and (nested) lists are weak.
// Returns false with a Python error for unconvertible values.
bool ClassifyValue(PyObject* obj, InputTypeInfo* info);

// Converts `obj` to a host tensor handle on the CPU. With `dtype` set, the
// value is converted to that dtype (Python scalars, lists, NumPy arrays);
// without it the value keeps its own dtype (weak values get the default of
// their kind). An existing tensor is returned as is (no cast here).
bool ConvertValue(PyObject* obj, const DType* dtype, RefPtr<TensorHandle>* out);

// ConvertValue for an op's input: a Python int, float or bool converted to
// `dtype` may come back as a handle shared with earlier calls (Note
// [Scalar constant cache]). Only for inputs the caller does not hand out:
// ember.constant(1.0) must stay a tensor of its own.
bool ConvertOpInput(PyObject* obj, const DType* dtype, RefPtr<TensorHandle>* out);

}  // namespace ember::python
