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

// NumPy type number <-> DType (numpy_dtypes.cc). Returns false for
// unsupported NumPy types. bfloat16 is ml_dtypes.bfloat16, a NumPy
// user-defined type whose number is looked up on first use.
bool DTypeFromNumpy(int type_num, DType* out);
// -1 for bfloat16 when ml_dtypes cannot be imported.
int NumpyTypeFor(DType dtype);
// A new reference to the NumPy descriptor for `dtype`, or null with a
// Python TypeError (bfloat16 without ml_dtypes).
PyArray_Descr* NumpyDescrFor(DType dtype);

// Sets TypeError("unsupported NumPy dtype <name>; ember supports ...").
void SetUnsupportedNumpyDTypeError(PyArray_Descr* descr);

}  // namespace ember::python
