// This file declares the Python bindings of graph tracing and graph calls
// (@ember.function; python/ember/function.py drives them).
#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace ember::python {

void RegisterFunctionBindings(pybind11::module_& m);

// The "file:line" of the innermost Python frame outside the ember package:
// where the user's code issued the op being traced.
std::string TracedLocation();

}  // namespace ember::python
