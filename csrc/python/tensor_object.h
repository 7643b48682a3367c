// This file declares the CPython type behind ember.Tensor (ember._C.TensorBase).
#pragma once

#include <Python.h>

#include "runtime/tensor_handle.h"

namespace ember::python {

// The Python object owns one reference to its handle. ember.Tensor is a
// Python subclass (python/ember/tensor.py) adding the pure-Python methods;
// C++ creates instances of that subclass once it is registered.
struct PyTensor {
  PyObject_HEAD
  TensorHandle* handle;
  PyObject* weakreflist;
};

// Adds TensorBase to `module`. Returns false with a Python error set.
bool InitTensorType(PyObject* module);
bool IsTensor(PyObject* obj);
inline TensorHandle* HandleOf(PyObject* obj) { return reinterpret_cast<PyTensor*>(obj)->handle; }

// New reference to a Python tensor taking over `handle`; null on error.
PyObject* WrapHandle(RefPtr<TensorHandle> handle);

// Waits (GIL released) for the handle; returns false with a Python
// exception set if it failed.
bool AwaitHandle(TensorHandle* handle);

// Registration from python/ember at import (borrowed refs are kept).
void SetTensorClass(PyTypeObject* cls);
void SetDTypeObjects(PyObject* const* objects, int n);

// The ember.DType object for `dtype` (borrowed), registered from Python.
PyObject* DTypeObject(DType dtype);
// Parses an ember.DType, NumPy dtype, Python type or name; false + error.
bool ParseDTypeObject(PyObject* obj, DType* out);

}  // namespace ember::python
