// This file maps NumPy dtypes to Ember dtypes and back, including
// ml_dtypes.bfloat16.
#include <string>

#include "python/numpy_api.h"

namespace ember::python {
namespace {

// ml_dtypes registers bfloat16 with NumPy at its import and NumPy assigns it
// a user type number, so the number is only known at run time. Looked up
// once; the GIL guards the cache (no C++ static-init guard: the import may
// release the GIL, and another thread waiting on the guard would deadlock).
int g_bfloat16_type_num = -2;  // -2: not looked up yet; -1: unavailable

int BFloat16TypeNum() {
  if (g_bfloat16_type_num != -2) return g_bfloat16_type_num;
  g_bfloat16_type_num = -1;
  PyObject *type, *value, *traceback;
  PyErr_Fetch(&type, &value, &traceback);
  if (PyObject* module = PyImport_ImportModule("ml_dtypes")) {
    if (PyObject* bf16 = PyObject_GetAttrString(module, "bfloat16")) {
      PyArray_Descr* descr = nullptr;
      if (PyArray_DescrConverter(bf16, &descr) && descr != nullptr) {
        g_bfloat16_type_num = descr->type_num;
        Py_DECREF(descr);
      }
      Py_DECREF(bf16);
    }
    Py_DECREF(module);
  }
  PyErr_Clear();
  PyErr_Restore(type, value, traceback);
  return g_bfloat16_type_num;
}

// The C integer types behind NumPy's type numbers vary by platform (long is
// 4 bytes on Windows), so they map by size.
bool SignedBySize(int bytes, DType* out) {
  switch (bytes) {
    case 1: *out = DType::kInt8; return true;
    case 2: *out = DType::kInt16; return true;
    case 4: *out = DType::kInt32; return true;
    case 8: *out = DType::kInt64; return true;
  }
  return false;
}

}  // namespace

bool DTypeFromNumpy(int type_num, DType* out) {
  switch (type_num) {
    case NPY_BOOL: *out = DType::kBool; return true;
    case NPY_BYTE: return SignedBySize(sizeof(signed char), out);
    case NPY_SHORT: return SignedBySize(sizeof(short), out);
    case NPY_INT: return SignedBySize(sizeof(int), out);
    case NPY_LONG: return SignedBySize(sizeof(long), out);
    case NPY_LONGLONG: return SignedBySize(sizeof(long long), out);
    case NPY_UBYTE: *out = DType::kUInt8; return true;
    case NPY_HALF: *out = DType::kFloat16; return true;
    case NPY_FLOAT: *out = DType::kFloat32; return true;
    case NPY_DOUBLE: *out = DType::kFloat64; return true;
    case NPY_CFLOAT: *out = DType::kComplex64; return true;
    default:
      if (type_num >= NPY_USERDEF && type_num == BFloat16TypeNum()) {
        *out = DType::kBFloat16;
        return true;
      }
      return false;
  }
}

int NumpyTypeFor(DType dtype) {
  switch (dtype) {
    case DType::kBool: return NPY_BOOL;
    case DType::kInt8: return NPY_INT8;
    case DType::kInt16: return NPY_INT16;
    case DType::kInt32: return NPY_INT32;
    case DType::kInt64: return NPY_INT64;
    case DType::kUInt8: return NPY_UINT8;
    case DType::kFloat16: return NPY_HALF;
    case DType::kBFloat16: return BFloat16TypeNum();
    case DType::kFloat32: return NPY_FLOAT32;
    case DType::kFloat64: return NPY_FLOAT64;
    case DType::kComplex64: return NPY_COMPLEX64;
  }
  return NPY_FLOAT32;
}

PyArray_Descr* NumpyDescrFor(DType dtype) {
  const int type_num = NumpyTypeFor(dtype);
  if (type_num < 0) {
    PyErr_Format(PyExc_TypeError, "%s values need the ml_dtypes package, which could not be imported",
                 DTypeName(dtype));
    return nullptr;
  }
  return PyArray_DescrFromType(type_num);
}

void SetUnsupportedNumpyDTypeError(PyArray_Descr* descr) {
  std::string name = "?";
  if (descr != nullptr) {
    if (PyObject* s = PyObject_Str(reinterpret_cast<PyObject*>(descr))) {
      if (const char* utf8 = PyUnicode_AsUTF8(s)) name = utf8;
      Py_DECREF(s);
    }
    PyErr_Clear();
  }
  if (descr != nullptr && (descr->kind == 'U' || descr->kind == 'S')) {
    PyErr_Format(PyExc_TypeError, "string tensors are not supported: cannot convert NumPy dtype %s to a tensor",
                 name.c_str());
    return;
  }
  PyErr_Format(PyExc_TypeError,
               "unsupported NumPy dtype %s; ember supports bool, float16, bfloat16, float32, float64, "
               "int8, int16, int32, int64, uint8, complex64",
               name.c_str());
}

}  // namespace ember::python
