// This file implements the ember.Tensor CPython type: metadata getters that
// never wait, and _numpy(), which waits for the value.
#include "python/tensor_object.h"

#include <vector>

#include "python/numpy_api.h"
#include "python/shape_object.h"
#include "python/status_to_python.h"
#include "python/tensor_operators.h"
#include "runtime/context.h"
#include "runtime/device_copy.h"

namespace ember::python {

PyTypeObject* g_tensor_type = nullptr;

namespace {

PyObject* g_dtype_objects[kNumDTypes] = {};

void TensorDealloc(PyObject* self) {
  PyTensor* t = reinterpret_cast<PyTensor*>(self);
  if (t->weakreflist) PyObject_ClearWeakRefs(self);
  if (t->handle) t->handle->Unref();
  Py_TYPE(self)->tp_free(self);
}

// Note [TensorShape as a tuple]: Tensor.shape is an ember.TensorShape, a
// tuple subclass, so it compares, hashes, pickles, unpacks and indexes like
// the tuple it used to be, and adds TensorFlow's methods (as_list, rank,
// merge_with, ...) in Python. Its C base (_ShapeTuple, shape_object.cc)
// keeps indexing and == at tuple speed, and the getter allocates it
// directly, without a Python-level call.
PyObject* GetShape(PyObject* self, void*) { return ShapeToPython(HandleOf(self)->shape()); }

PyObject* GetNdim(PyObject* self, void*) { return PyLong_FromLong(HandleOf(self)->shape().rank()); }

PyObject* GetDType(PyObject* self, void*) {
  PyObject* d = DTypeObject(HandleOf(self)->dtype());
  if (!d) return PyUnicode_FromString(DTypeName(HandleOf(self)->dtype()));
  return Py_NewRef(d);
}

PyObject* GetDevice(PyObject* self, void*) {
  return PyUnicode_FromString(HandleOf(self)->device()->name().c_str());
}

PyGetSetDef kGetSets[] = {
    {"shape", GetShape, nullptr, "The static shape, an ember.TensorShape (ints and None; known without waiting).",
     nullptr},
    {"ndim", GetNdim, nullptr, "The rank.", nullptr},
    {"dtype", GetDType, nullptr, "The element type, an ember.DType.", nullptr},
    {"device", GetDevice, nullptr, "The device holding the value, e.g. 'cpu:0'.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

// Keeps a Buffer alive while NumPy views it.
void ReleaseBufferCapsule(PyObject* capsule) {
  static_cast<Buffer*>(PyCapsule_GetPointer(capsule, "ember.Buffer"))->Unref();
}

// Note [NumPy views]: numpy() returns a read-only array that views the
// tensor's host buffer without copying; the array keeps the buffer alive.
// Read-only because tensors are immutable values: np.array(t) gives a
// writable copy.
// A tensor in host memory is the array's base itself: its handle never
// changes, and it holds the buffer. That spares a capsule per read (an
// allocation on every `(a + b).numpy()`). A tensor in device memory is
// first copied to the host (Note [Device copies]): the copy is queued at
// once and awaited here, and a capsule holding the copy's buffer is the
// base.
PyObject* TensorNumpyImpl(PyObject* self) {
  RefPtr<TensorHandle> handle = RefPtr<TensorHandle>::Share(HandleOf(self));
  if (!handle->device()->host_memory() && !handle->is_symbolic()) {
    handle = CopyToDevice(handle, DeviceManager::Global().cpu());
  }
  if (!AwaitHandle(handle.get())) return nullptr;
  const Tensor& t = handle->tensor();
  const Shape& shape = t.shape();
  constexpr int kInlineDims = 8;
  npy_intp inline_dims[kInlineDims];
  std::vector<npy_intp> more_dims;
  npy_intp* dims = inline_dims;
  if (shape.rank() > kInlineDims) {
    more_dims.assign(shape.begin(), shape.end());
    dims = more_dims.data();
  } else {
    for (int i = 0; i < shape.rank(); ++i) inline_dims[i] = shape.dim(i);
  }
  PyObject* array = PyArray_SimpleNewFromData(shape.rank(), dims, NumpyTypeFor(t.dtype()), t.raw_data());
  if (!array) return nullptr;
  PyObject* base;
  if (handle.get() == HandleOf(self)) {
    base = Py_NewRef(self);
  } else {
    Buffer* buffer = t.buffer().get();
    buffer->Ref();
    base = PyCapsule_New(buffer, "ember.Buffer", ReleaseBufferCapsule);
    if (!base) {
      buffer->Unref();
      Py_DECREF(array);
      return nullptr;
    }
  }
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(array), base) < 0) {  // steals `base`
    Py_DECREF(array);
    return nullptr;
  }
  PyArray_CLEARFLAGS(reinterpret_cast<PyArrayObject*>(array), NPY_ARRAY_WRITEABLE);
  return array;
}

PyObject* TensorNumpy(PyObject* self, PyObject*) {
  return NoThrow<PyObject*>("numpy", nullptr, [&] { return TensorNumpyImpl(self); });
}

PyObject* TensorIsReady(PyObject* self, PyObject*) { return PyBool_FromLong(HandleOf(self)->IsAvailable()); }

PyMethodDef kMethods[] = {
    // numpy() is C, not a Python method around _numpy: a read is on the
    // hot path of every eager loop (one Python frame less per read).
    {"numpy", TensorNumpy, METH_NOARGS,
     "numpy($self, /)\n--\n\nWaits for the value; returns a read-only NumPy view of it (no copy).\n\n"
     "Use ``np.array(t)`` for a writable copy."},
    {"_numpy", TensorNumpy, METH_NOARGS, "Waits for the value; returns a read-only NumPy view."},
    {"_is_ready", TensorIsReady, METH_NOARGS, "True once the value (or its error) is available."},
    {nullptr, nullptr, 0, nullptr},
};

PyObject* TensorNew(PyTypeObject*, PyObject*, PyObject*) {
  PyErr_SetString(PyExc_TypeError, "create tensors with ember.constant() or ember.convert_to_tensor()");
  return nullptr;
}

}  // namespace

bool InitTensorType(PyObject* module) {
  static std::vector<PyType_Slot> slots = {
      {Py_tp_dealloc, reinterpret_cast<void*>(TensorDealloc)},
      {Py_tp_getset, kGetSets},
      {Py_tp_methods, kMethods},
      {Py_tp_new, reinterpret_cast<void*>(TensorNew)},
      {Py_tp_doc, const_cast<char*>("A handle to a (possibly pending) value; see python/ember/_tensor.py.")},
  };
  // x + y and friends (Note [Operator slots]).
  slots.insert(slots.end(), TensorOperatorSlots().begin(), TensorOperatorSlots().end());
  slots.push_back({0, nullptr});
  // Not a GC type: a tensor references no Python objects, and skipping GC
  // tracking keeps allocation cheap on the per-op path.
  static PyType_Spec spec = {"ember.Tensor", sizeof(PyTensor), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots.data()};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) return false;
  reinterpret_cast<PyTypeObject*>(type)->tp_weaklistoffset = offsetof(PyTensor, weakreflist);
  g_tensor_type = reinterpret_cast<PyTypeObject*>(type);
  return PyModule_AddObject(module, "Tensor", type) == 0;
}

void SetDTypeObjects(PyObject* const* objects, int n) {
  for (int i = 0; i < n && i < kNumDTypes; ++i) {
    Py_XINCREF(objects[i]);
    g_dtype_objects[i] = objects[i];
  }
}

PyObject* DTypeObject(DType dtype) { return g_dtype_objects[static_cast<int>(dtype)]; }

PyObject* WrapHandle(RefPtr<TensorHandle> handle) {
  PyObject* obj = g_tensor_type->tp_alloc(g_tensor_type, 0);
  if (!obj) return nullptr;
  PyTensor* t = reinterpret_cast<PyTensor*>(obj);
  t->handle = handle.Release();
  t->weakreflist = nullptr;
  return obj;
}

bool WaitInterruptibly(const std::function<bool(std::chrono::milliseconds)>& wait_for) {
  for (;;) {
    bool done;
    Py_BEGIN_ALLOW_THREADS
    done = wait_for(kInterruptPoll);
    Py_END_ALLOW_THREADS
    if (done) return true;
    if (PyErr_CheckSignals() < 0) {
      ErrorSink::ForCurrentThread()->Cancel();
      return false;
    }
  }
}

namespace {

// Waits up to `timeout` for the handle, first running queued tasks of its
// device's executor on this thread (Note [Readers run queued work] in
// runtime/thread_executor.cc). Called with the GIL released.
bool RunQueuedThenAwait(TensorHandle* handle, std::chrono::milliseconds timeout) {
  Executor* executor = handle->device() != nullptr ? handle->device()->executor() : nullptr;
  if (executor != nullptr) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!handle->IsAvailable() && executor->TryRunOne()) {
      if (std::chrono::steady_clock::now() >= deadline) return handle->IsAvailable();  // time to check signals
    }
  }
  return handle->AwaitFor(timeout);
}

}  // namespace

bool AwaitHandle(TensorHandle* handle) {
  if (!handle->IsAvailable() &&
      !WaitInterruptibly([handle](std::chrono::milliseconds timeout) { return RunQueuedThenAwait(handle, timeout); })) {
    return false;
  }
  if (handle->IsError()) {
    SetPythonError(handle->error());
    return false;
  }
  return true;
}

bool ParseDTypeObject(PyObject* obj, DType* out) {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (obj == g_dtype_objects[i]) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  if (PyUnicode_Check(obj)) {
    const char* name = PyUnicode_AsUTF8(obj);
    if (name == nullptr) return false;  // not encodable (a lone surrogate): the UnicodeError stands
    Status s = ParseDType(name, out);
    if (!s.ok()) return SetPythonError(s), false;
    return true;
  }
  if (obj == reinterpret_cast<PyObject*>(&PyBool_Type)) { *out = DType::kBool; return true; }
  if (obj == reinterpret_cast<PyObject*>(&PyLong_Type)) { *out = DType::kInt32; return true; }
  if (obj == reinterpret_cast<PyObject*>(&PyFloat_Type)) { *out = DType::kFloat32; return true; }
  if (obj == reinterpret_cast<PyObject*>(&PyComplex_Type)) { *out = DType::kComplex64; return true; }
  // NumPy dtypes and scalar types (np.float32, np.dtype('int64'),
  // ml_dtypes.bfloat16).
  PyArray_Descr* descr = nullptr;
  if (PyArray_DescrConverter2(obj, &descr) && descr != nullptr) {
    bool ok = DTypeFromNumpy(descr->type_num, out);
    Py_DECREF(descr);
    if (ok) return true;
  }
  PyErr_Clear();
  PyErr_Format(PyExc_TypeError, "cannot interpret %R (type %s) as an ember dtype", obj, Py_TYPE(obj)->tp_name);
  return false;
}

}  // namespace ember::python
