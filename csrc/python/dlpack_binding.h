// This file declares the DLPack bindings: exporting a tensor as a DLPack
// capsule and importing one (python/ember/dlpack.py drives them; see
// docs/interop.md).
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

void RegisterDLPackBindings(pybind11::module_& m);

}  // namespace ember::python
