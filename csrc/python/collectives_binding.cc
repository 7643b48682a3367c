// This file implements the Python binding of the collective ops' MPI side:
// attaching the library mpi4py loaded, and registering communicators.
#include "python/collectives_binding.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "collectives/communicator.h"
#include "core/allocator.h"
#include "core/checked_math.h"
#include "core/device.h"
#include "core/dtype.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"
#include "runtime/tensor_handle.h"

namespace ember::python {
namespace {

namespace py = pybind11;
using collectives::CommunicatorSpec;

[[noreturn]] void Throw(const Status& s) {
  SetPythonError(s);
  throw py::error_already_set();
}

bool PythonAlive() {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsInitialized() && !Py_IsFinalizing();
#else
  return Py_IsInitialized() && !_Py_IsFinalizing();
#endif
}

constexpr const char* kInterrupted = "interrupted by a KeyboardInterrupt";

// The Python callable that looks for lost workers (WorkerWatch), called
// from a kernel's thread while a collective waits: it returns None, or
// (kind, message) with kind "unavailable" or "deadline".
class FaultCheck {
 public:
  explicit FaultCheck(py::object callable) : callable_(callable.release().ptr()) {}
  ~FaultCheck() {
    if (!PythonAlive()) return;  // leaked at exit, as Python itself does
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(callable_);
    PyGILState_Release(gil);
  }
  FaultCheck(const FaultCheck&) = delete;
  FaultCheck& operator=(const FaultCheck&) = delete;

  Status operator()(const std::string& what, bool deadline_passed) const {
    if (!PythonAlive()) return Unavailable(what + ": the Python interpreter is shutting down");
    PyGILState_STATE gil = PyGILState_Ensure();
    Status status;
    PyObject* text = PyUnicode_DecodeUTF8(what.data(), static_cast<Py_ssize_t>(what.size()), "replace");
    PyObject* result = text == nullptr ? nullptr
                                       : PyObject_CallFunctionObjArgs(callable_, text,
                                                                      deadline_passed ? Py_True : Py_False, nullptr);
    Py_XDECREF(text);
    if (result == nullptr && PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
      // A Ctrl-C the check's Python code ran into (on the main thread).
      PyErr_Clear();
      status = Cancelled(what + ": " + kInterrupted);
    } else if (result == nullptr) {
      status = Internal(what + ": the lost-worker check failed: " + FetchErrorText());
    } else if (result != Py_None) {
      const char* kind = nullptr;
      const char* message = nullptr;
      if (PyArg_ParseTuple(result, "ss", &kind, &message)) {
        status = std::string(kind) == "deadline" ? DeadlineExceeded(message) : Unavailable(message);
      } else {
        status = Internal(what + ": the lost-worker check returned " + FetchErrorText());
      }
    }
    Py_XDECREF(result);
    PyGILState_Release(gil);
    return status;
  }

 private:
  static std::string FetchErrorText() {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    std::string text = "an unknown error";
    if (value != nullptr) {
      if (PyObject* str = PyObject_Str(value)) {
        if (const char* utf8 = PyUnicode_AsUTF8(str)) text = utf8;
        Py_DECREF(str);
      }
    }
    PyErr_Clear();
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return text;
  }

  PyObject* callable_;
};

// A handle's value as mpi4py reports it: MPICH's int handles come back
// sign-extended to 64 bits, so any Python int is taken modulo 2^64.
uint64_t HandleValue(py::handle value) {
  const unsigned long long bits = PyLong_AsUnsignedLongLongMask(value.ptr());
  if (PyErr_Occurred()) throw py::error_already_set();
  return static_cast<uint64_t>(bits);
}

int64_t MakeCommunicator(py::handle comm, py::handle check_comm, int rank, int size, bool check, double timeout_s,
                         const py::dict& datatypes, py::handle byte_type, py::handle int64_type,
                         const py::list& ops, py::object check_faults) {
  if (collectives::Mpi() == nullptr) Throw(FailedPrecondition("_mpi_attach first"));
  if (size < 1 || rank < 0 || rank >= size) Throw(InvalidArgument("bad rank or size"));
  if (ops.size() != 3) Throw(InvalidArgument("ops must be (sum, max, min)"));
  if (!(timeout_s > 0)) Throw(InvalidArgument("the timeout must be positive"));
  CommunicatorSpec spec;
  spec.comm = HandleValue(comm);
  spec.check_comm = HandleValue(check_comm);
  spec.rank = rank;
  spec.size = size;
  spec.check = check;
  spec.timeout_s = timeout_s;
  for (const auto& [name, handle] : datatypes) {
    DType dtype;
    if (Status s = ParseDType(py::cast<std::string>(name), &dtype); !s.ok()) Throw(s);
    spec.datatypes[static_cast<int>(dtype)] = HandleValue(handle);
  }
  spec.byte_type = HandleValue(byte_type);
  spec.int64_type = HandleValue(int64_type);
  for (int i = 0; i < 3; ++i) spec.ops[i] = HandleValue(ops[i]);
  if (!check_faults.is_none()) {
    auto hook = std::make_shared<FaultCheck>(check_faults);
    spec.check_faults = [hook](const std::string& what, bool deadline_passed) { return (*hook)(what, deadline_passed); };
  }
  return collectives::RegisterCommunicator(std::make_shared<collectives::Communicator>(std::move(spec)));
}

// Note [Eager collectives without the executor]: an eager collective call
// from MpiCollectives waits for its input and then for the other workers
// anyway, so it runs here, on the calling thread with the GIL released,
// rather than as an op on the executor: handing it to the executor thread
// and back costs two thread wake-ups, more than a small all-reduce takes.
// The kernels (kernels/cpu/collective.cc) call the same Communicator; graphs
// and taped calls use those. Every worker must start its collectives on a
// communicator in the same order, and collective ops issued earlier may
// still wait in the CPU executor's queue (a graph called asynchronously):
// so this first waits until that executor is idle, where all collective
// ops run.
py::object RunEager(int64_t id, const std::string& kind, py::handle value, const std::string& reduction, int root) {
  std::shared_ptr<collectives::Communicator> communicator = collectives::FindCommunicator(id);
  if (communicator == nullptr) Throw(NotFound("no communicator with id " + std::to_string(id)));
  if (!IsTensor(value.ptr())) throw py::type_error("expected an ember.Tensor");
  Executor* executor = DeviceManager::Global().cpu()->executor();
  if (!WaitInterruptibly([executor](std::chrono::milliseconds timeout) { return executor->WaitIdleFor(timeout); })) {
    throw py::error_already_set();
  }
  TensorHandle* handle = HandleOf(value.ptr());
  if (!AwaitHandle(handle)) throw py::error_already_set();
  Device* device = handle->device();
  if (!device->host_memory()) Throw(InvalidArgument("the value must be in host memory (on a CPU device)"));
  const Tensor in = handle->tensor();
  Shape shape = in.shape();
  if (kind == "all_gather") {
    if (shape.rank() == 0) Throw(InvalidArgument("all_gather: a scalar has no axis to concatenate along"));
    int64_t rows;
    if (!CheckedMul(shape.dim(0), communicator->size(), &rows)) Throw(InvalidArgument("all_gather: too many rows"));
    shape.set_dim(0, rows);
  } else if (kind == "reduce_scatter" || kind == "all_to_all") {
    if (shape.rank() == 0 || shape.dim(0) % communicator->size() != 0) {
      Throw(InvalidArgument(kind + ": dimension 0 of shape " + shape.ToString() + " does not split into " +
                            std::to_string(communicator->size()) + " equal blocks, one per worker"));
    }
    if (kind == "reduce_scatter") shape.set_dim(0, shape.dim(0) / communicator->size());
  }
  const size_t bytes = static_cast<size_t>(shape.NumElements()) * DTypeSize(in.dtype());
  RefPtr<Buffer> buffer = Buffer::Allocate(device->allocator(), bytes, device->stream());
  if (!buffer) Throw(ResourceExhausted(kind + ": out of memory"));
  Tensor out(in.dtype(), shape, std::move(buffer));
  Status s;
  {
    py::gil_scoped_release release;
    if (kind == "all_reduce") {
      collectives::Reduction r;
      s = collectives::ParseReduction(reduction, &r);
      if (s.ok()) s = communicator->AllReduce(in, out, r);
    } else if (kind == "all_gather") {
      s = communicator->AllGather(in, out);
    } else if (kind == "broadcast") {
      s = communicator->Broadcast(in, out, root);
    } else if (kind == "reduce_scatter") {
      collectives::Reduction r;
      s = collectives::ParseReduction(reduction, &r);
      if (s.ok()) s = communicator->ReduceScatter(in, out, r);
    } else if (kind == "all_to_all") {
      s = communicator->AllToAll(in, out);
    } else if (kind == "barrier") {
      s = communicator->Barrier(in, out);
    } else {
      s = InvalidArgument("unknown collective '" + kind + "'");
    }
  }
  if (s.code() == StatusCode::kCancelled && s.message().find(kInterrupted) != std::string::npos) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (!s.ok()) Throw(s);
  return py::reinterpret_steal<py::object>(WrapHandle(TensorHandle::CreateReady(std::move(out), device)));
}

}  // namespace

void RegisterCollectiveBindings(py::module_& m) {
  m.def("_mpi_attach", [](int handle_bytes) {
    std::string library;
    if (Status s = collectives::AttachMpi(handle_bytes, &library); !s.ok()) Throw(s);
    return library;
  });
  m.def("_mpi_communicator", &MakeCommunicator, py::arg("comm"), py::arg("check_comm"), py::arg("rank"),
        py::arg("size"), py::arg("check"), py::arg("timeout"), py::arg("datatypes"), py::arg("byte_type"),
        py::arg("int64_type"), py::arg("ops"), py::arg("check_faults"));
  m.def("_mpi_run", &RunEager, py::arg("communicator"), py::arg("kind"), py::arg("value"),
        py::arg("reduction") = "sum", py::arg("root") = 0);
  m.def("_mpi_forget_communicator", [](int64_t id) {
    py::gil_scoped_release release;  // a kernel still running may hold the last other reference
    collectives::UnregisterCommunicator(id);
  });
}

}  // namespace ember::python
