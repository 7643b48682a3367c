// This file implements conversion from Python values to tensor handles.
#include "python/convert.h"

#include <complex>
#include <cstring>

#include "python/numpy_api.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"

namespace ember::python {
namespace {

bool IsPythonScalar(PyObject* obj) {
  return PyBool_Check(obj) || PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj);
}

DTypeKind ScalarKind(PyObject* obj) {
  if (PyBool_Check(obj)) return DTypeKind::kBool;
  if (PyLong_Check(obj)) return DTypeKind::kInt;
  if (PyComplex_Check(obj)) return DTypeKind::kComplex;
  return DTypeKind::kFloat;
}

RefPtr<TensorHandle> NewHostTensor(DType dtype, const Shape& shape, Buffer** buffer_out) {
  size_t bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(dtype);
  RefPtr<Buffer> buffer = Buffer::Allocate(HostAllocator(), bytes);
  if (!buffer) return nullptr;
  *buffer_out = buffer.get();
  return TensorHandle::CreateReady(Tensor(dtype, shape, std::move(buffer)), DeviceManager::Global().cpu());
}

// The range of an integer dtype, for exact conversion of Python ints.
void IntRange(DType dtype, long long* lo, long long* hi) {
  switch (dtype) {
    case DType::kInt8: *lo = INT8_MIN, *hi = INT8_MAX; return;
    case DType::kInt16: *lo = INT16_MIN, *hi = INT16_MAX; return;
    case DType::kInt32: *lo = INT32_MIN, *hi = INT32_MAX; return;
    case DType::kUInt8: *lo = 0, *hi = UINT8_MAX; return;
    default: *lo = INT64_MIN, *hi = INT64_MAX; return;
  }
}

template <typename T>
bool Put(T value, void* dst) {
  std::memcpy(dst, &value, sizeof(T));
  return true;
}

// Writes one Python scalar as `dtype`. Integers out of range are errors,
// never silent wrap-around; a float never becomes an integer and a complex
// never becomes a real implicitly.
bool StoreScalar(PyObject* obj, DType dtype, void* dst) {
  const DTypeKind kind = KindOf(dtype);
  if (kind == DTypeKind::kBool) {
    int v = PyObject_IsTrue(obj);
    if (v < 0) return false;
    return Put<bool>(v != 0, dst);
  }
  if (kind == DTypeKind::kComplex) {
    Py_complex c = PyComplex_AsCComplex(obj);
    if (c.real == -1.0 && PyErr_Occurred()) return false;
    return Put(std::complex<float>(static_cast<float>(c.real), static_cast<float>(c.imag)), dst);
  }
  if (PyComplex_Check(obj) || (kind != DTypeKind::kFloat && PyFloat_Check(obj))) {
    PyErr_Format(PyExc_TypeError, "cannot convert %s %R to %s without losing information",
                 PyComplex_Check(obj) ? "complex" : "float", obj, DTypeName(dtype));
    return false;
  }
  if (kind == DTypeKind::kFloat) {
    double v = PyFloat_AsDouble(obj);
    if (v == -1.0 && PyErr_Occurred()) return false;
    switch (dtype) {
      case DType::kFloat16: return Put(DoubleToHalfBits(v), dst);
      case DType::kBFloat16: return Put(DoubleToBFloat16Bits(v), dst);
      case DType::kFloat32: return Put(static_cast<float>(v), dst);
      default: return Put(v, dst);
    }
  }
  long long v = PyLong_AsLongLong(obj);
  if (v == -1 && PyErr_Occurred()) return false;
  long long lo, hi;
  IntRange(dtype, &lo, &hi);
  if (v < lo || v > hi) {
    PyErr_Format(PyExc_OverflowError, "value %lld is out of range for %s", v, DTypeName(dtype));
    return false;
  }
  switch (dtype) {
    case DType::kInt8: return Put(static_cast<int8_t>(v), dst);
    case DType::kInt16: return Put(static_cast<int16_t>(v), dst);
    case DType::kInt32: return Put(static_cast<int32_t>(v), dst);
    case DType::kUInt8: return Put(static_cast<uint8_t>(v), dst);
    default: return Put(static_cast<int64_t>(v), dst);
  }
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
  PyArray_Descr* descr = NumpyDescrFor(dtype);
  if (!descr) return false;
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
  if (dtype == DType::kBool) {
    // A NumPy bool may hold any byte (np.frombuffer(b'\x02', bool));
    // kernels may assume 0 or 1, as C++ bool requires.
    auto* bytes = static_cast<uint8_t*>(buffer->data());
    const int64_t n = shape.NumElements();
    for (int64_t i = 0; i < n; ++i) bytes[i] = bytes[i] != 0;
  }
  return true;
}

// The dtype of an array NumPy made from a Python list: its own, except
// that complex128 (Python complex) is accepted as complex64's kind.
bool ListArrayDType(PyArrayObject* array, DType* out) {
  if (PyArray_TYPE(array) == NPY_CDOUBLE) {
    *out = DType::kComplex64;
    return true;
  }
  return DTypeFromNumpy(PyArray_TYPE(array), out);
}

// Lists: NumPy parses the nesting; Ember's default dtypes then apply
// (Python floats -> float32, ints -> int32 unless too large, complex ->
// complex64).
PyArrayObject* ListToArray(PyObject* obj) {
  PyObject* array = PyArray_FromAny(obj, nullptr, 0, 0, NPY_ARRAY_DEFAULT, nullptr);
  if (!array) return nullptr;
  DType d;
  if (!ListArrayDType(reinterpret_cast<PyArrayObject*>(array), &d)) {
    const char kind = PyArray_DESCR(reinterpret_cast<PyArrayObject*>(array))->kind;
    Py_DECREF(array);
    if (kind == 'U' || kind == 'S') {
      PyErr_SetString(PyExc_TypeError,
                      "string tensors are not supported: cannot convert a list of strings to a tensor");
    } else {
      PyErr_SetString(PyExc_TypeError, "cannot convert a list of mixed or non-numeric values to a tensor");
    }
    return nullptr;
  }
  return reinterpret_cast<PyArrayObject*>(array);
}

// Whether every element of an integer array lies in [lo, hi].
bool FitsRange(PyArrayObject* array, long long lo, long long hi) {
  if (PyArray_SIZE(array) == 0) return true;
  PyObject* mn = PyArray_Min(array, NPY_RAVEL_AXIS, nullptr);
  PyObject* mx = PyArray_Max(array, NPY_RAVEL_AXIS, nullptr);
  bool fits = mn && mx && PyLong_AsLongLong(mn) >= lo && PyLong_AsLongLong(mx) <= hi;
  Py_XDECREF(mn);
  Py_XDECREF(mx);
  PyErr_Clear();
  return fits;
}

DType ListDefaultDType(PyArrayObject* array) {
  DType d = DType::kFloat32;
  ListArrayDType(array, &d);
  if (d == DType::kFloat64) return DType::kFloat32;
  // Keep int64 only if some value does not fit int32.
  if (d == DType::kInt64 && FitsRange(array, INT32_MIN, INT32_MAX)) return DType::kInt32;
  return d;
}

bool IsIntegerKind(DType d) { return KindOf(d) == DTypeKind::kInt || KindOf(d) == DTypeKind::kUInt; }

// Lists convert exactly or not at all: floats never become integers,
// complex values never become reals, and Python ints must fit.
bool CheckListTarget(PyArrayObject* array, DType d) {
  const bool is_complex = PyArray_ISCOMPLEX(array);
  if ((IsIntegerKind(d) && (PyArray_ISFLOAT(array) || is_complex)) ||
      (KindOf(d) == DTypeKind::kFloat && is_complex)) {
    PyErr_Format(PyExc_TypeError, "cannot convert a list of %s to %s without losing information",
                 is_complex ? "complex values" : "floats", DTypeName(d));
    return false;
  }
  if (IsIntegerKind(d) && d != DType::kInt64 && PyArray_ISINTEGER(array)) {
    long long lo, hi;
    IntRange(d, &lo, &hi);
    if (!FitsRange(array, lo, hi)) {
      PyErr_Format(PyExc_OverflowError, "a value in the list is out of range for %s", DTypeName(d));
      return false;
    }
  }
  return true;
}

// TensorFlow has string tensors; Ember does not, and says so.
void SetCannotConvertError(PyObject* obj) {
  if (PyUnicode_Check(obj) || PyBytes_Check(obj)) {
    PyErr_Format(PyExc_TypeError, "string tensors are not supported: cannot convert a value of type %s to a tensor",
                 Py_TYPE(obj)->tp_name);
    return;
  }
  PyErr_Format(PyExc_TypeError, "cannot convert a value of type %s to a tensor", Py_TYPE(obj)->tp_name);
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
    if (!ok) SetUnsupportedNumpyDTypeError(descr);
    if (!PyArray_Check(obj)) Py_DECREF(descr);
    if (!ok) return false;
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
    ListArrayDType(array, &d);
    Py_DECREF(array);
    *info = {DType::kBool, true, KindOf(d)};
    return true;
  }
  SetCannotConvertError(obj);
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
    PyArrayObject* a = reinterpret_cast<PyArrayObject*>(array);
    DType d;
    if (dtype) {
      d = *dtype;
    } else if (!DTypeFromNumpy(PyArray_TYPE(a), &d)) {
      SetUnsupportedNumpyDTypeError(PyArray_DESCR(a));
      Py_DECREF(array);
      return false;
    }
    bool ok = ConvertArray(a, d, out);
    Py_DECREF(array);
    return ok;
  }
  if (PyList_Check(obj) || PyTuple_Check(obj)) {
    PyArrayObject* array = ListToArray(obj);
    if (!array) return false;
    DType d = dtype ? *dtype : ListDefaultDType(array);
    bool ok = CheckListTarget(array, d) && ConvertArray(array, d, out);
    Py_DECREF(array);
    return ok;
  }
  SetCannotConvertError(obj);
  return false;
}

// Note [Scalar constant cache]
// `x + 1.0` converts the Python float on every call: a buffer and a handle
// allocated and freed each time, a fifth of a small op's dispatch. The
// handles of the last scalars converted, keyed by dtype and value bits
// (so -0.0 and 0.0, or two NaN payloads, stay apart), sit in a small
// direct-mapped table and are shared by later calls. That is safe because
// an op never writes its inputs: donation (Note [Buffer donation]) only
// takes tensors the Python caller passed, never converted scalars. In a
// trace, one handle is captured once, so a function that adds 1.0 a
// thousand times has one argument for it, not a thousand. Every access
// holds the GIL.
namespace {

class ScalarCache {
 public:
  static constexpr int kSize = 64;

  RefPtr<TensorHandle>* Find(DType dtype, uint64_t bits) {
    Entry& e = entries_[Slot(dtype, bits)];
    return e.handle && e.dtype == dtype && e.bits == bits ? &e.handle : nullptr;
  }
  void Insert(DType dtype, uint64_t bits, RefPtr<TensorHandle> handle) {
    entries_[Slot(dtype, bits)] = Entry{dtype, bits, std::move(handle)};
  }

 private:
  struct Entry {
    DType dtype = DType::kBool;
    uint64_t bits = 0;
    RefPtr<TensorHandle> handle;
  };
  static int Slot(DType dtype, uint64_t bits) {
    const uint64_t h = (bits ^ (bits >> 29) ^ static_cast<uint64_t>(dtype)) * 0x9E3779B97F4A7C15ull;
    return static_cast<int>(h >> 58);  // the top 6 bits: kSize slots
  }
  Entry entries_[kSize];
};

}  // namespace

bool ConvertOpInput(PyObject* obj, const DType* dtype, RefPtr<TensorHandle>* out) {
  const bool plain_scalar = PyFloat_CheckExact(obj) || PyLong_CheckExact(obj) || PyBool_Check(obj);
  if (dtype == nullptr || !plain_scalar || DTypeSize(*dtype) > sizeof(uint64_t)) {
    return ConvertValue(obj, dtype, out);
  }
  // Leaked on purpose: its handles must not be freed after the runtime is.
  static ScalarCache* cache = new ScalarCache();
  uint64_t bits = 0;
  if (!StoreScalar(obj, *dtype, &bits)) return false;
  if (RefPtr<TensorHandle>* hit = cache->Find(*dtype, bits)) {
    *out = *hit;
    return true;
  }
  Buffer* buffer = nullptr;
  *out = NewHostTensor(*dtype, Shape(), &buffer);
  if (!*out) return PyErr_NoMemory(), false;
  std::memcpy(buffer->data(), &bits, DTypeSize(*dtype));
  cache->Insert(*dtype, bits, *out);
  return true;
}

}  // namespace ember::python
