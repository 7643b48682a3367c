// This file declares the Python entry points into Execute.
#pragma once

#include <Python.h>

#include "ops/op_def.h"
#include "runtime/execute.h"

namespace ember::python {

// Registers ember.Variable: ops read a variable argument's current value
// (its `_value` tensor) and run on the variable's device.
void SetVariableType(PyTypeObject* type);

// _C._execute(op_id, *inputs, *attrs): the generated bindings' fast path.
PyObject* ExecuteFast(PyObject* self, PyObject* const* args, Py_ssize_t nargs);

// Runs `op` on Python values (inputs[n], attrs[m] in declaration order;
// null attrs: every attr at its declared default). `allow_donation` lets
// temporaries' buffers be reused (fast path only).
PyObject* ExecuteOp(const OpDef& op, PyObject* const* inputs, PyObject* const* attrs,
                    bool allow_donation);

// Sync mode: runs the call's inline task and raises its kernel error, if
// any. Graph ops (function calls, loops) run on the device's executor
// while this thread waits, so Ctrl-C can stop them (Note [Cancellation]).
// `release_gil` lets a long kernel run without the GIL. Returns false with
// a Python exception set.
bool FinishSyncCall(const OpDef& op, ExecuteResult& result, bool release_gil);
// After a sync-mode launch ran: waits for outputs a stream still computes
// and raises the kernel's error, if any. False with a Python exception set.
bool SettleSyncOutputs(const ExecuteResult& result);

}  // namespace ember::python
