// This file implements the Python side of execute: convert values, bind
// types, call Execute, run inline in sync mode, wrap the outputs.
#include "python/execute_binding.h"

#include <array>
#include <chrono>
#include <thread>

#include "python/attr_convert.h"
#include "ops/op_ids.gen.h"
#include "graph/tracer.h"
#include "python/convert.h"
#include "python/function_binding.h"
#include "python/profiler_binding.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"
#include "runtime/context.h"
#include "runtime/execute.h"
#include "runtime/kernel_launch.h"
#include "runtime/profiler.h"

namespace ember::python {
namespace {

constexpr int kMaxFastInputs = 8;

PyTypeObject* g_variable_type = nullptr;

// Releasing the GIL costs about as much as a tiny kernel; only do it when
// the kernel may run long or has to wait.
constexpr int64_t kReleaseGilElements = 1 << 15;

bool ShouldReleaseGil(const ExecuteResult& result, TensorHandle* const* inputs, int n) {
  for (int i = 0; i < n; ++i) {
    if (!inputs[i]->IsAvailable() || inputs[i]->shape().NumElements() >= kReleaseGilElements) return true;
  }
  for (const auto& out : result.outputs) {
    if (out->shape().NumElements() >= kReleaseGilElements) return true;
  }
  return false;
}

bool RunsGraphs(const OpDef& op) {
  return op.id == OpId::kCallFunction || op.id == OpId::kWhileLoop || op.id == OpId::kCond;
}

// Note [Executor back-pressure]: a thread that issues tiny ops faster than
// the executor runs them would grow the queue, and memory, without bound.
// Past kMaxQueuedLaunches it waits, GIL released, until the executor has
// worked the queue down to half; a burst below the limit never waits.
constexpr size_t kMaxQueuedLaunches = 8192;

void WaitForBacklog(Executor* executor) {
  if (executor->QueueLength() <= kMaxQueuedLaunches) return;
  Py_BEGIN_ALLOW_THREADS
  while (executor->QueueLength() > kMaxQueuedLaunches / 2) std::this_thread::sleep_for(std::chrono::microseconds(50));
  Py_END_ALLOW_THREADS
}

// Note [Buffer donation] (Python side): a tensor passed from a generated
// binding has exactly two references when it is a temporary — the
// binding's parameter and the call's argument slot. Any named variable
// adds at least one. CPython versions from 3.14 may pass borrowed stack
// references, so the proof is only used on versions where it was checked.
// An op function's arguments (Note [Op functions]) are counted on the
// caller's stack instead: there a temporary has one reference.
bool IsTemporary(PyObject* obj, DonationProof proof) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000
  switch (proof) {
    case DonationProof::kWrapperFrame: return Py_REFCNT(obj) == 2;
    case DonationProof::kCallerStack: return Py_REFCNT(obj) == 1;
    case DonationProof::kNone: return false;
  }
  return false;
#else
  (void)obj;
  (void)proof;
  return false;
#endif
}

// Re-raises the pending Python error as "<op>: argument '<arg>': <message>",
// keeping its type. Returns nullptr.
PyObject* PrefixPythonError(const OpDef& op, const char* arg) {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_Format(type ? type : PyExc_TypeError, "%s: argument '%s': %S", op.name, arg, value ? value : Py_None);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return nullptr;
}

// One Tensor for a single output; a list for a single list output; else a
// tuple whose trailing list output, if any, is a list.
PyObject* WrapOutputs(const OpDef& op, ExecuteResult& result) {
  auto& outs = result.outputs;
  if (!op.has_list_output() && outs.size() == 1) return WrapHandle(std::move(outs[0]));
  const size_t fixed = op.has_list_output() ? op.outputs.size() - 1 : outs.size();
  PyObject* list = nullptr;
  if (op.has_list_output()) {
    list = PyList_New(static_cast<Py_ssize_t>(outs.size() - fixed));
    if (!list) return nullptr;
    for (size_t i = fixed; i < outs.size(); ++i) {
      PyObject* t = WrapHandle(std::move(outs[i]));
      if (!t) return Py_DECREF(list), nullptr;
      PyList_SET_ITEM(list, static_cast<Py_ssize_t>(i - fixed), t);
    }
    if (fixed == 0) return list;
  }
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(fixed + (list ? 1 : 0)));
  if (!tuple) return Py_XDECREF(list), nullptr;
  for (size_t i = 0; i < fixed; ++i) {
    PyObject* t = WrapHandle(std::move(outs[i]));
    if (!t) {
      Py_XDECREF(list);
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), t);
  }
  if (list) PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(fixed), list);
  return tuple;
}

// The op's inputs as one flat array (Note [List arguments]): list arguments
// are expanded from any Python sequence.
struct FlatInputs {
  std::vector<PyObject*> values;  // borrowed from the arguments or `owned`
  std::vector<int> arg_of;        // argument index of each flat input
  std::vector<int> list_sizes;    // per argument; empty without list inputs
  std::vector<PyObject*> owned;   // PySequence_Fast results to release

  ~FlatInputs() {
    for (PyObject* o : owned) Py_DECREF(o);
  }
  bool Build(const OpDef& op, PyObject* const* args) {
    const int n_args = static_cast<int>(op.inputs.size());
    const bool lists = op.has_list_input();
    if (lists) list_sizes.assign(n_args, 1);
    for (int a = 0; a < n_args; ++a) {
      if (!op.inputs[a].is_list) {
        values.push_back(args[a]);
        arg_of.push_back(a);
        continue;
      }
      if (IsTensor(args[a]) || !PySequence_Check(args[a])) {
        PyErr_Format(PyExc_TypeError, "%s: argument '%s' expects a list of tensors, got %s", op.name,
                     op.inputs[a].name, Py_TYPE(args[a])->tp_name);
        return false;
      }
      PyObject* seq = PySequence_Fast(args[a], "");
      if (!seq) return false;
      owned.push_back(seq);
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
      list_sizes[a] = static_cast<int>(n);
      for (Py_ssize_t i = 0; i < n; ++i) {
        values.push_back(PySequence_Fast_GET_ITEM(seq, i));
        arg_of.push_back(a);
      }
    }
    return true;
  }
};

// ExecuteOp without the profiler's dispatch span.
PyObject* ExecuteOpUnrecorded(const OpDef& op, PyObject* const* py_args, PyObject* const* py_attrs,
                              DonationProof proof) {
  AttrList attrs(op.attrs.size());
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    if (py_attrs != nullptr) {
      if (!ConvertAttr(op, op.attrs[i], py_attrs[i], &attrs[i])) return nullptr;
    } else if (op.attrs[i].has_default) {
      attrs[i] = op.attrs[i].default_value;  // operator slots: every attr at its default
    } else {
      PyErr_Format(PyExc_TypeError, "%s: attribute '%s' is required", op.name, op.attrs[i].name);
      return nullptr;
    }
  }

  // Ops without list inputs (nearly all) use the arguments in place.
  FlatInputs flat;
  PyObject* const* py_inputs = py_args;
  int n = static_cast<int>(op.inputs.size());
  const int* list_sizes = nullptr;
  if (op.has_list_input()) {
    if (!flat.Build(op, py_args)) return nullptr;
    py_inputs = flat.values.data();
    n = static_cast<int>(flat.values.size());
    list_sizes = flat.list_sizes.data();
    proof = DonationProof::kNone;
  }
  auto arg_name = [&](int i) { return op.inputs[flat.arg_of.empty() ? i : flat.arg_of[i]].name; };

  // Variables are read as their current value, and pin the op to their
  // device. Their values are never donated: the variable still holds them.
  std::vector<PyObject*> unwrapped;
  std::vector<PyObject*> variable_values;  // owned references
  struct ReleaseValues {
    std::vector<PyObject*>& v;
    ~ReleaseValues() { for (PyObject* o : v) Py_DECREF(o); }
  } release_values{variable_values};
  Device* resource_device = nullptr;
  for (int i = 0; g_variable_type != nullptr && i < n; ++i) {
    if (IsTensor(py_inputs[i]) || !PyObject_TypeCheck(py_inputs[i], g_variable_type)) continue;
    PyObject* value = PyObject_GetAttrString(py_inputs[i], "_value");
    if (value == nullptr) return PrefixPythonError(op, arg_name(i));
    variable_values.push_back(value);
    if (!IsTensor(value)) {
      PyErr_Format(PyExc_TypeError, "%s: argument '%s': variable has no tensor value", op.name, arg_name(i));
      return nullptr;
    }
    if (unwrapped.empty()) unwrapped.assign(py_inputs, py_inputs + n);
    unwrapped[i] = value;
    resource_device = HandleOf(value)->device();
    proof = DonationProof::kNone;
  }
  if (!unwrapped.empty()) py_inputs = unwrapped.data();

  // Fast path: every input already a tensor -> Execute binds the types.
  // A tensor's handle is borrowed: the caller's arguments keep the Python
  // tensor, and with it the handle (set once, at creation), alive for the
  // call; Execute takes its own references for the launch. Values
  // converted below are owned here.
  std::array<TensorHandle*, kMaxFastInputs> small_raw{};
  std::vector<TensorHandle*> large_raw;
  TensorHandle** raw = small_raw.data();
  if (n > kMaxFastInputs) {
    large_raw.resize(n);
    raw = large_raw.data();
  }
  bool all_tensors = true;
  uint32_t donated = 0;
  for (int i = 0; i < n; ++i) {
    if (IsTensor(py_inputs[i])) {
      raw[i] = HandleOf(py_inputs[i]);
      if (i < 32 && IsTemporary(py_inputs[i], proof)) donated |= 1u << i;
    } else {
      raw[i] = nullptr;
      all_tensors = false;
    }
  }
  std::vector<RefPtr<TensorHandle>> converted;  // owns the slow path's new handles

  std::array<DType, kMaxTypeVars> bindings{};
  const DType* bindings_ptr = nullptr;
  if (!all_tensors) {
    // Slow path: bind types with weak Python values, then materialise
    // each non-tensor input directly in its bound dtype.
    std::vector<InputTypeInfo> infos(n);
    for (int i = 0; i < n; ++i) {
      if (!ClassifyValue(py_inputs[i], &infos[i])) return PrefixPythonError(op, arg_name(i));
    }
    std::vector<int> arg_starts;
    if (list_sizes) {
      arg_starts.assign(1, 0);
      for (size_t a = 0; a < op.inputs.size(); ++a) arg_starts.push_back(arg_starts.back() + list_sizes[a]);
    }
    Status s = BindTypeVars(op, infos.data(), arg_starts.empty() ? nullptr : arg_starts.data(), attrs,
                            bindings.data());
    if (!s.ok()) return SetPythonError(s.WithPrefix(std::string(op.name) + ": "));
    bindings_ptr = bindings.data();
    converted.reserve(n);
    for (int i = 0; i < n; ++i) {
      if (raw[i] != nullptr) continue;
      const ArgDef& arg = op.inputs[flat.arg_of.empty() ? i : flat.arg_of[i]];
      DType want = arg.type_var == kAnyDTypeVar ? DType::kBool : ArgDType(arg, bindings.data());
      // Strong NumPy inputs keep their dtype here; Execute casts them.
      // `list(any)` values keep their natural dtype.
      const DType* target = infos[i].weak && arg.type_var != kAnyDTypeVar ? &want : nullptr;
      converted.emplace_back();
      if (!ConvertOpInput(py_inputs[i], target, &converted.back())) return PrefixPythonError(op, arg_name(i));
      raw[i] = converted.back().get();
    }
  }

  if (Tracer* tracer = CurrentTracer()) tracer->set_location(TracedLocation());
  ExecuteResult result;
  result.run_small_now = true;  // with the GIL held: only launches below kReleaseGilElements qualify
  Status s = Execute(op, raw, n, attrs, bindings_ptr, donated, &result, list_sizes, resource_device);
  if (!s.ok()) return SetPythonError(s);
  if (result.ran_now) {
    if (!SettleSyncOutputs(result)) return nullptr;
  } else if (result.inline_task) {
    if (!FinishSyncCall(op, result, ShouldReleaseGil(result, raw, n))) return nullptr;
  } else if (!result.outputs.empty()) {
    WaitForBacklog(result.outputs[0]->device()->executor());
  }
  return WrapOutputs(op, result);
}

}  // namespace

PyObject* ExecuteOp(const OpDef& op, PyObject* const* py_args, PyObject* const* py_attrs, DonationProof proof) {
  if (!profiler::Enabled()) return ExecuteOpUnrecorded(op, py_args, py_attrs, proof);
  // Note [Profiler]: the dispatch span covers the whole call, from the
  // Python arguments to the returned tensors (and, in sync mode, the kernel).
  NameProfiledPythonThread();
  profiler::DispatchSpan span(op.name);
  PyObject* result = ExecuteOpUnrecorded(op, py_args, py_attrs, proof);
  if (result == nullptr) span.set_failed();
  return result;
}

// Note [Donation from the caller's stack]
// An op function (Note [Op functions]) is a C function, so it has no frame
// of its own in which to count references. Its caller's frame serves: when
// the interpreter's CALL instruction calls it, the arguments are the top
// of the calling frame's value stack, each slot owning one reference, and
// a temporary (`ember.exp(a + 1.0)`) has no other. A named variable, an
// attribute or an element read for the call has one more. So an argument
// with one reference is a temporary if, and only if, the array is that
// stack. Two facts make the test below decide that:
//  - frames of Python functions live in the thread's data stack, and the
//    calling frame, the newest, in its current chunk, below its top. Other
//    callers pass arrays of their own (C arrays, tuples' items): a call
//    through *args, functools.reduce or list.sort's key function hands in
//    references it borrowed from a container, which are not proofs.
//  - callers that put an argument of their own in front of the caller's
//    array (a bound method's self, functools.partial's argument) write it
//    into the slot PY_VECTORCALL_ARGUMENTS_OFFSET lends them and do not
//    pass that flag on; CALL always passes it. So the flag is required.
// Generator and coroutine frames live in their objects, not in the data
// stack: calls from them never donate. From 3.14 the interpreter may push
// borrowed references (Note [Buffer donation]), so only 3.11 to 3.13 are
// trusted, as for the wrapper frame's count.
bool ArgumentsOnCallerStack(PyObject* const* args, Py_ssize_t n, size_t nargsf) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000
  if ((nargsf & PY_VECTORCALL_ARGUMENTS_OFFSET) == 0 || n == 0) return false;
  PyThreadState* thread = PyThreadState_Get();
  const _PyStackChunk* chunk = thread->datastack_chunk;
  if (chunk == nullptr) return false;
  PyObject* const* first = chunk->data;
  return args >= first && args + n <= thread->datastack_top;
#else
  (void)args;
  (void)n;
  (void)nargsf;
  return false;
#endif
}

// WaitBeforeRun's wake-up for a task this thread runs itself: nothing to wake.
const std::function<void()> kNoWake = [] {};

bool FinishSyncCall(const OpDef& op, ExecuteResult& result, bool release_gil) {
  // Inputs still being produced (a copy, another device's kernel) or a
  // graph op: run on the device's executor while this thread waits.
  const bool waits = result.inline_task->WaitBeforeRun(kNoWake);
  const auto* launch = dynamic_cast<const KernelLaunch*>(result.inline_task.get());
  const bool unbounded = op.waits_for_peers || (RunsGraphs(op) && (launch == nullptr || launch->MayRunUnbounded()));
  if ((waits || unbounded) && !result.outputs.empty()) {
    // A graph op that may run for long (a loop, Note [Bounded graphs]) runs
    // on the device's executor while this thread waits, watching for
    // Ctrl-C; errors still surface here. A bounded graph runs here, as
    // any op does.
    result.outputs[0]->device()->executor()->Enqueue(std::move(result.inline_task));
    for (const auto& out : result.outputs) {
      if (!AwaitHandle(out.get())) return false;
    }
    return true;
  }
  if (release_gil) {
    Py_BEGIN_ALLOW_THREADS
    result.inline_task->Run();
    Py_END_ALLOW_THREADS
  } else {
    result.inline_task->Run();
  }
  result.inline_task.reset();
  return SettleSyncOutputs(result);
}

bool SettleSyncOutputs(const ExecuteResult& result) {
  // Sync mode raises kernel errors at the call itself, and on a device
  // with a stream waits for the kernel to finish.
  for (const auto& out : result.outputs) {
    if (!out->IsAvailable() && !AwaitHandle(out.get())) return false;
    if (out->IsError()) return SetPythonError(out->error()), false;
  }
  return true;
}

void SetVariableType(PyTypeObject* type) {
  Py_XINCREF(type);
  g_variable_type = type;
}

namespace {

PyObject* ExecuteFastImpl(PyObject* const* args, Py_ssize_t nargs) {
  if (nargs < 1 || !PyLong_Check(args[0])) {
    PyErr_SetString(PyExc_TypeError, "_execute(op_id, *inputs, *attrs)");
    return nullptr;
  }
  long id = PyLong_AsLong(args[0]);
  if (id < 0 || id >= kNumOps) {
    PyErr_Format(PyExc_ValueError, "_execute: invalid op id %ld", id);
    return nullptr;
  }
  const OpDef& op = GetOpDef(static_cast<OpId>(id));
  const Py_ssize_t expected = 1 + static_cast<Py_ssize_t>(op.inputs.size() + op.attrs.size());
  if (nargs != expected) {
    PyErr_Format(PyExc_TypeError, "%s: expected %zd inputs and attributes, got %zd", op.name, expected - 1,
                 nargs - 1);
    return nullptr;
  }
  return ExecuteOp(op, args + 1, args + 1 + op.inputs.size(), DonationProof::kWrapperFrame);
}

}  // namespace

PyObject* ExecuteFast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  return NoThrow<PyObject*>("_execute", nullptr, [&] { return ExecuteFastImpl(args, nargs); });
}

}  // namespace ember::python
