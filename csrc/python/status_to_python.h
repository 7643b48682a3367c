// This file declares how a Status becomes a Python exception.
#pragma once

#include <Python.h>

#include "core/status.h"

namespace ember::python {

// Sets the Python exception for `status` (ValueError, TypeError, ...).
// Always returns nullptr, for `return SetPythonError(s);`.
PyObject* SetPythonError(const Status& status);

}  // namespace ember::python
