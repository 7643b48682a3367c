// This file declares ember.Tensor, a CPython type defined in C++.
#pragma once

#include <Python.h>

#include <chrono>
#include <functional>

#include "runtime/tensor_handle.h"

namespace ember::python {

// The Python object owns one reference to its handle. The type holds the
// metadata getters and _numpy(); python/ember/_tensor.py installs the
// pure-Python methods (repr, __array__, ...) and the generated operators
// on the same type, so there is no Python subclass on the per-op path.
struct PyTensor {
  PyObject_HEAD
  TensorHandle* handle;
  PyObject* weakreflist;
};

// Adds Tensor to `module`. Returns false with a Python error set.
bool InitTensorType(PyObject* module);
extern PyTypeObject* g_tensor_type;  // set by InitTensorType
// Inline: every op's inputs pass here; a subclass takes the slower check.
inline bool IsTensor(PyObject* obj) {
  return Py_TYPE(obj) == g_tensor_type || PyType_IsSubtype(Py_TYPE(obj), g_tensor_type);
}
inline TensorHandle* HandleOf(PyObject* obj) { return reinterpret_cast<PyTensor*>(obj)->handle; }

// New reference to a Python tensor taking over `handle`; null on error.
PyObject* WrapHandle(RefPtr<TensorHandle> handle);

// How often a thread waiting for values checks for KeyboardInterrupt.
inline constexpr std::chrono::milliseconds kInterruptPoll{50};

// Note [Cancellation]: calls `wait_for(kInterruptPoll)` with the GIL
// released until it returns true, checking for signals between calls. On a
// KeyboardInterrupt it cancels the work this thread queued and returns
// false with the exception set.
bool WaitInterruptibly(const std::function<bool(std::chrono::milliseconds)>& wait_for);

// Waits (GIL released) for the handle; returns false with a Python
// exception set if it failed.
bool AwaitHandle(TensorHandle* handle);

// Registration from python/ember at import (new references are kept).
void SetDTypeObjects(PyObject* const* objects, int n);

// The ember.DType object for `dtype` (borrowed), registered from Python.
PyObject* DTypeObject(DType dtype);
// Parses an ember.DType, NumPy dtype, Python type or name; false + error.
bool ParseDTypeObject(PyObject* obj, DType* out);

}  // namespace ember::python
