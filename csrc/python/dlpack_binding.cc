// This file implements DLPack export (a tensor's host buffer lent as a
// capsule) and import (a producer's memory wrapped as a foreign buffer).
#include "python/dlpack_binding.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/checked_math.h"
#include "python/dlpack_abi.h"
#include "python/tensor_object.h"
#include "runtime/device_copy.h"

namespace py = pybind11;

namespace ember::python {
namespace {

[[noreturn]] void Raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

// Every Ember dtype has a DLPack type; not every DLPack type an Ember one.
dlpack::DataType ToDataType(DType dtype) {
  const auto bits = static_cast<uint8_t>(DTypeSize(dtype) * 8);
  switch (KindOf(dtype)) {
    case DTypeKind::kBool: return {dlpack::kBool, 8, 1};
    case DTypeKind::kInt: return {dlpack::kInt, bits, 1};
    case DTypeKind::kUInt: return {dlpack::kUInt, bits, 1};
    case DTypeKind::kComplex: return {dlpack::kComplex, bits, 1};
    case DTypeKind::kFloat: break;
  }
  return {dtype == DType::kBFloat16 ? dlpack::kBFloat : dlpack::kFloat, bits, 1};
}

bool FromDataType(dlpack::DataType t, DType* out) {
  if (t.lanes != 1) return false;
  for (int i = 0; i < kNumDTypes; ++i) {
    const dlpack::DataType mine = ToDataType(static_cast<DType>(i));
    if (mine.code == t.code && mine.bits == t.bits) {
      *out = static_cast<DType>(i);
      return true;
    }
  }
  return false;
}

// ---- Export ----------------------------------------------------------------

// Note [DLPack export]: the managed tensor owns a reference to the buffer,
// so the memory outlives the tensor object until the consumer calls the
// deleter (from any thread, with or without the GIL: the deleter touches
// no Python object). The reference also keeps the buffer from being
// donated (Note [Buffer donation]) while a consumer can read it.
template <typename Managed>
struct Exported {
  Managed managed{};
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  RefPtr<Buffer> buffer;

  static void Delete(Managed* self) { delete static_cast<Exported*>(self->manager_ctx); }
};

// A capsule nobody consumed still owns its tensor; a consumed one was
// renamed "used_..." and the consumer calls the deleter.
template <typename Managed>
void DestroyCapsule(PyObject* capsule, const char* name) {
  if (!PyCapsule_IsValid(capsule, name)) return;  // consumed; sets no error
  auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (managed->deleter != nullptr) managed->deleter(managed);
}
void DestroyLegacyCapsule(PyObject* c) { DestroyCapsule<dlpack::ManagedTensor>(c, dlpack::kLegacyName); }
void DestroyVersionedCapsule(PyObject* c) {
  DestroyCapsule<dlpack::ManagedTensorVersioned>(c, dlpack::kVersionedName);
}

template <typename Managed>
py::object MakeCapsule(const Tensor& value, uint64_t flags, const char* name, PyCapsule_Destructor destroy) {
  auto* exported = new Exported<Managed>();
  exported->buffer = value.buffer();
  const Shape& shape = value.shape();
  exported->shape.assign(shape.begin(), shape.end());
  exported->strides.resize(shape.rank());
  int64_t stride = 1;  // row-major, in elements; given even where null would do
  for (int i = shape.rank() - 1; i >= 0; --i) {
    exported->strides[i] = stride;
    stride *= std::max<int64_t>(shape.dim(i), 1);
  }
  Managed& m = exported->managed;
  m.manager_ctx = exported;
  m.deleter = &Exported<Managed>::Delete;
  if constexpr (std::is_same_v<Managed, dlpack::ManagedTensorVersioned>) {
    m.version = dlpack::kVersion;
    m.flags = flags;
  }
  dlpack::Tensor& t = m.dl_tensor;
  t.data = value.raw_data();
  t.device = {dlpack::kCpu, 0};
  t.ndim = shape.rank();
  t.dtype = ToDataType(value.dtype());
  t.shape = exported->shape.data();
  t.strides = exported->strides.data();
  t.byte_offset = 0;
  PyObject* capsule = PyCapsule_New(&m, name, destroy);
  if (capsule == nullptr) {
    delete exported;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

// `to_host`: a tensor on a device without host memory is copied to the
// host first (the consumer asked for dl_device kDLCPU). `copy`: the
// consumer gets a buffer of its own. Waits for a pending value.
py::object ToDLPack(py::handle obj, bool versioned, bool copy, bool to_host) {
  if (!IsTensor(obj.ptr())) throw py::type_error("expected an ember.Tensor");
  RefPtr<TensorHandle> handle = RefPtr<TensorHandle>::Share(HandleOf(obj.ptr()));
  bool copied = false;
  if (!handle->device()->host_memory() && !handle->is_symbolic()) {
    if (!to_host) {
      Raise(PyExc_BufferError, "a tensor on " + handle->device()->name() +
                                   " cannot be exported without a copy to the host; pass dl_device=(1, 0)");
    }
    handle = CopyToDevice(handle, DeviceManager::Global().cpu());
    copied = true;
  }
  if (!AwaitHandle(handle.get())) throw py::error_already_set();
  Tensor value = handle->tensor();
  if (copy && !copied) {
    RefPtr<Buffer> buffer = Buffer::Allocate(HostAllocator(), value.NumBytes());
    if (!buffer) throw std::bad_alloc();
    if (value.NumBytes() > 0) std::memcpy(buffer->data(), value.raw_data(), value.NumBytes());
    value = Tensor(value.dtype(), value.shape(), std::move(buffer));
    copied = true;
  }
  // Note [DLPack read-only]: a shared buffer is an immutable tensor's, so a
  // versioned export says READ_ONLY; a copy belongs to the consumer alone.
  // The legacy capsule has no flags to say it with.
  const uint64_t flags = copied ? dlpack::kFlagIsCopied : dlpack::kFlagReadOnly;
  if (versioned) {
    return MakeCapsule<dlpack::ManagedTensorVersioned>(value, flags, dlpack::kVersionedName,
                                                       DestroyVersionedCapsule);
  }
  return MakeCapsule<dlpack::ManagedTensor>(value, 0, dlpack::kLegacyName, DestroyLegacyCapsule);
}

// What __dlpack_device__ reports: host memory is kDLCPU (DLPack has one
// CPU, so every logical CPU device is device 0); the simulated
// accelerator's memory, which only its queue may touch, is an extension
// device.
py::tuple DLPackDevice(py::handle obj) {
  if (!IsTensor(obj.ptr())) throw py::type_error("expected an ember.Tensor");
  Device* device = HandleOf(obj.ptr())->device();
  if (device->host_memory()) return py::make_tuple(static_cast<int>(dlpack::kCpu), 0);
  return py::make_tuple(static_cast<int>(dlpack::kExtDev), device->index());
}

// ---- Import ----------------------------------------------------------------

// The producer's managed tensor, kept until the foreign buffer is freed.
struct Imported {
  void* managed;
  bool versioned;

  void CallDeleter() const {
    if (versioned) {
      auto* m = static_cast<dlpack::ManagedTensorVersioned*>(managed);
      if (m->deleter != nullptr) m->deleter(m);
    } else {
      auto* m = static_cast<dlpack::ManagedTensor*>(managed);
      if (m->deleter != nullptr) m->deleter(m);
    }
  }
};

bool PythonIsShuttingDown() {
#if PY_VERSION_HEX >= 0x030D0000
  return !Py_IsInitialized() || Py_IsFinalizing();
#else
  return !Py_IsInitialized() || _Py_IsFinalizing();
#endif
}

// Note [DLPack import lifetime]: the last reference to an imported buffer
// may go on any thread (a worker finishing a kernel that read it). Deleters
// may touch Python objects (NumPy's drops its array), so this one runs
// holding the GIL, with any pending Python error set aside. Once the
// interpreter is shutting down the producer's memory is left alone, as
// NumPy's own deleter does.
void ReleaseImported(void* context) {
  auto* imported = static_cast<Imported*>(context);
  if (!PythonIsShuttingDown()) {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    imported->CallDeleter();
    PyErr_Restore(type, value, traceback);
    PyGILState_Release(gil);
  }
  delete imported;
}

// Copies `count` elements of `item` bytes laid out with `strides` (bytes,
// possibly negative) into the row-major `dst`.
void CopyStrided(char* dst, const char* src, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& byte_strides, size_t item) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int64_t> index(rank, 0);
  const int64_t count = Shape(shape.data(), rank).NumElements();
  for (int64_t n = 0; n < count; ++n) {
    int64_t offset = 0;
    for (int i = 0; i < rank; ++i) offset += index[i] * byte_strides[i];
    std::memcpy(dst + n * item, src + offset, item);
    for (int i = rank - 1; i >= 0 && ++index[i] == shape[i]; --i) index[i] = 0;
  }
}

const char* CapsuleName(PyObject* capsule) {
  const char* name = PyCapsule_GetName(capsule);
  if (name == nullptr) PyErr_Clear();
  return name == nullptr ? "" : name;
}

// Imports a "dltensor" or "dltensor_versioned" capsule as a CPU tensor.
// Zero-copy unless `copy` is True or the layout needs one (strides,
// misalignment, bool bytes other than 0/1); `copy` False makes that a
// ValueError. A capsule this refuses stays unconsumed: its destructor
// frees the producer's tensor.
py::object FromDLPack(py::handle capsule_obj, py::object copy_obj) {
  PyObject* capsule = capsule_obj.ptr();
  if (!PyCapsule_CheckExact(capsule)) {
    throw py::type_error(std::string("expected a DLPack capsule, got ") + Py_TYPE(capsule)->tp_name);
  }
  bool versioned;
  if (PyCapsule_IsValid(capsule, dlpack::kVersionedName)) {
    versioned = true;
  } else if (PyCapsule_IsValid(capsule, dlpack::kLegacyName)) {
    versioned = false;
  } else {
    const std::string name = CapsuleName(capsule);
    if (name.rfind("used_", 0) == 0) Raise(PyExc_ValueError, "this DLPack capsule was already consumed");
    Raise(PyExc_TypeError, "expected a capsule named 'dltensor' or 'dltensor_versioned', got '" + name + "'");
  }
  const char* name = versioned ? dlpack::kVersionedName : dlpack::kLegacyName;
  void* managed = PyCapsule_GetPointer(capsule, name);
  const dlpack::Tensor* t;
  uint64_t flags = 0;
  if (versioned) {
    auto* m = static_cast<dlpack::ManagedTensorVersioned*>(managed);
    if (m->version.major != dlpack::kVersion.major) {
      Raise(PyExc_BufferError, "unsupported DLPack version " + std::to_string(m->version.major) + "." +
                                   std::to_string(m->version.minor) + " (ember reads 1.x)");
    }
    t = &m->dl_tensor;
    flags = m->flags;
  } else {
    t = &static_cast<dlpack::ManagedTensor*>(managed)->dl_tensor;
  }
  (void)flags;  // Note [DLPack read-only]: READ_ONLY data is fine to share: ember never writes it

  const int32_t device_type = t->device.device_type;
  if (device_type != dlpack::kCpu && device_type != dlpack::kCudaHost && device_type != dlpack::kRocmHost) {
    Raise(PyExc_BufferError, "ember imports DLPack data in host memory only, got device type " +
                                 std::to_string(device_type));
  }
  DType dtype;
  if (!FromDataType(t->dtype, &dtype)) {
    Raise(PyExc_BufferError, "unsupported DLPack dtype (code " + std::to_string(t->dtype.code) + ", bits " +
                                 std::to_string(t->dtype.bits) + ", lanes " + std::to_string(t->dtype.lanes) +
                                 "): ember supports bool, int8-64, uint8, float16, bfloat16, float32/64, complex64");
  }
  if (t->ndim < 0 || t->ndim > kMaxRank || (t->ndim > 0 && t->shape == nullptr)) {
    Raise(PyExc_BufferError, "invalid DLPack tensor: ndim " + std::to_string(t->ndim));
  }
  std::vector<int64_t> dims(t->shape, t->shape + t->ndim);
  const size_t item = DTypeSize(dtype);
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || !CheckedMul(count, d, &count)) Raise(PyExc_BufferError, "invalid DLPack tensor shape");
  }
  // Row-major element strides, and the tensor's own in bytes.
  std::vector<int64_t> byte_strides(dims.size());
  bool contiguous = true;
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    const int64_t s = t->strides != nullptr ? t->strides[i] : expected;
    if (dims[i] != 1 && s != expected) contiguous = false;
    byte_strides[i] = s * static_cast<int64_t>(item);
    expected *= dims[i];
  }
  const char* data = static_cast<const char*>(t->data) + t->byte_offset;
  const size_t bytes = static_cast<size_t>(count) * item;
  Shape shape(dims.data(), t->ndim);

  std::string why_copy;
  if (count > 0) {
    if (!contiguous) {
      why_copy = "its strides are not row-major contiguous";
    } else if (reinterpret_cast<uintptr_t>(data) % std::min<size_t>(item, 8) != 0) {
      why_copy = "its data is not aligned to its element size";
    } else if (dtype == DType::kBool) {
      const auto* b = reinterpret_cast<const uint8_t*>(data);
      if (std::any_of(b, b + bytes, [](uint8_t v) { return v > 1; })) why_copy = "a bool element is not 0 or 1";
    }
  }
  const bool copy_requested = !copy_obj.is_none() && copy_obj.cast<bool>();
  if (!why_copy.empty() && !copy_obj.is_none() && !copy_requested) {
    Raise(PyExc_ValueError, "from_dlpack(copy=False): a copy is needed because " + why_copy);
  }
  Device* cpu = DeviceManager::Global().cpu();
  auto consume = [&] {
    if (PyCapsule_SetName(capsule, versioned ? dlpack::kVersionedUsedName : dlpack::kLegacyUsedName) != 0) {
      throw py::error_already_set();
    }
  };
  if (count == 0 || copy_requested || !why_copy.empty()) {
    RefPtr<Buffer> buffer = Buffer::Allocate(HostAllocator(), bytes);
    if (!buffer) throw std::bad_alloc();
    if (count > 0) CopyStrided(static_cast<char*>(buffer->data()), data, dims, byte_strides, item);
    if (dtype == DType::kBool) {
      auto* b = static_cast<uint8_t*>(buffer->data());
      for (size_t i = 0; i < bytes; ++i) b[i] = b[i] != 0;
    }
    consume();
    Imported{managed, versioned}.CallDeleter();  // done with the producer's memory
    PyObject* out = WrapHandle(TensorHandle::CreateReady(Tensor(dtype, shape, std::move(buffer)), cpu));
    if (out == nullptr) throw py::error_already_set();
    return py::reinterpret_steal<py::object>(out);
  }
  consume();
  RefPtr<Buffer> buffer = Buffer::WrapForeign(const_cast<char*>(data), bytes, ReleaseImported,
                                              new Imported{managed, versioned});
  PyObject* out = WrapHandle(TensorHandle::CreateReady(Tensor(dtype, shape, std::move(buffer)), cpu));
  if (out == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(out);
}

}  // namespace

void RegisterDLPackBindings(py::module_& m) {
  m.def("_to_dlpack", &ToDLPack, py::arg("tensor"), py::arg("versioned"), py::arg("copy"), py::arg("to_host"));
  m.def("_dlpack_device", &DLPackDevice, py::arg("tensor"));
  m.def("_from_dlpack", &FromDLPack, py::arg("capsule"), py::arg("copy") = py::none());
}

}  // namespace ember::python
