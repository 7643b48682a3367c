// This file defines the ember._C extension module: start-up, the raw
// _execute fast path, and pybind11 bindings for everything off the hot path.
#define EMBER_NUMPY_OWNER
#include "python/numpy_api.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "devices/cpu/cpu_device.h"
#include "devices/sim/sim_device.h"
#include "kernels/cpu/blas.h"
#include "kernels/cpu/matmul_packed.h"
#include "graph/tracer.h"
#include "ops/op_kernel.h"
#include "python/convert.h"
#include "python/dlpack_binding.h"
#include "python/execute_binding.h"
#include "python/op_function.h"
#include "python/function_call.h"
#include "python/function_binding.h"
#include "python/collectives_binding.h"
#include "python/profiler_binding.h"
#include "python/shape_object.h"
#include "python/tape_binding.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"
#include "python/tensor_operators.h"
#include "runtime/context.h"
#include "runtime/device_copy.h"
#include "runtime/print_sink.h"

#ifdef EMBER_WITH_CUDA
#include "devices/cuda/cuda_init.h"
#include "devices/cuda/nccl_api.h"
#include "python/cuda_binding.h"
#endif

namespace py = pybind11;

namespace ember::python {
namespace {

[[noreturn]] void Throw(const Status& s) {
  SetPythonError(s);
  throw py::error_already_set();
}

// The device `spec` names ("sim:1", "/GPU:0"), or a Python error.
Device* FindDevice(const std::string& spec) {
  Device* d = nullptr;
  Status s = DeviceManager::Global().Find(spec, &d);
  if (!s.ok()) Throw(s);
  return d;
}

const OpDef& OpByName(const std::string& name) {
  const OpDef* op = nullptr;
  Status s = FindOpDef(name.c_str(), &op);
  if (!s.ok()) Throw(s);
  return *op;
}

py::dict OpInfo(const OpDef& op) {
  auto args = [&op](const std::vector<ArgDef>& defs) {
    py::list out;
    for (const ArgDef& a : defs) {
      const char* type = a.type_var >= 0 ? op.type_vars[a.type_var].name
                         : a.type_var == kAnyDTypeVar ? "any"
                                                      : DTypeName(a.fixed_dtype);
      out.append(py::make_tuple(a.name, type));
    }
    return out;
  };
  py::dict type_vars;
  for (const TypeVarDef& v : op.type_vars) {
    py::list allowed;
    for (int d = 0; d < kNumDTypes; ++d) {
      if (v.allowed.Contains(static_cast<DType>(d))) allowed.append(DTypeName(static_cast<DType>(d)));
    }
    type_vars[v.name] = allowed;
  }
  py::list attrs;
  for (const AttrDef& a : op.attrs) attrs.append(py::make_tuple(a.name, AttrTypeName(a.type), a.optional));
  py::dict info;
  info["name"] = op.name;
  info["inputs"] = args(op.inputs);
  info["outputs"] = args(op.outputs);
  info["type_vars"] = type_vars;
  info["attrs"] = attrs;
  py::list host_outputs;  // Note [Host-memory outputs]
  for (size_t i = 0; i < op.outputs.size() && i < 32; ++i) {
    if ((op.host_memory_outputs >> i) & 1u) host_outputs.append(static_cast<int>(i));
  }
  info["host_memory_outputs"] = host_outputs;
  return info;
}

py::object AttrToPython(const AttrValue& v, AttrType type) {
  if (v.is_none()) return py::none();
  switch (type) {
    case AttrType::kBool: return py::bool_(v.as_bool());
    case AttrType::kInt: return py::int_(v.as_int());
    case AttrType::kFloat: return py::float_(v.as_float());
    case AttrType::kString: return py::str(v.as_string());
    case AttrType::kIntList: return py::cast(v.as_int_list());
    case AttrType::kDType: return py::str(DTypeName(v.as_dtype()));
  }
  return py::none();
}

// ember.execute(op_name, inputs, attrs): the open domain. Missing attrs
// take their declared defaults.
py::object ExecuteByName(const std::string& name, py::sequence inputs, py::dict attrs) {
  const OpDef& op = OpByName(name);
  if (py::len(inputs) != op.inputs.size()) {
    Throw(InvalidArgument(name + ": expected " + std::to_string(op.inputs.size()) + " inputs, got " +
                          std::to_string(py::len(inputs))));
  }
  std::vector<py::object> in(inputs.begin(), inputs.end());
  std::vector<py::object> at;
  size_t used = 0;
  for (const AttrDef& def : op.attrs) {
    if (attrs.contains(def.name)) {
      at.push_back(attrs[def.name]);
      ++used;
    } else if (def.has_default || def.optional) {
      at.push_back(AttrToPython(def.default_value, def.type));
    } else {
      Throw(InvalidArgument(name + ": missing required attribute '" + def.name + "'"));
    }
  }
  if (used != py::len(attrs)) {
    for (auto item : attrs) {
      std::string key = py::str(item.first);
      bool known = false;
      for (const AttrDef& def : op.attrs) known |= key == def.name;
      if (!known) Throw(InvalidArgument(name + ": unknown attribute '" + key + "'"));
    }
  }
  std::vector<PyObject*> in_raw, at_raw;
  for (auto& o : in) in_raw.push_back(o.ptr());
  for (auto& o : at) at_raw.push_back(o.ptr());
  PyObject* result = ExecuteOp(op, in_raw.data(), at_raw.data(), DonationProof::kNone);
  if (!result) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(result);
}

// The print op's text goes to sys.stdout / sys.stderr (which notebooks
// capture), from whichever thread runs the kernel.
void PrintToPython(const std::string& text, bool to_stderr) {
#if PY_VERSION_HEX >= 0x030D0000
  const bool finalizing = Py_IsFinalizing();
#else
  const bool finalizing = _Py_IsFinalizing();
#endif
  if (!Py_IsInitialized() || finalizing) return;
  PyGILState_STATE gil = PyGILState_Ensure();
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);  // keep whatever error the thread had pending
  if (PyObject* stream = PySys_GetObject(to_stderr ? "stderr" : "stdout")) {  // borrowed
    if (PyObject* str = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace")) {
      Py_XDECREF(PyObject_CallMethod(stream, "write", "O", str));
      Py_XDECREF(PyObject_CallMethod(stream, "flush", nullptr));
      Py_DECREF(str);
    }
  }
  PyErr_Clear();
  PyErr_Restore(type, value, tb);
  PyGILState_Release(gil);
}

// Note [Failed variable updates]: a variable's new value is `updated` if
// its kernel succeeds and `previous` otherwise, so a failed update leaves
// the variable as it was; the failure itself is raised by ember.sync() (or
// at the call, in sync mode), like any asynchronous kernel error.
PyObject* KeepOnError(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2 || !IsTensor(args[0]) || !IsTensor(args[1])) {
    PyErr_SetString(PyExc_TypeError, "_keep_on_error(updated, previous) takes two tensors");
    return nullptr;
  }
  return NoThrow<PyObject*>("_keep_on_error", nullptr, [&]() -> PyObject* {
    RefPtr<TensorHandle> updated = RefPtr<TensorHandle>::Share(HandleOf(args[0]));
    RefPtr<TensorHandle> previous = RefPtr<TensorHandle>::Share(HandleOf(args[1]));
    if (updated->IsAvailable() && !updated->IsError()) return Py_NewRef(args[0]);
    RefPtr<TensorHandle> out = TensorHandle::CreatePending(updated->dtype(), updated->shape(), updated->device());
    updated->AndThen([updated, previous, out] {
      if (!updated->IsError()) return out->SetReady(updated->tensor());
      previous->AndThen([previous, out] {
        if (previous->IsError()) return out->SetError(previous->error());
        out->SetReady(previous->tensor());
      });
    });
    return WrapHandle(std::move(out));
  });
}

PyMethodDef kRawMethods[] = {
    {"_keep_on_error", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(KeepOnError)), METH_FASTCALL,
     "_keep_on_error(updated, previous): `updated`, or `previous` where its kernel failed."},
    {"_execute", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ExecuteFast)), METH_FASTCALL,
     "_execute(op_id, *inputs, *attrs): run an op (used by the generated bindings)."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace
}  // namespace ember::python

PYBIND11_MODULE(_C, m) {
  using namespace ember;
  using namespace ember::python;
  if (_import_array() < 0) throw py::error_already_set();
  InitCpuDevice();
  InitSimulatedDevices();
#ifdef EMBER_WITH_CUDA
  InitCudaDevices();
#endif
  if (Status s = KernelRegistry::Global().CheckRegistrations(); !s.ok()) {
    PyErr_SetString(PyExc_ImportError, s.message().c_str());
    throw py::error_already_set();
  }
  if (!InitTensorType(m.ptr())) throw py::error_already_set();
  if (!InitShapeType(m.ptr())) throw py::error_already_set();
  if (!InitOpFunctionType(m.ptr())) throw py::error_already_set();
  if (!InitFunctionBaseType(m.ptr())) throw py::error_already_set();
  {
    py::list names;
    for (const char* const* n = kTensorOperatorMethods; *n != nullptr; ++n) names.append(*n);
    m.attr("_TENSOR_C_OPERATORS") = py::frozenset(names);
  }
  // No C++ exception crosses into Python unconverted: pybind11's own
  // exceptions keep their meaning, bad_alloc becomes ResourceExhaustedError
  // and anything else InternalError, naming what was thrown.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (...) {
      SetPythonErrorFromCurrentException("ember");
    }
  });
  SetPrintSink(&PrintToPython);
  if (PyModule_AddFunctions(m.ptr(), kRawMethods) < 0) throw py::error_already_set();

  m.def("_op_id", [](const std::string& name) { return static_cast<int>(OpByName(name).id); });
  m.def("_op_names", [] {
    std::vector<std::string> names;
    for (const OpDef& op : AllOpDefs()) names.push_back(op.name);
    return names;
  });
  m.def("_op_info", [](const std::string& name) { return OpInfo(OpByName(name)); });
#ifdef EMBER_WITH_CUDA
  RegisterCudaBindings(m);
#endif
  m.def("_registered_kernels", [] {
    std::vector<std::tuple<std::string, std::string, std::vector<std::string>>> out;
    for (const auto& e : KernelRegistry::Global().List()) {
      std::vector<std::string> dtypes;
      for (DType d : e.dtypes) dtypes.push_back(DTypeName(d));
      out.emplace_back(GetOpDef(e.op).name, DeviceTypeName(e.device), dtypes);
    }
    return out;
  });
  m.def("_set_variable_type", [](py::object cls) {
    SetVariableType(reinterpret_cast<PyTypeObject*>(cls.ptr()));
  });
  m.def("_set_shape_type", [](py::object cls) {
    if (!IsShapeClass(cls.ptr())) throw py::type_error("_set_shape_type: expected a subclass of _C._ShapeTuple");
    SetShapeType(reinterpret_cast<PyTypeObject*>(cls.ptr()));
  });
  m.def("_set_dtype_objects", [](py::tuple objects) {
    std::vector<PyObject*> raw;
    for (auto o : objects) raw.push_back(o.ptr());
    SetDTypeObjects(raw.data(), static_cast<int>(raw.size()));
  });
  m.def("list_devices", [] {
    std::vector<std::string> names;
    for (Device* d : DeviceManager::Global().devices()) names.push_back(d->name());
    return names;
  });
  m.def("_canonical_device", [](const std::string& spec) {
    Device* d = FindDevice(spec);
    return d->name();
  });
  m.def("_push_device_scope", [](const std::string& spec) {
    Device* d = FindDevice(spec);
    PushDeviceScope(d);
  });
  m.def("_push_no_device_scope", [] { PushDeviceScope(nullptr); });
  m.def("_pop_device_scope", [] { PopDeviceScope(); });
  m.def("_current_device_scope", []() -> py::object {
    Device* d = CurrentScopeDevice();
    return d ? py::object(py::str(d->name())) : py::object(py::none());
  });
  m.def("_set_error_classes", [](py::tuple classes) {
    if (!SetErrorClasses(classes.ptr())) throw py::error_already_set();
  });
  // Note [Async error routing]: a Python composite takes a mark before its
  // first op and abandons the errors of its ops if it raises.
  m.def("_issue_mark", [] { return ErrorSink::ForCurrentThread()->PeekSequence(); });
  m.def("_abandon_since", [](uint64_t mark) { ErrorSink::ForCurrentThread()->AbandonSince(mark); });
  m.def("set_async", [](bool on) { Context::Global().set_async(on); });
  m.def("is_async", [] { return Context::Global().async(); });
  m.def("set_log_device_placement", [](bool on) { Context::Global().set_log_placement(on); });
  m.def("get_log_device_placement", [] { return Context::Global().log_placement(); });
  m.def("sync", [] {
    if (!WaitInterruptibly([](std::chrono::milliseconds t) { return Context::Global().WaitIdleFor(t); })) {
      throw py::error_already_set();
    }
    Status s = Context::Global().TakeThreadErrors();
    if (!s.ok()) Throw(s);
  });
  m.def("kernel_cache_stats", [] {
    KernelCache::Stats st = Context::Global().kernel_cache().GetStats();
    py::dict d;
    d["hits"] = st.hits;
    d["misses"] = st.misses;
    d["evictions"] = st.evictions;
    d["size"] = st.size;
    d["capacity"] = st.capacity;
    return d;
  });
  m.def("memory_stats", [](const std::string& spec, bool pinned) {
    Device* d = FindDevice(spec);
    Allocator* allocator = pinned ? d->pinned_allocator() : d->allocator();
    if (allocator == nullptr) throw py::value_error(d->name() + " has no pinned host memory");
    Allocator::Stats st = allocator->GetStats();
    py::dict out;
    out["bytes_in_use"] = st.bytes_in_use;
    out["peak_bytes_in_use"] = st.peak_bytes_in_use;
    out["bytes_reserved"] = st.bytes_reserved;
    out["num_allocs"] = st.num_allocs;
    out["limit_bytes"] = st.limit_bytes;
    return out;
  });
  // Note [Runtime statistics]: what the device's streams counted since
  // start-up, summed over its streams, plus each stream's own counts.
  m.def("runtime_stats", [](const std::string& spec) {
    Device* d = FindDevice(spec);
    auto counts = [](const StreamCounters& c) {
      py::dict out;
      out["kernels_enqueued"] = c.kernels.load();
      out["copies_enqueued"] = c.copies.load();
      out["copies_staged"] = c.staged_copies.load();
      out["events_recorded"] = c.events_recorded.load();
      out["device_waits"] = c.device_waits.load();
      out["host_synchronizations"] = c.host_syncs.load();
      out["host_callbacks"] = c.host_callbacks.load();
      out["busy_seconds"] = static_cast<double>(c.busy_ns.load()) * 1e-9;
      return out;
    };
    StreamCounters total;
    py::dict per_stream;
    const std::vector<Stream*> streams = d->streams();
    const char* kNames[] = {"compute", "host_to_device", "device_to_host"};
    for (size_t i = 0; i < streams.size(); ++i) {
      const StreamCounters& c = streams[i]->counters();
      total.kernels += c.kernels.load();
      total.copies += c.copies.load();
      total.staged_copies += c.staged_copies.load();
      total.events_recorded += c.events_recorded.load();
      total.device_waits += c.device_waits.load();
      total.host_syncs += c.host_syncs.load();
      total.host_callbacks += c.host_callbacks.load();
      total.busy_ns += c.busy_ns.load();
      per_stream[i < 3 ? kNames[i] : ("stream" + std::to_string(i)).c_str()] = counts(c);
    }
    py::dict out = counts(total);
    out["streams"] = per_stream;
    return out;
  });
  m.def("empty_cache", [](const std::string& spec) {
    Device* d = FindDevice(spec);
    ClearDeviceScalarCache(d);  // Note [Device scalar cache]
    py::gil_scoped_release release;
    d->allocator()->EmptyCache();
  });
  m.def("set_memory_limit", [](const std::string& spec, size_t bytes) {
    Device* d = FindDevice(spec);
    d->allocator()->SetLimit(bytes);
  });
  m.def("_device_info", [] {
    std::vector<std::pair<std::string, std::string>> out;
    for (Device* d : DeviceManager::Global().devices()) out.emplace_back(d->name(), DeviceTypeName(d->type()));
    return out;
  });
  // Note [OpenBLAS on first use] (kernels/cpu/openblas.h).
  m.def("_set_openblas_directory", &cpu::SetOpenBlasDirectory);
  m.def("_openblas_loaded", &cpu::OpenBlasLoaded);
  m.def("_build_info", [] {
    // Read by ember.config.build_info(), which documents the keys.
    const cpu::BlasInfo blas = cpu::GetBlasInfo();
    py::dict info;
    info["blas"] = blas.library;
    info["blas_version"] = blas.version;
    info["blas_config"] = blas.config;
    info["blas_threads_per_call"] = blas.threads;
    info["packed_sgemm"] = cpu::PackedSgemmAvailable();  // Note [Packed float32 GEMM]
    info["eigen_version"] = cpu::EigenVersion();
    int intra_op_threads = 0;
    for (Device* d : DeviceManager::Global().devices()) {
      if (auto* cpu = dynamic_cast<CpuDevice*>(d)) {
        intra_op_threads = cpu->num_intra_op_threads();
        break;
      }
    }
    info["intra_op_threads"] = intra_op_threads;
#ifdef EMBER_WITH_CUDA
    info["is_cuda_build"] = true;
    const CudaBuildInfo& cuda = GetCudaBuildInfo();
    info["cuda_version"] = cuda.cuda_runtime_version;
    info["cuda_driver_version"] = cuda.driver_version;
    info["cublas_version"] = cuda.cublas_version;
    info["cudnn_version"] = cuda.cudnn_version;
    info["nccl_version"] = cuda.nccl_version;
    info["nccl_library"] = cuda::NcclStatus();
    info["cuda_architectures"] = cuda.architectures;
    info["gpus_found"] = cuda.gpus_found;
    info["gpu_status"] = cuda.status;
#else
    info["is_cuda_build"] = false;
#endif
    return info;
  });
  m.def("set_device_policy", [](const std::string& policy) {
    if (policy == "silent") return Context::Global().set_device_policy(DevicePolicy::kSilent);
    if (policy == "warn") return Context::Global().set_device_policy(DevicePolicy::kWarn);
    if (policy == "explicit") return Context::Global().set_device_policy(DevicePolicy::kExplicit);
    Throw(InvalidArgument("set_device_policy: policy must be 'silent', 'warn' or 'explicit', got '" + policy + "'"));
  });
  m.def("get_device_policy", [] {
    switch (Context::Global().device_policy()) {
      case DevicePolicy::kWarn: return "warn";
      case DevicePolicy::kExplicit: return "explicit";
      default: return "silent";
    }
  });
  m.def("reset_peak_memory_stats", [](const std::string& spec) {
    Device* d = FindDevice(spec);
    d->allocator()->ResetPeak();
  });
  m.def("kernel_cache_clear", [] { Context::Global().kernel_cache().Clear(); });
  m.def("set_kernel_cache_capacity", [](size_t c) { Context::Global().kernel_cache().set_capacity(c); });
  m.def("convert_to_tensor", [](py::object value, py::object dtype) {
    DType d;
    const DType* target = nullptr;
    if (!dtype.is_none()) {
      if (!ParseDTypeObject(dtype.ptr(), &d)) throw py::error_already_set();
      target = &d;
    }
    RefPtr<TensorHandle> handle;
    if (!ConvertValue(value.ptr(), target, &handle)) throw py::error_already_set();
    // Under `with ember.device(X)` a new value lands on X (Note [Device copies]).
    Device* scoped = CurrentScopeDevice();
    if (scoped != nullptr && !IsTensor(value.ptr()) && CurrentTracer() == nullptr && handle->device() != scoped) {
      handle = CopyToDevice(handle, scoped);
    }
    return py::reinterpret_steal<py::object>(WrapHandle(std::move(handle)));
  }, py::arg("value"), py::arg("dtype") = py::none());
  RegisterFunctionBindings(m);
  RegisterTapeBindings(m);
  RegisterProfilerBindings(m);
  RegisterDLPackBindings(m);
  RegisterCollectiveBindings(m);
  // Whether NCCL loads (loading it on the first call): for GPU collectives.
  m.def("_nccl_available", [] {
#ifdef EMBER_WITH_CUDA
    std::string error;
    return cuda::GetNccl(&error) != nullptr;
#else
    return false;
#endif
  });
  m.def("execute", &ExecuteByName, py::arg("op_name"), py::arg("inputs"), py::arg("attrs") = py::dict(),
        "Runs any registered op by name (the open domain): inputs in declaration order, attrs by name.");
}
