// This file implements the Python bindings of graph tracing and graph calls:
// _Tracer (Note [Tracing]) and _GraphFunction (Note [Dataflow executor]).
#include "python/function_binding.h"

#include <frameobject.h>
#include <pybind11/stl.h>
#include <unordered_map>

#include "core/device.h"
#include "graph/executor.h"
#include "graph/function_library.h"
#include "graph/graph_function.h"
#include "ops/op_ids.gen.h"
#include "runtime/execute.h"
#include "graph/passes/passes.h"
#include "graph/tracer.h"
#include "python/convert.h"
#include "python/execute_binding.h"
#include "python/profiler_binding.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"
#include "runtime/context.h"
#include "runtime/profiler.h"

namespace py = pybind11;

namespace ember::python {
namespace {

std::string g_package_dir;  // python/ember's directory, set by function.py

[[noreturn]] void Throw(const Status& s) {
  SetPythonError(s);
  throw py::error_already_set();
}

TensorHandle* HandleArg(const py::handle& obj, const char* what) {
  if (!IsTensor(obj.ptr())) throw py::type_error(std::string(what) + " must be an ember.Tensor");
  return HandleOf(obj.ptr());
}

py::object Wrap(RefPtr<TensorHandle> handle) {
  return py::reinterpret_steal<py::object>(WrapHandle(std::move(handle)));
}

// Tracers set aside by ember.init_scope on this thread, innermost last.
thread_local std::vector<Tracer*> g_suspended_tracers;
// The tracers this thread had before it joined another thread's trace
// (Note [Replicas join the caller's trace] in ember/distribute/_lockstep.py).
thread_local std::vector<Tracer*> g_tracers_before_join;

// A trace in progress: owns the Tracer and restores the previous one.
class PyTracer {
 public:
  PyTracer() : tracer_(std::make_unique<Tracer>()) {}
  ~PyTracer() { Exit(); }

  void Enter() {
    if (entered_) throw py::value_error("tracer already entered");
    previous_ = SwapCurrentTracer(tracer_.get());
    entered_ = true;
  }
  void Exit() {
    if (!entered_) return;
    SwapCurrentTracer(previous_);
    entered_ = false;
  }
  // Makes this trace the current one on another thread too, which must
  // never record while the entering thread does (the replicas take turns).
  void Join() { g_tracers_before_join.push_back(SwapCurrentTracer(tracer_.get())); }
  void Leave() {
    if (g_tracers_before_join.empty()) throw py::value_error("_Tracer.leave without join on this thread");
    SwapCurrentTracer(g_tracers_before_join.back());
    g_tracers_before_join.pop_back();
  }

  py::object Parameter(const std::string& dtype_name, const std::vector<py::object>& dims,
                       const std::string& device_spec) {
    DType dtype;
    if (Status s = ParseDType(dtype_name, &dtype); !s.ok()) Throw(s);
    Shape shape;
    for (const py::object& d : dims) shape.AddDim(d.is_none() ? Shape::kUnknownDim : d.cast<int64_t>());
    Device* device = nullptr;
    if (Status s = DeviceManager::Global().Find(device_spec, &device); !s.ok()) Throw(s);
    return Wrap(tracer_->AddParameter(dtype, std::move(shape), device));
  }

  py::object Variable(py::handle value) { return Wrap(tracer_->AddVariable(HandleArg(value, "value"))); }

  Tracer& tracer() { return *tracer_; }

 private:
  std::unique_ptr<Tracer> tracer_;
  Tracer* previous_ = nullptr;
  bool entered_ = false;
};

// A traced function: the graph, where each argument comes from, and the
// captured handles.
class PyGraphFunction {
 public:
  PyGraphFunction(std::shared_ptr<const GraphFunction> fn, std::vector<Tracer::ArgSource> sources,
                  std::vector<RefPtr<TensorHandle>> captures)
      : fn_(std::move(fn)), sources_(std::move(sources)), captures_(std::move(captures)),
        id_(std::make_shared<Registration>(fn_)), attrs_{AttrValue(id_->id)} {}

  // Ends a trace: marks the outputs, optimizes the graph once (Note [Graph
  // passes]; captured handles are its constants) and wraps it.
  static PyGraphFunction FromTracer(PyTracer& t, const py::list& outputs, bool optimize) {
    std::vector<TensorHandle*> handles;
    for (const py::handle& o : outputs) handles.push_back(HandleArg(o, "a function output"));
    t.tracer().SetOutputs(handles);
    FunctionBody body{t.tracer().graph(), t.tracer().arg_captures()};
    if (optimize) {
      Status s;
      {
        py::gil_scoped_release release;  // folding may wait for captured values
        s = OptimizeGraph(body);
      }
      if (!s.ok()) Throw(s);
    }
    std::vector<Tracer::ArgSource> sources = t.tracer().arg_sources();
    sources.resize(body.graph.num_args(), Tracer::ArgSource::kCapture);  // folded constants
    body.constants.resize(body.graph.num_args());
    return PyGraphFunction(std::make_shared<GraphFunction>(std::move(body.graph)), std::move(sources),
                           std::move(body.constants));
  }

  static PyGraphFunction FromText(const std::string& text) {
    Graph graph;
    if (Status s = Graph::FromText(text, &graph); !s.ok()) Throw(s);
    std::vector<Tracer::ArgSource> sources(graph.num_args(), Tracer::ArgSource::kParameter);
    std::vector<RefPtr<TensorHandle>> captures(graph.num_args());
    return PyGraphFunction(std::make_shared<GraphFunction>(std::move(graph)), sources, captures);
  }

  // [(kind, captured tensor or None)] per argument.
  py::list Args() const {
    py::list out;
    for (size_t i = 0; i < sources_.size(); ++i) {
      const char* kind = sources_[i] == Tracer::ArgSource::kParameter ? "parameter"
                         : sources_[i] == Tracer::ArgSource::kCapture ? "capture"
                                                                      : "variable";
      out.append(py::make_tuple(kind, captures_[i] ? Wrap(captures_[i]) : py::object(py::none())));
    }
    return out;
  }

  py::list Outputs() const {
    py::list out;
    const Graph& g = fn_->graph();
    for (const Endpoint& e : g.outputs()) {
      py::list dims;
      for (int64_t d : g.info(e).shape) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
      out.append(py::make_tuple(DTypeName(g.info(e).dtype), py::tuple(dims)));
    }
    return out;
  }

  // Runs the graph on one tensor per argument; returns the outputs.
  py::list Call(const py::list& args) const {
    std::vector<RefPtr<TensorHandle>> inputs;
    for (const py::handle& a : args) inputs.push_back(RefPtr<TensorHandle>::Share(HandleArg(a, "an argument")));
    return ToList(Run(std::move(inputs)));
  }

  // The call path of ConcreteFunction: the function's tensor parameters
  // and its variables (their current `_eager_value`), merged here with the
  // captures in argument order (Tracer::ArgSource).
  py::list CallFlat(const py::list& params, const py::list& variables) const {
    return ToList(Run(Inputs(params, variables)));
  }

  // CallFlat's first result alone: the common call of a one-output
  // function (ConcreteFunction._fast_call), without the list.
  py::object CallFlatOne(const py::list& params, const py::list& variables) const {
    std::vector<RefPtr<TensorHandle>> outputs = Run(Inputs(params, variables));
    if (outputs.empty()) throw py::type_error("the function has no outputs");
    return Wrap(std::move(outputs[0]));
  }

  // The call_function op's inputs: parameters, captures and variables' values
  // in the graph's argument order.
  std::vector<RefPtr<TensorHandle>> Inputs(const py::list& params, const py::list& variables) const {
    std::vector<RefPtr<TensorHandle>> inputs;
    inputs.reserve(sources_.size());
    size_t p = 0, v = 0;
    for (size_t i = 0; i < sources_.size(); ++i) {
      switch (sources_[i]) {
        case Tracer::ArgSource::kParameter:
          if (p >= params.size()) throw py::type_error("too few tensor arguments");
          inputs.push_back(ParamHandle(params[p++]));
          break;
        case Tracer::ArgSource::kCapture:
          inputs.push_back(captures_[i]);
          break;
        case Tracer::ArgSource::kVariable: {
          if (v >= variables.size()) throw py::type_error("too few variables");
          py::object value = variables[v++].attr("_eager_value");
          inputs.push_back(RefPtr<TensorHandle>::Share(HandleArg(value, "a variable's value")));
          break;
        }
      }
    }
    if (p != params.size()) {
      throw py::type_error("expected " + std::to_string(p) + " tensor arguments, got " + std::to_string(params.size()));
    }
    return inputs;
  }

  // A tensor argument: a Tensor, or a NumPy value converted in its dtype.
  static RefPtr<TensorHandle> ParamHandle(py::handle value) {
    if (IsTensor(value.ptr())) return RefPtr<TensorHandle>::Share(HandleOf(value.ptr()));
    RefPtr<TensorHandle> handle;
    if (!ConvertValue(value.ptr(), nullptr, &handle)) throw py::error_already_set();
    return handle;
  }

  // One call_function op through Execute: the kernel cache holds the
  // instantiated graph, shape functions give the output shapes at once.
  std::vector<RefPtr<TensorHandle>> Run(std::vector<RefPtr<TensorHandle>> inputs) const {
    if (profiler::Enabled()) NameProfiledPythonThread();
    profiler::DispatchSpan span(GetOpDef(OpId::kCallFunction).name);  // Note [Profiler]
    ExecuteResult result;
    const int num_inputs = static_cast<int>(inputs.size());
    Status s = Execute(GetOpDef(OpId::kCallFunction), reinterpret_cast<TensorHandle* const*>(inputs.data()),
                       num_inputs, attrs_, nullptr, 0, &result, &num_inputs);
    if (!s.ok()) Throw(s);
    if (result.inline_task && !FinishSyncCall(GetOpDef(OpId::kCallFunction), result, /*release_gil=*/true)) {
      throw py::error_already_set();
    }
    return std::move(result.outputs);
  }

  static py::list ToList(std::vector<RefPtr<TensorHandle>> handles) {
    py::list out;
    for (auto& h : handles) out.append(Wrap(std::move(h)));
    return out;
  }

  const Graph& graph() const { return fn_->graph(); }
  int64_t id() const { return id_->id; }

 private:
  // The function's id in the function library (Note [Function lifetime]).
  struct Registration {
    explicit Registration(const std::shared_ptr<const GraphFunction>& fn) : id(RegisterGraphFunction(fn)) {}
    int64_t id;
  };

  std::shared_ptr<const GraphFunction> fn_;
  std::vector<Tracer::ArgSource> sources_;
  std::vector<RefPtr<TensorHandle>> captures_;
  std::shared_ptr<Registration> id_;
  AttrList attrs_;  // call_function's: the function id, made once
};

}  // namespace

std::string TracedLocation() {
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  std::string location;
  while (frame != nullptr) {
    PyCodeObject* code = PyFrame_GetCode(frame);
    PyObject* filename = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename");
    const char* name = filename ? PyUnicode_AsUTF8(filename) : nullptr;
    const bool inside_ember = name == nullptr || (!g_package_dir.empty() && std::string(name).rfind(g_package_dir, 0) == 0);
    if (!inside_ember) location = std::string(name) + ":" + std::to_string(PyFrame_GetLineNumber(frame));
    Py_XDECREF(filename);
    Py_DECREF(code);
    PyFrameObject* back = PyFrame_GetBack(frame);
    Py_DECREF(frame);
    frame = back;
    if (!location.empty()) break;
  }
  Py_XDECREF(frame);
  PyErr_Clear();
  return location;
}

namespace {

// The trace-cache key of one argument value, appending its tensor leaves
// (Note [Trace cache key] in docs/functions.md). Tensors, lists and tuples
// are handled here because they are most of every call; anything else goes
// to `other(value, leaves)`, the Python definition of the same key.
// Arguments nested deeper than this are refused: the key is built
// recursively, and a list nested a million deep would overflow the stack.
constexpr int kMaxNesting = 64;

// A dtype's name as a Python string, made once per dtype (every call of a
// function builds a key; leaked on purpose, as the strings below).
py::handle DTypeNameObject(DType dtype) {
  static PyObject* names[kNumDTypes] = {};
  PyObject*& name = names[static_cast<int>(dtype)];
  if (name == nullptr) name = py::str(DTypeName(dtype)).release().ptr();
  return name;
}

// A device's part of the key: its address as a Python int, made once per
// device (devices live as long as the process). Called with the GIL held.
py::handle DeviceKeyObject(const Device* device) {
  static auto* keys = new std::unordered_map<const Device*, PyObject*>();
  PyObject*& key = (*keys)[device];
  if (key == nullptr) key = py::int_(reinterpret_cast<uintptr_t>(device)).release().ptr();
  return key;
}

// Note [Tensor key cache]: a tensor's part of the key, ("T", dtype, dims,
// device), is the same tuple for every tensor of that dtype, shape and
// device. Building it took two tuples and an int per dimension per
// argument per call; instead the tuples are kept in a small direct-mapped
// cache, checked against the metadata they stand for. A cached tuple is
// also the one the trace cache stored, so the dict lookup's comparison
// stops at identity. Called with the GIL held; entries live as long as the
// process (at most kTensorKeySlots tuples).
constexpr int kTensorKeySlots = 64;
constexpr int kTensorKeyMaxRank = 8;

struct TensorKeySlot {
  PyObject* key = nullptr;  // owned; null while empty
  DType dtype{};
  int rank = -1;
  const Device* device = nullptr;
  int64_t dims[kTensorKeyMaxRank] = {};
};

// ("T", dtype name, dims, device): the key of one tensor argument. The
// device too: a trace places its nodes, and its arguments, there.
py::object MakeTensorKey(const TensorHandle* h) {
  static const py::handle kTensor = py::str("T").release();  // leaked on purpose, as below
  py::tuple dims(h->shape().rank());
  for (int i = 0; i < h->shape().rank(); ++i) dims[i] = py::int_(h->shape().dim(i));
  return py::make_tuple(kTensor, DTypeNameObject(h->dtype()), dims, DeviceKeyObject(h->device()));
}

py::object TensorKey(const TensorHandle* h) {
  const Shape& shape = h->shape();
  const int rank = shape.rank();
  if (rank > kTensorKeyMaxRank) return MakeTensorKey(h);
  static TensorKeySlot slots[kTensorKeySlots];
  uint64_t hash = static_cast<uint64_t>(h->dtype()) * 0x9E3779B97F4A7C15ull ^ reinterpret_cast<uintptr_t>(h->device());
  for (int i = 0; i < rank; ++i) hash = (hash ^ static_cast<uint64_t>(shape.dim(i))) * 0x100000001B3ull;
  hash ^= static_cast<uint64_t>(rank) << 7;
  TensorKeySlot& slot = slots[(hash ^ (hash >> 29)) % kTensorKeySlots];
  bool same = slot.key != nullptr && slot.rank == rank && slot.dtype == h->dtype() && slot.device == h->device();
  for (int i = 0; same && i < rank; ++i) same = slot.dims[i] == shape.dim(i);
  if (same) return py::reinterpret_borrow<py::object>(slot.key);
  py::object key = MakeTensorKey(h);
  PyObject* previous = slot.key;
  slot.key = py::object(key).release().ptr();
  slot.dtype = h->dtype();
  slot.rank = rank;
  slot.device = h->device();
  for (int i = 0; i < rank; ++i) slot.dims[i] = shape.dim(i);
  Py_XDECREF(previous);  // last: its deallocation could run Python code
  return key;
}

py::object SignatureKey(py::handle value, py::list& leaves, py::handle other, int depth = 0) {
  if (depth > kMaxNesting) {
    throw py::value_error("ember.function: an argument is nested more than " + std::to_string(kMaxNesting) +
                          " lists or tuples deep");
  }
  // Leaked on purpose: a static py::str would be released by exit(), after
  // the interpreter is gone (a crash at exit under Python 3.12).
  static const py::handle kList = py::str("L").release(),
                          kTuple = py::str("U").release(), kListName = py::str("list").release(),
                          kTupleName = py::str("tuple").release();
  if (IsTensor(value.ptr())) {
    leaves.append(value);
    return TensorKey(HandleOf(value.ptr()));
  }
  const bool is_list = PyList_CheckExact(value.ptr());
  if (is_list || PyTuple_CheckExact(value.ptr())) {
    py::sequence seq = py::reinterpret_borrow<py::sequence>(value);
    py::tuple parts(py::len(seq));
    for (size_t i = 0; i < parts.size(); ++i) parts[i] = SignatureKey(seq[i], leaves, other, depth + 1);
    return py::make_tuple(is_list ? kList : kTuple, is_list ? kListName : kTupleName, parts);
  }
  // Python scalars and None, exactly as `other` keys them: ("P", type
  // name, value). Flags such as `training=True` are in many calls.
  PyObject* v = value.ptr();
  if (v == Py_None || PyBool_Check(v) || PyLong_CheckExact(v) || PyFloat_CheckExact(v) || PyUnicode_CheckExact(v)) {
    static const py::handle kPython = py::str("P").release();
    static PyObject* type_names[5] = {};
    const int kind = v == Py_None ? 0 : PyBool_Check(v) ? 1 : PyLong_CheckExact(v) ? 2 : PyFloat_CheckExact(v) ? 3 : 4;
    if (type_names[kind] == nullptr) type_names[kind] = py::str(Py_TYPE(v)->tp_name).release().ptr();
    return py::make_tuple(kPython, py::handle(type_names[kind]), value);
  }
  return py::reinterpret_borrow<py::object>(other)(value, leaves);
}

// The trace-cache key of a call's arguments (a list or a tuple), appending
// their tensor leaves to `leaves`.
py::tuple ArgumentsKey(py::handle values, py::list& leaves, py::handle other) {
  if (!PyList_Check(values.ptr()) && !PyTuple_Check(values.ptr())) {
    throw py::type_error("_signature_key: values must be a list or a tuple");
  }
  const auto items = py::reinterpret_borrow<py::sequence>(values);
  const size_t n = items.size();
  py::tuple key(n);
  for (size_t i = 0; i < n; ++i) key[i] = SignatureKey(items[i], leaves, other);
  return key;
}

// Note [Traced calls in C]: the common call of an @ember.function (plain
// positional arguments, a trace already made, one output, no tape) goes
// from Function.__call__ straight here: the key, the trace-cache lookup
// and the graph call without a Python frame in between. `concretes` is the
// function's trace cache; a ConcreteFunction that allows the short call
// carries `_fast_entry` = (graph function, variables, name). Anything else
// (no trace yet, an eager-only function, several outputs) returns
// NotImplemented, and Python takes its general path.
py::object CallTraced(py::handle concretes, py::handle values, py::handle other) {
  static PyObject* const kFastEntry = PyUnicode_InternFromString("_fast_entry");  // leaked on purpose
  py::list leaves;
  py::tuple key = ArgumentsKey(values, leaves, other);
  PyObject* concrete = PyDict_GetItemWithError(concretes.ptr(), key.ptr());  // borrowed
  if (concrete == nullptr) {
    if (PyErr_Occurred()) throw py::error_already_set();
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  }
  PyObject* entry = PyObject_GetAttr(concrete, kFastEntry);
  if (entry == nullptr) {  // not a ConcreteFunction (an eager-only marker)
    PyErr_Clear();
    return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  }
  py::object owned_entry = py::reinterpret_steal<py::object>(entry);
  if (entry == Py_None) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  py::tuple parts = py::reinterpret_borrow<py::tuple>(entry);
  if (parts.size() != 4) throw py::type_error("_call_traced: a malformed _fast_entry");
  // The address, not a cast of parts[0]: pybind11 looks a cast's type up in
  // its locked registry, on every call. parts[0] keeps the object alive.
  auto* fn = static_cast<PyGraphFunction*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(parts.ptr(), 3)));
  if (fn == nullptr) throw py::error_already_set();
  try {
    return fn->CallFlatOne(leaves, parts[1].cast<py::list>());
  } catch (const py::type_error& e) {
    throw py::type_error(py::str(parts[2]).cast<std::string>() + ": " + e.what());
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    throw py::type_error(py::str(parts[2]).cast<std::string>() + ": " + py::str(e.value()).cast<std::string>());
  }
}

}  // namespace

PyObject* CallTracedRaw(PyObject* concretes, PyObject* values, PyObject* other_key) {
  try {
    return CallTraced(concretes, values, other_key).release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (const py::builtin_exception& e) {
    e.set_error();
  } catch (...) {
    SetPythonErrorFromCurrentException("ember.function");
  }
  return nullptr;
}

void RegisterFunctionBindings(py::module_& m) {
  // `values`: a list or a tuple (a call's *args, passed as they are).
  m.def("_signature_key", [](py::handle values, py::handle other) {
    py::list leaves;
    py::tuple key = ArgumentsKey(values, leaves, other);
    return py::make_tuple(key, leaves);
  });
  m.def("_call_traced", &CallTraced);
  m.def("_set_package_dir", [](const std::string& dir) { g_package_dir = dir; });
  m.def("_is_tracing", [] { return CurrentTracer() != nullptr; });
  // ember.config.experimental.enable_cuda_graphs (Note [Graph replay]).
  m.def("_set_graph_replay", &SetGraphReplayEnabled);
  m.def("_graph_replay", &GraphReplayEnabled);
  m.def("_graph_replay_count", &GraphReplayCount);
  // ember.init_scope: the block runs eagerly; the tracer comes back after.
  m.def("_suspend_tracing", [] { g_suspended_tracers.push_back(SwapCurrentTracer(nullptr)); });
  m.def("_resume_tracing", [] {
    if (g_suspended_tracers.empty()) throw py::value_error("_resume_tracing without _suspend_tracing");
    SwapCurrentTracer(g_suspended_tracers.back());
    g_suspended_tracers.pop_back();
  });
  m.def("_is_symbolic", [](py::handle t) { return HandleArg(t, "tensor")->is_symbolic(); });
  // ember.config.optimizer: the passes OptimizeGraph runs (by grappler's names).
  m.def("_optimizer_options", [] {
    const GraphOptimizerOptions& o = GraphOptimizerOptions::Global();
    py::dict d;
    d["arithmetic_optimization"] = o.arithmetic_optimization.load();
    d["constant_folding"] = o.constant_folding.load();
    d["common_subexpression_elimination"] = o.common_subexpression.load();
    d["remapping"] = o.remapping.load();
    return d;
  });
  m.def("_set_optimizer_option", [](const std::string& name, bool on) {
    GraphOptimizerOptions& o = GraphOptimizerOptions::Global();
    if (name == "arithmetic_optimization") o.arithmetic_optimization = on;
    else if (name == "constant_folding") o.constant_folding = on;
    else if (name == "common_subexpression_elimination") o.common_subexpression = on;
    else if (name == "remapping") o.remapping = on;
    else throw py::value_error("unknown optimizer option '" + name + "'");
  });

  py::class_<PyTracer>(m, "_Tracer")
      .def(py::init<>())
      .def("enter", &PyTracer::Enter)
      .def("exit", &PyTracer::Exit)
      .def("join", &PyTracer::Join)
      .def("leave", &PyTracer::Leave)
      .def("parameter", &PyTracer::Parameter, py::arg("dtype"), py::arg("shape"), py::arg("device"))
      .def("variable", &PyTracer::Variable)
      .def("finish", &PyGraphFunction::FromTracer, py::arg("outputs"), py::arg("optimize") = true);

  py::class_<PyGraphFunction>(m, "_GraphFunction")
      .def_static("from_text", &PyGraphFunction::FromText)
      .def("args", &PyGraphFunction::Args)
      .def("outputs", &PyGraphFunction::Outputs)
      .def("call", &PyGraphFunction::Call)
      .def("call_flat", &PyGraphFunction::CallFlat)
      .def("call_flat_one", &PyGraphFunction::CallFlatOne)
      .def_property_readonly("function_id", &PyGraphFunction::id)
      // Note [Traced calls in C]: CallTraced reads it from _fast_entry.
      .def_property_readonly("_address", [](PyGraphFunction& f) { return reinterpret_cast<uintptr_t>(&f); })
      .def("pretty", [](const PyGraphFunction& f) { return f.graph().Pretty(); })
      .def("to_text", [](const PyGraphFunction& f) { return f.graph().ToText(); })
      .def("num_nodes", [](const PyGraphFunction& f) { return f.graph().num_nodes(); })
      .def("partitions", [](const PyGraphFunction& f) {
        std::vector<std::pair<std::string, std::vector<std::string>>> out;
        for (const DevicePartition& p : PartitionByDevice(f.graph())) {
          std::vector<std::string> ops;
          for (int id : p.nodes) ops.push_back(f.graph().node(id).op->name);
          out.emplace_back(p.device, ops);
        }
        return out;
      })
      .def("op_names", [](const PyGraphFunction& f) {
        std::vector<std::string> names;
        for (const Node& n : f.graph().nodes()) {
          if (!n.is_arg()) names.push_back(n.op->name);
        }
        return names;
      });
}

}  // namespace ember::python
