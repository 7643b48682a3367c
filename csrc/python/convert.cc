// This file implements conversion from Python values to tensor handles.
#include "python/convert.h"

#include <cstring>

#include "python/numpy_api.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"

namespace ember::python {
namespace {

bool IsPythonScalar(PyObject* obj) { return PyBool_Check(obj) || PyLong_Check(obj) || PyFloat_Check(obj); }

DTypeKind ScalarKind(PyObject* obj) {
  if (PyBool_Check(obj)) return DTypeKind::kBool;
  if (PyLong_Check(obj)) return DTypeKind::kInt;
  return DTypeKind::kFloat;
}

RefPtr<TensorHandle> NewHostTensor(DType dtype, const Shape& shape, Buffer** buffer_out) {
  size_t bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(dtype);
  RefPtr<Buffer> buffer = Buffer::Allocate(HostAllocator(), bytes);
  if (!buffer) return nullptr;
  *buffer_out = buffer.get();
  return TensorHandle::CreateReady(Tensor(dtype, shape, std::move(buffer)), DeviceManager::Global().cpu());
}

// Writes one Python scalar as `dtype`. Integers out of range are errors,
// never silent wrap-around.
bool StoreScalar(PyObject* obj, DType dtype, void* dst) {
  switch (dtype) {
    case DType::kBool: {
      int v = PyObject_IsTrue(obj);
      if (v < 0) return false;
      *static_cast<bool*>(dst) = v;
      return true;
    }
    case DType::kInt32:
    case DType::kInt64: {
      if (PyFloat_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "cannot convert float %R to %s without losing information", obj,
                     DTypeName(dtype));
        return false;
      }
      long long v = PyLong_AsLongLong(obj);
      if (v == -1 && PyErr_Occurred()) return false;
      if (dtype == DType::kInt32) {
        if (v < INT32_MIN || v > INT32_MAX) {
          PyErr_Format(PyExc_OverflowError, "value %lld is out of range for int32", v);
          return false;
        }
        *static_cast<int32_t*>(dst) = static_cast<int32_t>(v);
      } else {
        *static_cast<int64_t*>(dst) = v;
      }
      return true;
    }
    case DType::kFloat32:
    case DType::kFloat64: {
      double v = PyFloat_AsDouble(obj);
      if (v == -1.0 && PyErr_Occurred()) return false;
      if (dtype == DType::kFloat32) *static_cast<float*>(dst) = static_cast<float>(v);
      else *static_cast<double*>(dst) = v;
      return true;
    }
  }
  return false;
}

// Python ints too large for int32 default to int64 (as in TensorFlow).
DType DefaultScalarDType(PyObject* obj) {
  DTypeKind kind = ScalarKind(obj);
  if (kind == DTypeKind::kInt) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (overflow || v < INT32_MIN || v > INT32_MAX) return DType::kInt64;
  }
  return DefaultDTypeForKind(kind);
}

bool ConvertArray(PyArrayObject* array, DType dtype, RefPtr<TensorHandle>* out) {
  // One copy into an aligned buffer we own: the caller may mutate its
  // array while an asynchronous op still reads ours.
  PyArray_Descr* descr = PyArray_DescrFromType(NumpyTypeFor(dtype));
  PyObject* contiguous = PyArray_FromAny(reinterpret_cast<PyObject*>(array), descr, 0, 0,
                                         NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_FORCECAST,
                                         nullptr);
  if (!contiguous) return false;
  PyArrayObject* c = reinterpret_cast<PyArrayObject*>(contiguous);
  Shape shape(reinterpret_cast<const int64_t*>(PyArray_DIMS(c)), PyArray_NDIM(c));
  Buffer* buffer = nullptr;
  *out = NewHostTensor(dtype, shape, &buffer);
  if (!*out) {
    Py_DECREF(contiguous);
    PyErr_NoMemory();
    return false;
  }
  std::memcpy(buffer->data(), PyArray_DATA(c), PyArray_NBYTES(c));
  Py_DECREF(contiguous);
  return true;
}

// Lists: NumPy parses the nesting; Ember's default dtypes then apply
// (Python floats -> float32, ints -> int32 unless too large).
PyArrayObject* ListToArray(PyObject* obj) {
  PyObject* array = PyArray_FromAny(obj, nullptr, 0, 0, NPY_ARRAY_DEFAULT, nullptr);
  if (!array) return nullptr;
  int type_num = PyArray_TYPE(reinterpret_cast<PyArrayObject*>(array));
  DType d;
  if (!DTypeFromNumpy(type_num, &d)) {
    Py_DECREF(array);
    PyErr_SetString(PyExc_TypeError, "cannot convert a list of mixed or non-numeric values to a tensor");
    return nullptr;
  }
  return reinterpret_cast<PyArrayObject*>(array);
}

bool FitsInt32(PyArrayObject* array) {
  if (PyArray_SIZE(array) == 0) return true;
  PyObject* mn = PyArray_Min(array, NPY_RAVEL_AXIS, nullptr);
  PyObject* mx = PyArray_Max(array, NPY_RAVEL_AXIS, nullptr);
  bool fits = mn && mx && PyLong_AsLongLong(mn) >= INT32_MIN && PyLong_AsLongLong(mx) <= INT32_MAX;
  Py_XDECREF(mn);
  Py_XDECREF(mx);
  PyErr_Clear();
  return fits;
}

DType ListDefaultDType(PyArrayObject* array) {
  DType d = DType::kFloat32;
  DTypeFromNumpy(PyArray_TYPE(array), &d);
  if (d == DType::kFloat64) return DType::kFloat32;
  // Keep int64 only if some value does not fit int32.
  if (d == DType::kInt64 && FitsInt32(array)) return DType::kInt32;
  return d;
}

}  // namespace

bool ClassifyValue(PyObject* obj, InputTypeInfo* info) {
  if (IsTensor(obj)) {
    *info = {HandleOf(obj)->dtype(), false, DTypeKind::kBool};
    return true;
  }
  // NumPy scalars first: np.float64 subclasses Python float but is strong.
  if (PyArray_Check(obj) || PyArray_IsScalar(obj, Generic)) {
    PyArray_Descr* descr = PyArray_Check(obj) ? PyArray_DESCR(reinterpret_cast<PyArrayObject*>(obj))
                                              : PyArray_DescrFromScalar(obj);
    DType d;
    bool ok = DTypeFromNumpy(descr->type_num, &d);
    if (!PyArray_Check(obj)) Py_DECREF(descr);
    if (!ok) {
      PyErr_SetString(PyExc_TypeError,
                      "unsupported NumPy dtype; ember supports bool, int32, int64, float32, float64");
      return false;
    }
    *info = {d, false, DTypeKind::kBool};
    return true;
  }
  if (IsPythonScalar(obj)) {
    *info = {DType::kBool, true, ScalarKind(obj)};
    return true;
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    PyArrayObject* array = ListToArray(obj);
    if (!array) return false;
    DType d;
    DTypeFromNumpy(PyArray_TYPE(array), &d);
    Py_DECREF(array);
    *info = {DType::kBool, true, KindOf(d)};
    return true;
  }
  PyErr_Format(PyExc_TypeError, "cannot convert a value of type %s to a tensor", Py_TYPE(obj)->tp_name);
  return false;
}

bool ConvertValue(PyObject* obj, const DType* dtype, RefPtr<TensorHandle>* out) {
  if (IsTensor(obj)) {
    *out = RefPtr<TensorHandle>::Share(HandleOf(obj));
    return true;
  }
  if (IsPythonScalar(obj) && !PyArray_IsScalar(obj, Generic)) {
    DType d = dtype ? *dtype : DefaultScalarDType(obj);
    Buffer* buffer = nullptr;
    *out = NewHostTensor(d, Shape(), &buffer);
    if (!*out) return PyErr_NoMemory(), false;
    return StoreScalar(obj, d, buffer->data());
  }
  if (PyArray_Check(obj) || PyArray_IsScalar(obj, Generic)) {
    PyObject* array = PyArray_FromAny(obj, nullptr, 0, 0, 0, nullptr);
    if (!array) return false;
    DType d;
    bool ok = dtype ? (d = *dtype, true) : DTypeFromNumpy(PyArray_TYPE(reinterpret_cast<PyArrayObject*>(array)), &d);
    if (!ok) {
      Py_DECREF(array);
      PyErr_SetString(PyExc_TypeError,
                      "unsupported NumPy dtype; ember supports bool, int32, int64, float32, float64");
      return false;
    }
    ok = ConvertArray(reinterpret_cast<PyArrayObject*>(array), d, out);
    Py_DECREF(array);
    return ok;
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    PyArrayObject* array = ListToArray(obj);
    if (!array) return false;
    DType d = dtype ? *dtype : ListDefaultDType(array);
    if (KindOf(d) == DTypeKind::kInt && PyArray_ISFLOAT(array)) {
      Py_DECREF(array);
      PyErr_Format(PyExc_TypeError, "cannot convert a list of floats to %s without losing information",
                   DTypeName(d));
      return false;
    }
    // Python ints are exact: a value out of range is an error, never a
    // silent wrap-around (as for a single scalar in StoreScalar).
    if (d == DType::kInt32 && PyArray_ISINTEGER(array) && !FitsInt32(array)) {
      Py_DECREF(array);
      PyErr_SetString(PyExc_OverflowError, "a value in the list is out of range for int32");
      return false;
    }
    bool ok = ConvertArray(array, d, out);
    Py_DECREF(array);
    return ok;
  }
  PyErr_Format(PyExc_TypeError, "cannot convert a value of type %s to a tensor", Py_TYPE(obj)->tp_name);
  return false;
}

}  // namespace ember::python
