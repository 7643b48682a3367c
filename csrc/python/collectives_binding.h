// This file declares the Python binding of the collective ops' MPI side
// (ember/distribute/_mpi_collectives.py drives it; Note [Collective ops]).
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

void RegisterCollectiveBindings(pybind11::module_& m);

}  // namespace ember::python
