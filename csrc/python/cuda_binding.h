// This file declares the bindings of the CUDA library's host-side checks
// (CUDA builds only).
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

void RegisterCudaBindings(pybind11::module_& m);

}  // namespace ember::python
