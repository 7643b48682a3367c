// This file implements the Python side of execute: convert values, bind
// types, call Execute, run inline in sync mode, wrap the outputs.
#include "python/execute_binding.h"

#include <array>

#include "python/attr_convert.h"
#include "ops/op_ids.gen.h"
#include "python/convert.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"
#include "runtime/context.h"
#include "runtime/execute.h"

namespace ember::python {
namespace {

constexpr int kMaxFastInputs = 8;

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

// Note [Buffer donation] (Python side): a tensor passed from a generated
// binding has exactly two references when it is a temporary — the
// binding's parameter and the call's argument slot. Any named variable
// adds at least one. CPython versions from 3.14 may pass borrowed stack
// references, so the proof is only used on versions where it was checked.
bool IsTemporary(PyObject* obj) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030E0000
  return Py_REFCNT(obj) == 2;
#else
  (void)obj;
  return false;
#endif
}

PyObject* WrapOutputs(ExecuteResult& result) {
  if (result.outputs.size() == 1) return WrapHandle(std::move(result.outputs[0]));
  PyObject* tuple = PyTuple_New(static_cast<Py_ssize_t>(result.outputs.size()));
  if (!tuple) return nullptr;
  for (size_t i = 0; i < result.outputs.size(); ++i) {
    PyObject* t = WrapHandle(std::move(result.outputs[i]));
    if (!t) {
      Py_DECREF(tuple);
      return nullptr;
    }
    PyTuple_SET_ITEM(tuple, static_cast<Py_ssize_t>(i), t);
  }
  return tuple;
}

}  // namespace

PyObject* ExecuteOp(const OpDef& op, PyObject* const* py_inputs, PyObject* const* py_attrs,
                    bool allow_donation) {
  const int n = static_cast<int>(op.inputs.size());
  AttrList attrs(op.attrs.size());
  for (size_t i = 0; i < op.attrs.size(); ++i) {
    if (!ConvertAttr(op, op.attrs[i], py_attrs[i], &attrs[i])) return nullptr;
  }

  // Fast path: every input already a tensor -> Execute binds the types.
  std::array<RefPtr<TensorHandle>, kMaxFastInputs> small_handles;
  std::vector<RefPtr<TensorHandle>> large_handles;
  RefPtr<TensorHandle>* handles = small_handles.data();
  if (n > kMaxFastInputs) {
    large_handles.resize(n);
    handles = large_handles.data();
  }
  bool all_tensors = true;
  uint32_t donated = 0;
  for (int i = 0; i < n; ++i) {
    if (IsTensor(py_inputs[i])) {
      handles[i] = RefPtr<TensorHandle>::Share(HandleOf(py_inputs[i]));
      if (allow_donation && i < 32 && IsTemporary(py_inputs[i])) donated |= 1u << i;
    } else {
      all_tensors = false;
    }
  }

  std::array<DType, kMaxTypeVars> bindings{};
  const DType* bindings_ptr = nullptr;
  if (!all_tensors) {
    // Slow path: bind types with weak Python values, then materialise
    // each non-tensor input directly in its bound dtype.
    std::vector<InputTypeInfo> infos(n);
    for (int i = 0; i < n; ++i) {
      if (!ClassifyValue(py_inputs[i], &infos[i])) return nullptr;
    }
    Status s = BindTypeVars(op, infos.data(), attrs, bindings.data());
    if (!s.ok()) return SetPythonError(s.WithPrefix(std::string(op.name) + ": "));
    bindings_ptr = bindings.data();
    for (int i = 0; i < n; ++i) {
      if (handles[i]) continue;
      DType want = ArgDType(op.inputs[i], bindings.data());
      // Strong NumPy inputs keep their dtype here; Execute casts them.
      const DType* target = infos[i].weak ? &want : nullptr;
      if (!ConvertValue(py_inputs[i], target, &handles[i])) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_Format(type ? type : PyExc_TypeError, "%s: argument '%s': %S", op.name, op.inputs[i].name,
                     value ? value : Py_None);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return nullptr;
      }
    }
  }

  ExecuteResult result;
  TensorHandle** raw = reinterpret_cast<TensorHandle**>(handles);
  Status s = Execute(op, raw, n, attrs, bindings_ptr, donated, &result);
  if (!s.ok()) return SetPythonError(s);

  if (result.inline_task) {
    if (ShouldReleaseGil(result, raw, n)) {
      Py_BEGIN_ALLOW_THREADS
      result.inline_task->Run();
      Py_END_ALLOW_THREADS
    } else {
      result.inline_task->Run();
    }
    result.inline_task.reset();
    // Sync mode raises kernel errors at the call itself.
    for (const auto& out : result.outputs) {
      if (out->IsError()) return SetPythonError(out->error());
    }
  }
  return WrapOutputs(result);
}

PyObject* ExecuteFast(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
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
  return ExecuteOp(op, args + 1, args + 1 + op.inputs.size(), /*allow_donation=*/true);
}

}  // namespace ember::python
