// This file includes the NumPy C API the same way in every translation unit.
// Exactly one file (module.cc) defines EMBER_NUMPY_OWNER before including it.
#pragma once

#define PY_ARRAY_UNIQUE_SYMBOL ember_numpy_api
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#ifndef EMBER_NUMPY_OWNER
#define NO_IMPORT_ARRAY
#endif
#include <Python.h>
#include <numpy/arrayobject.h>

#include "core/dtype.h"

namespace ember::python {

// NumPy type number <-> DType. Returns false for unsupported NumPy types.
bool DTypeFromNumpy(int type_num, DType* out);
int NumpyTypeFor(DType dtype);

}  // namespace ember::python
