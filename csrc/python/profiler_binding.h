// This file declares the Python binding of the profiler (python/ember/
// profiler.py drives it; Note [Profiler]).
#pragma once

#include <pybind11/pybind11.h>

namespace ember::python {

void RegisterProfilerBindings(pybind11::module_& m);

// Names the calling Python thread in traces after threading's name for it,
// once (the GIL is held; Note [Profiler]).
void NameProfiledPythonThread();

}  // namespace ember::python
