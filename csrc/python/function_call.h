// This file declares ember.function's call in C: the base type of
// ember.Function (Note [Function calls in C]).
#pragma once

#include <Python.h>

namespace ember::python {

// Registers _C.FunctionBase and _C._set_function_call_state.
bool InitFunctionBaseType(PyObject* module);

}  // namespace ember::python
