// This file declares the Python entry points into Execute.
#pragma once

#include <Python.h>

#include "ops/op_def.h"

namespace ember::python {

// Registers ember.Variable: ops read a variable argument's current value
// (its `_value` tensor) and run on the variable's device.
void SetVariableType(PyTypeObject* type);

// _C._execute(op_id, *inputs, *attrs): the generated bindings' fast path.
PyObject* ExecuteFast(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

// Runs `op` on Python values (inputs[n], attrs[m] in declaration order).
// `allow_donation` lets temporaries' buffers be reused (fast path only).
PyObject* ExecuteOp(const OpDef& op, PyObject* const* inputs, PyObject* const* attrs,
                    bool allow_donation);

}  // namespace ember::python
