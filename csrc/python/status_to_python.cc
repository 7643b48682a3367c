// This file implements SetPythonError.
#include "python/status_to_python.h"

namespace ember::python {

PyObject* SetPythonError(const Status& status) {
  PyObject* type = PyExc_RuntimeError;
  switch (status.code()) {
    case StatusCode::kInvalidArgument: type = PyExc_ValueError; break;
    case StatusCode::kTypeError: type = PyExc_TypeError; break;
    case StatusCode::kOutOfRange: type = PyExc_IndexError; break;
    case StatusCode::kNotFound: type = PyExc_LookupError; break;
    case StatusCode::kUnimplemented: type = PyExc_NotImplementedError; break;
    case StatusCode::kResourceExhausted: type = PyExc_MemoryError; break;
    default: break;
  }
  PyErr_SetString(type, status.message().c_str());
  return nullptr;
}

}  // namespace ember::python
