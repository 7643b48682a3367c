// This file implements ember's op functions (Note [Op functions]).
#include "python/op_function.h"

#include <structmember.h>

#include <array>
#include <string>

#include "ops/op_def.h"
#include "ops/op_ids.gen.h"
#include "python/execute_binding.h"
#include "python/status_to_python.h"

namespace ember::python {
namespace {

// Note [Op functions]
// Each op's Python function (ember.add, ember.matmul, ...) used to be a
// generated `def add(x, y, name=None): return _execute(_OP_ADD, x, y)`.
// Its frame, its two global lookups and the call into _execute cost about
// 100 ns of a 400 ns `add`. The generated module now makes each one a C
// object instead, whose vectorcall binds the arguments as the def did
// (positionally or by keyword, with the defaults, `name` accepted and
// ignored) and calls ExecuteOp directly.
//
// It looks like a function wherever Python looks: it binds as a method
// when set on a class (tp_descr_get, used for Variable's operators), and
// it has __name__, __qualname__, __module__, __doc__ and
// __text_signature__, so inspect.signature and help() show the same
// signature as before. It pickles by name, like a function.
//
// Buffer donation (Note [Buffer donation]) needs a proof that an argument
// is a temporary. The def had one: a temporary had exactly two references
// inside its frame. A C function has only its caller's: see Note [Donation
// from the caller's stack] in execute_binding.cc. A function bound as a
// method never donates: the bound method puts its `self` into the
// caller's argument array, where the proof does not hold for it.
constexpr int kMaxParams = 32;

struct PyOpFunction {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  const OpDef* op;
  int num_params;                  // not counting `name`
  int num_required;                // the leading params without a default
  std::array<int, kMaxParams> slot;  // param i -> its place among the inputs, then the attrs
  std::array<PyObject*, kMaxParams> defaults;  // owned; null where required
  PyObject* names;         // tuple of interned str: the params, then "name"
  PyObject* make_outputs;  // null, or a callable applied to the result (namedtuple._make)
  PyObject* name;
  PyObject* qualname;
  PyObject* module;
  PyObject* doc;
  PyObject* text_signature;
  PyObject* dict;
  PyObject* method_twin;   // the non-donating copy methods bind to; made on first use
  bool donates;
};

PyTypeObject* g_op_function_type = nullptr;

PyObject* MissingArguments(const PyOpFunction* self, PyObject* const* bound) {
  std::string missing;
  int count = 0;
  for (int i = 0; i < self->num_params; ++i) {
    if (bound[i] != nullptr) continue;
    if (count++ > 0) missing += ", ";
    missing += "'" + std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(self->names, i))) + "'";
  }
  PyErr_Format(PyExc_TypeError, "%U() missing %d required argument%s: %s", self->name, count, count == 1 ? "" : "s",
               missing.c_str());
  return nullptr;
}

// The parameter a keyword names, or -1. Keywords the interpreter passes
// are interned, so the pointer comparison nearly always decides.
int ParamIndex(const PyOpFunction* self, PyObject* keyword) {
  const Py_ssize_t n = PyTuple_GET_SIZE(self->names);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (PyTuple_GET_ITEM(self->names, i) == keyword) return static_cast<int>(i);
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    const int eq = PyUnicode_Compare(PyTuple_GET_ITEM(self->names, i), keyword);
    if (eq == 0) return static_cast<int>(i);
    if (eq == -1 && PyErr_Occurred()) return -2;
  }
  return -1;
}

PyObject* Call(PyObject* callable, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  auto* self = reinterpret_cast<PyOpFunction*>(callable);
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  const int n = self->num_params;
  if (nargs > n + 1) {
    PyErr_Format(PyExc_TypeError, "%U() takes from %d to %d positional arguments but %zd were given", self->name,
                 self->num_required, n + 1, nargs);
    return nullptr;
  }
  std::array<PyObject*, kMaxParams + 1> bound{};  // borrowed; [n] is `name`
  for (Py_ssize_t i = 0; i < nargs; ++i) bound[i] = args[i];
  const Py_ssize_t nkw = kwnames == nullptr ? 0 : PyTuple_GET_SIZE(kwnames);
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* keyword = PyTuple_GET_ITEM(kwnames, k);
    const int i = ParamIndex(self, keyword);
    if (i == -2) return nullptr;
    if (i < 0) {
      PyErr_Format(PyExc_TypeError, "%U() got an unexpected keyword argument '%U'", self->name, keyword);
      return nullptr;
    }
    if (bound[i] != nullptr) {
      PyErr_Format(PyExc_TypeError, "%U() got multiple values for argument '%U'", self->name, keyword);
      return nullptr;
    }
    bound[i] = args[nargs + k];
  }
  std::array<PyObject*, kMaxParams> ordered;  // ExecuteOp's order: inputs, then attrs
  bool complete = true;
  for (int i = 0; i < n; ++i) {
    if (bound[i] == nullptr) bound[i] = self->defaults[i];
    complete &= bound[i] != nullptr;
    ordered[self->slot[i]] = bound[i];
  }
  if (!complete) return MissingArguments(self, bound.data());
  const DonationProof proof =
      self->donates && ArgumentsOnCallerStack(args, nargs + nkw, nargsf) ? DonationProof::kCallerStack
                                                                          : DonationProof::kNone;
  const OpDef& op = *self->op;
  PyObject* result = NoThrow<PyObject*>(op.name, nullptr, [&] {
    return ExecuteOp(op, ordered.data(), ordered.data() + op.inputs.size(), proof);
  });
  if (result == nullptr || self->make_outputs == nullptr) return result;
  PyObject* made = PyObject_CallOneArg(self->make_outputs, result);
  Py_DECREF(result);
  return made;
}

int Traverse(PyObject* obj, visitproc visit, void* arg) {
  auto* self = reinterpret_cast<PyOpFunction*>(obj);
  for (int i = 0; i < self->num_params; ++i) Py_VISIT(self->defaults[i]);
  Py_VISIT(self->make_outputs);
  Py_VISIT(self->dict);
  Py_VISIT(self->method_twin);
  Py_VISIT(Py_TYPE(obj));
  return 0;
}

int Clear(PyObject* obj) {
  auto* self = reinterpret_cast<PyOpFunction*>(obj);
  for (int i = 0; i < self->num_params; ++i) Py_CLEAR(self->defaults[i]);
  Py_CLEAR(self->make_outputs);
  Py_CLEAR(self->dict);
  Py_CLEAR(self->method_twin);
  return 0;
}

void Dealloc(PyObject* obj) {
  auto* self = reinterpret_cast<PyOpFunction*>(obj);
  PyTypeObject* type = Py_TYPE(obj);
  PyObject_GC_UnTrack(obj);
  Clear(obj);
  Py_XDECREF(self->names);
  Py_XDECREF(self->name);
  Py_XDECREF(self->qualname);
  Py_XDECREF(self->module);
  Py_XDECREF(self->doc);
  Py_XDECREF(self->text_signature);
  type->tp_free(obj);
  Py_DECREF(type);
}

PyOpFunction* Allocate() {
  auto* self = PyObject_GC_New(PyOpFunction, g_op_function_type);
  if (self == nullptr) return nullptr;
  self->vectorcall = Call;
  self->op = nullptr;
  self->num_params = self->num_required = 0;
  self->slot.fill(0);
  self->defaults.fill(nullptr);
  self->names = self->make_outputs = self->name = self->qualname = self->module = self->doc =
      self->text_signature = self->dict = self->method_twin = nullptr;
  self->donates = true;
  return self;
}

// A copy that shares everything but donates nothing (Note [Op functions]).
PyObject* MethodTwin(PyOpFunction* self) {
  if (self->method_twin != nullptr) return self->method_twin;
  PyOpFunction* twin = Allocate();
  if (twin == nullptr) return nullptr;
  twin->op = self->op;
  twin->num_params = self->num_params;
  twin->num_required = self->num_required;
  twin->slot = self->slot;
  for (int i = 0; i < self->num_params; ++i) twin->defaults[i] = Py_XNewRef(self->defaults[i]);
  twin->names = Py_NewRef(self->names);
  twin->make_outputs = Py_XNewRef(self->make_outputs);
  twin->name = Py_NewRef(self->name);
  twin->qualname = Py_NewRef(self->qualname);
  twin->module = Py_NewRef(self->module);
  twin->doc = Py_NewRef(self->doc);
  twin->text_signature = Py_NewRef(self->text_signature);
  twin->donates = false;
  PyObject_GC_Track(twin);
  self->method_twin = reinterpret_cast<PyObject*>(twin);
  return self->method_twin;
}

PyObject* DescrGet(PyObject* obj, PyObject* instance, PyObject*) {
  if (instance == nullptr || instance == Py_None) return Py_NewRef(obj);
  PyObject* twin = MethodTwin(reinterpret_cast<PyOpFunction*>(obj));
  return twin == nullptr ? nullptr : PyMethod_New(twin, instance);
}

PyObject* Repr(PyObject* obj) {
  auto* self = reinterpret_cast<PyOpFunction*>(obj);
  return PyUnicode_FromFormat("<ember op function %U>", self->qualname);
}

// Pickled by name, as a function is: the module attribute it is.
PyObject* Reduce(PyObject* obj, PyObject*) { return Py_NewRef(reinterpret_cast<PyOpFunction*>(obj)->qualname); }

PyMethodDef kMethods[] = {
    {"__reduce__", Reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr},
};

// Note [Op docstrings on first use]
// The generated ops.py passes None for each op's docstring; this getter
// reads it from ember/_generated/op_docs.py (a dict by op name) the first
// time it is asked for, and keeps it. The 197 docstrings were 131 KiB of
// every process that imports ember; help(), IPython's `?` and
// inspect.getdoc load them all at once.
PyObject* GetDoc(PyObject* self_obj, void*) {
  auto* self = reinterpret_cast<PyOpFunction*>(self_obj);
  if (self->doc == Py_None) {
    PyObject* module = PyImport_ImportModule("ember._generated.op_docs");
    if (module == nullptr) return nullptr;
    PyObject* docs = PyObject_GetAttrString(module, "DOCS");
    Py_DECREF(module);
    if (docs == nullptr) return nullptr;
    PyObject* doc = PyDict_GetItemWithError(docs, self->name);  // borrowed
    if (doc != nullptr) Py_SETREF(self->doc, Py_NewRef(doc));
    Py_DECREF(docs);
    if (doc == nullptr && PyErr_Occurred()) return nullptr;
  }
  return Py_NewRef(self->doc);
}

PyGetSetDef kGetSets[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {"__doc__", GetDoc, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMemberDef kMembers[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(PyOpFunction, vectorcall), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(PyOpFunction, dict), READONLY, nullptr},
    {"__name__", T_OBJECT, offsetof(PyOpFunction, name), READONLY, nullptr},
    {"__qualname__", T_OBJECT, offsetof(PyOpFunction, qualname), READONLY, nullptr},
    {"__module__", T_OBJECT, offsetof(PyOpFunction, module), READONLY, nullptr},
    {"__text_signature__", T_OBJECT, offsetof(PyOpFunction, text_signature), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

bool IsStr(PyObject* o) { return o != nullptr && PyUnicode_Check(o); }

// _C._op_function(op_id, params, call_order, defaults, module, doc,
// text_signature, make_outputs): `params` the Python parameters in
// signature order (without `name`), `call_order` the same names in the
// op's order (inputs, then attrs), `defaults` a dict from parameter name
// to default, `doc` the docstring or None (Note [Op docstrings on first
// use]), `make_outputs` None or a callable for the result.
PyObject* MakeOpFunction(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 8 || !PyLong_Check(args[0]) || !PyTuple_Check(args[1]) || !PyTuple_Check(args[2]) ||
      !PyDict_Check(args[3]) || !IsStr(args[4]) || !(IsStr(args[5]) || args[5] == Py_None) || !IsStr(args[6])) {
    PyErr_SetString(PyExc_TypeError,
                    "_op_function(op_id, params, call_order, defaults, module, doc, text_signature, make_outputs)");
    return nullptr;
  }
  const long id = PyLong_AsLong(args[0]);
  if (id < 0 || id >= kNumOps) {
    PyErr_Format(PyExc_ValueError, "_op_function: invalid op id %ld", id);
    return nullptr;
  }
  const OpDef& op = GetOpDef(static_cast<OpId>(id));
  PyObject* params = args[1];
  PyObject* order = args[2];
  const Py_ssize_t n = PyTuple_GET_SIZE(params);
  if (n != PyTuple_GET_SIZE(order) || n != static_cast<Py_ssize_t>(op.inputs.size() + op.attrs.size()) ||
      n >= kMaxParams) {
    PyErr_Format(PyExc_ValueError, "_op_function: %s has %zd inputs and attrs; got %zd parameters", op.name,
                 op.inputs.size() + op.attrs.size(), n);
    return nullptr;
  }
  PyOpFunction* self = Allocate();
  if (self == nullptr) return nullptr;
  PyObject* owner = reinterpret_cast<PyObject*>(self);
  self->op = &op;
  self->num_params = static_cast<int>(n);
  self->names = PyTuple_New(n + 1);
  if (self->names == nullptr) return Py_DECREF(owner), nullptr;
  bool seen_default = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* param = PyTuple_GET_ITEM(params, i);
    if (!IsStr(param)) {
      PyErr_SetString(PyExc_TypeError, "_op_function: parameter names must be str");
      return Py_DECREF(owner), nullptr;
    }
    Py_INCREF(param);
    PyUnicode_InternInPlace(&param);
    PyTuple_SET_ITEM(self->names, i, param);
    Py_ssize_t place = -1;
    for (Py_ssize_t j = 0; j < n; ++j) {
      const int eq = PyUnicode_Compare(PyTuple_GET_ITEM(order, j), param);
      if (eq == -1 && PyErr_Occurred()) return Py_DECREF(owner), nullptr;
      if (eq == 0) place = j;
    }
    if (place < 0) {
      PyErr_Format(PyExc_ValueError, "_op_function: %s: parameter %R is not in the call order", op.name, param);
      return Py_DECREF(owner), nullptr;
    }
    self->slot[i] = static_cast<int>(place);
    PyObject* value = PyDict_GetItemWithError(args[3], param);
    if (value == nullptr && PyErr_Occurred()) return Py_DECREF(owner), nullptr;
    if (value == nullptr && seen_default) {
      PyErr_Format(PyExc_ValueError, "_op_function: %s: %R without a default follows one with", op.name, param);
      return Py_DECREF(owner), nullptr;
    }
    seen_default |= value != nullptr;
    if (value == nullptr) ++self->num_required;
    self->defaults[i] = Py_XNewRef(value);
  }
  PyTuple_SET_ITEM(self->names, n, PyUnicode_InternFromString("name"));
  self->name = PyUnicode_FromString(op.name);
  self->qualname = Py_NewRef(self->name);
  self->module = Py_NewRef(args[4]);
  self->doc = Py_NewRef(args[5]);
  self->text_signature = Py_NewRef(args[6]);
  self->make_outputs = args[7] == Py_None ? nullptr : Py_NewRef(args[7]);
  if (PyTuple_GET_ITEM(self->names, n) == nullptr || self->name == nullptr) return Py_DECREF(owner), nullptr;
  PyObject_GC_Track(owner);
  return owner;
}

PyMethodDef kModuleMethods[] = {
    {"_op_function", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(MakeOpFunction)), METH_FASTCALL,
     "_op_function(op_id, params, call_order, defaults, module, doc, text_signature, make_outputs): an op's "
     "Python function (Note [Op functions])."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

bool InitOpFunctionType(PyObject* module) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(Dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(Traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(Clear)},
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_descr_get, reinterpret_cast<void*>(DescrGet)},
      {Py_tp_repr, reinterpret_cast<void*>(Repr)},
      {Py_tp_methods, kMethods},
      {Py_tp_members, kMembers},
      {Py_tp_getset, kGetSets},
      {0, nullptr},
  };
  static PyType_Spec spec = {"ember.OpFunction", sizeof(PyOpFunction), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) return false;
  g_op_function_type = reinterpret_cast<PyTypeObject*>(type);
  if (PyModule_AddObject(module, "OpFunction", type) != 0) return false;
  return PyModule_AddFunctions(module, kModuleMethods) == 0;
}

}  // namespace ember::python
