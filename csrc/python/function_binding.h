// This file declares the Python bindings of graph tracing and graph calls
// (@ember.function; python/ember/function.py drives them).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace ember::python {

void RegisterFunctionBindings(pybind11::module_& m);

// Note [Traced calls in C]: calls `values` (a tuple) through the trace in
// `concretes` (a Function's trace cache) that their key finds. A new
// reference: the result, NotImplemented when no such trace allows the
// short call, or null with a Python error set.
PyObject* CallTracedRaw(PyObject* concretes, PyObject* values, PyObject* other_key);

// The "file:line" of the innermost Python frame outside the ember package:
// where the user's code issued the op being traced.
std::string TracedLocation();

}  // namespace ember::python
