// This file implements SetPythonError and the C++ exception guard.
#include "python/status_to_python.h"

#include <string>

namespace ember::python {
namespace {

constexpr int kNumCodes = static_cast<int>(StatusCode::kUnavailable) + 1;
PyObject* g_error_classes[kNumCodes] = {};  // strong references, set at import

PyObject* BuiltinException(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return PyExc_ValueError;
    case StatusCode::kTypeError: return PyExc_TypeError;
    case StatusCode::kOutOfRange: return PyExc_IndexError;
    case StatusCode::kNotFound: return PyExc_LookupError;
    case StatusCode::kUnimplemented: return PyExc_NotImplementedError;
    case StatusCode::kResourceExhausted: return PyExc_MemoryError;
    case StatusCode::kDeadlineExceeded: return PyExc_TimeoutError;
    case StatusCode::kUnavailable: return PyExc_ConnectionError;
    default: return PyExc_RuntimeError;
  }
}

PyObject* ExceptionFor(StatusCode code) {
  const int i = static_cast<int>(code);
  if (i >= 0 && i < kNumCodes && g_error_classes[i] != nullptr) return g_error_classes[i];
  return BuiltinException(code);
}

}  // namespace

PyObject* SetPythonError(const Status& status) {
  status.MarkReported();
  const std::string& message = status.message();
  // Messages may quote user bytes (a name, a device spec): decode leniently
  // so that building the exception itself cannot fail on them.
  PyObject* text = PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace");
  if (text == nullptr) return nullptr;
  PyErr_SetObject(ExceptionFor(status.code()), text);
  Py_DECREF(text);
  return nullptr;
}

bool SetErrorClasses(PyObject* classes) {
  if (!PyTuple_Check(classes) || PyTuple_GET_SIZE(classes) != kNumCodes) {
    PyErr_Format(PyExc_ValueError, "_set_error_classes expects a tuple of %d entries", kNumCodes);
    return false;
  }
  for (int i = 0; i < kNumCodes; ++i) {
    PyObject* cls = PyTuple_GET_ITEM(classes, i);
    Py_XDECREF(g_error_classes[i]);
    g_error_classes[i] = nullptr;
    if (cls == Py_None) continue;
    if (!PyExceptionClass_Check(cls)) {
      PyErr_Format(PyExc_TypeError, "_set_error_classes: entry %d is not an exception class", i);
      return false;
    }
    Py_INCREF(cls);
    g_error_classes[i] = cls;
  }
  return true;
}

void SetPythonErrorFromCurrentException(const char* where) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    SetPythonError(ResourceExhausted(std::string(where) + ": out of memory"));
  } catch (const std::exception& e) {
    SetPythonError(Internal(std::string(where) + ": unexpected C++ exception: " + e.what()));
  } catch (...) {
    SetPythonError(Internal(std::string(where) + ": unexpected C++ exception"));
  }
}

}  // namespace ember::python
