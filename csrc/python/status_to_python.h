// This file declares how a Status becomes a Python exception, and the guard
// that keeps C++ exceptions from crossing into Python.
#pragma once

#include <Python.h>

#include <exception>
#include <new>

#include "core/status.h"

namespace ember::python {

// Sets the Python exception for `status`: the ember.errors class of its
// code (InvalidArgumentError, ...), or TypeError for kTypeError. Marks the
// status reported (Note [Reported errors]). Always returns nullptr, for
// `return SetPythonError(s);`.
PyObject* SetPythonError(const Status& status);

// Called once at import with the ember.errors classes, indexed by
// StatusCode (None where a code keeps its built-in exception).
bool SetErrorClasses(PyObject* classes);

// Sets the Python exception for a C++ exception caught at an entry point
// (std::bad_alloc -> ResourceExhaustedError, others -> InternalError).
void SetPythonErrorFromCurrentException(const char* where);

// Runs `body` (returning PyObject* or int, with the Python error set on
// failure) so that no C++ exception escapes it: raw CPython entry points
// (METH_FASTCALL functions, type slots) wrap their bodies in this.
template <typename R, typename F>
R NoThrow(const char* where, R failure, F&& body) noexcept {
  try {
    return body();
  } catch (...) {
    SetPythonErrorFromCurrentException(where);
    return failure;
  }
}

}  // namespace ember::python
