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

// Note [Buffer donation] (Python side): how a caller proves that an input
// is a temporary, whose buffer the op may take over.
enum class DonationProof {
  kNone,          // it cannot: never donate
  kWrapperFrame,  // a generated Python wrapper's frame: a temporary has two references
  kCallerStack,   // an op function whose arguments are on the calling frame's value
                  // stack (ArgumentsOnCallerStack): a temporary has one
};

// Note [Donation from the caller's stack]: whether `args` (n of them, as a
// vectorcall received them with `nargsf`) sit on the value stack of the
// Python frame that called, where the interpreter's CALL put them.
bool ArgumentsOnCallerStack(PyObject* const* args, Py_ssize_t n, size_t nargsf);

// Runs `op` on Python values (inputs[n], attrs[m] in declaration order;
// null attrs: every attr at its declared default). `proof` says which
// inputs are temporaries whose buffers may be reused.
PyObject* ExecuteOp(const OpDef& op, PyObject* const* inputs, PyObject* const* attrs, DonationProof proof);

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
