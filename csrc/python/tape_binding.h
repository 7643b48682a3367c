// This file declares the Python binding of the gradient tape's recording
// half (python/ember/autodiff/_tape.py drives it; Note [Gradient tape]).
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

void RegisterTapeBindings(pybind11::module_& m);

}  // namespace ember::python
