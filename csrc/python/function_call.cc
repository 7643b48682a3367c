// This file implements ember.Function's call in C (Note [Function calls
// in C]).
#include "python/function_call.h"

#include <structmember.h>

#include "python/function_binding.h"

namespace ember::python {
namespace {

// Note [Function calls in C]
// Calling an @ember.function is on the hot path of every training step.
// Function.__call__ was Python: its frame, its *args tuple and **kwargs
// dict, and a dozen attribute and global lookups cost about 0.3 us of a
// 2.2 us call of a one-op function. Function now derives from this C type,
// whose tp_call makes the common call itself: no keywords, the number of
// arguments a traced call takes (`_fast_arity`), no trace in progress, no
// gradient tape active, functions not forced eager. It then goes straight
// to the trace cache and the graph (Note [Traced calls in C]). Anything
// else, and a call the C path cannot take (no trace yet for these
// arguments), goes to the Python method `_call_general(tried_c, args,
// kwargs)`, which holds the full logic.
//
// The flags are read where Python keeps them, so nothing has to mirror
// them: the thread-local trace state's `trace`, the `active_tape_count` of
// ember._context and the `_functions_eager` of ember.config, through the
// objects _set_function_call_state registers once at import. The
// instance's own attributes are read from its __dict__, which this type
// provides at a fixed offset.
struct PyFunctionBase {
  PyObject_HEAD
  PyObject* dict;
  PyObject* weakrefs;
};

struct CallState {
  PyObject* trace_state = nullptr;   // ember._context.trace_state (a threading.local)
  PyObject* context_dict = nullptr;  // ember._context.__dict__
  PyObject* config_dict = nullptr;   // ember.config.__dict__
  PyObject* other_key = nullptr;     // ember.function._other_key
};
CallState g_state;

PyObject* Interned(const char* text) { return PyUnicode_InternFromString(text); }  // kept for the process

// Whether the common call's conditions hold (Note [Function calls in C]);
// -1 with a Python error.
int MayTakeCPath(PyObject* dict, PyObject* args) {
  static PyObject* const kFastArity = Interned("_fast_arity");
  static PyObject* const kTrace = Interned("trace");
  static PyObject* const kTapeCount = Interned("active_tape_count");
  static PyObject* const kFunctionsEager = Interned("_functions_eager");
  if (g_state.trace_state == nullptr || dict == nullptr) return 0;
  PyObject* arity = PyDict_GetItemWithError(dict, kFastArity);
  if (arity == nullptr) return PyErr_Occurred() ? -1 : 0;
  const Py_ssize_t want = PyLong_AsSsize_t(arity);
  if (want == -1 && PyErr_Occurred()) return -1;
  if (want != PyTuple_GET_SIZE(args)) return 0;
  PyObject* tapes = PyDict_GetItemWithError(g_state.context_dict, kTapeCount);
  if (tapes == nullptr || !PyLong_CheckExact(tapes) || PyLong_AsLong(tapes) != 0) return PyErr_Occurred() ? -1 : 0;
  PyObject* eager = PyDict_GetItemWithError(g_state.config_dict, kFunctionsEager);
  if (eager != Py_False) return PyErr_Occurred() ? -1 : 0;
  PyObject* trace = PyObject_GetAttr(g_state.trace_state, kTrace);
  if (trace == nullptr) return -1;
  Py_DECREF(trace);
  return trace == Py_None ? 1 : 0;
}

PyObject* Call(PyObject* self, PyObject* args, PyObject* kwargs) {
  static PyObject* const kConcrete = Interned("_concrete");
  static PyObject* const kCallGeneral = Interned("_call_general");
  PyObject* dict = reinterpret_cast<PyFunctionBase*>(self)->dict;
  bool tried_c = false;
  if (kwargs == nullptr || PyDict_GET_SIZE(kwargs) == 0) {
    const int c_path = MayTakeCPath(dict, args);
    if (c_path < 0) return nullptr;
    if (c_path == 1) {
      PyObject* concretes = PyDict_GetItemWithError(dict, kConcrete);
      if (concretes == nullptr && PyErr_Occurred()) return nullptr;
      if (concretes != nullptr) {
        PyObject* result = CallTracedRaw(concretes, args, g_state.other_key);
        if (result != Py_NotImplemented) return result;  // the value, or null with the error
        Py_DECREF(result);
        tried_c = true;
      }
    }
  }
  PyObject* general = PyObject_GetAttr(self, kCallGeneral);
  if (general == nullptr) return nullptr;
  PyObject* no_kwargs = nullptr;
  if (kwargs == nullptr && (no_kwargs = PyDict_New()) == nullptr) return Py_DECREF(general), nullptr;
  PyObject* result = PyObject_CallFunctionObjArgs(general, tried_c ? Py_True : Py_False, args,
                                                  kwargs != nullptr ? kwargs : no_kwargs, nullptr);
  Py_XDECREF(no_kwargs);
  Py_DECREF(general);
  return result;
}

int Traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(reinterpret_cast<PyFunctionBase*>(self)->dict);
  Py_VISIT(Py_TYPE(self));
  return 0;
}

int Clear(PyObject* self) {
  Py_CLEAR(reinterpret_cast<PyFunctionBase*>(self)->dict);
  return 0;
}

void Dealloc(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  if (reinterpret_cast<PyFunctionBase*>(self)->weakrefs != nullptr) PyObject_ClearWeakRefs(self);
  Clear(self);
  type->tp_free(self);
  Py_DECREF(type);
}

PyObject* SetCallState(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 4 || !PyDict_Check(args[1]) || !PyDict_Check(args[2]) || !PyCallable_Check(args[3])) {
    PyErr_SetString(PyExc_TypeError,
                    "_set_function_call_state(trace_state, context_dict, config_dict, other_key)");
    return nullptr;
  }
  PyObject** slots[] = {&g_state.trace_state, &g_state.context_dict, &g_state.config_dict, &g_state.other_key};
  for (int i = 0; i < 4; ++i) Py_XSETREF(*slots[i], Py_NewRef(args[i]));
  Py_RETURN_NONE;
}

PyMemberDef kMembers[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(PyFunctionBase, dict), READONLY, nullptr},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PyFunctionBase, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

PyGetSetDef kGetSets[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyMethodDef kModuleMethods[] = {
    {"_set_function_call_state", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(SetCallState)),
     METH_FASTCALL, "Registers what FunctionBase's call reads (Note [Function calls in C])."},
    {nullptr, nullptr, 0, nullptr},
};

}  // namespace

bool InitFunctionBaseType(PyObject* module) {
  static PyType_Slot slots[] = {
      {Py_tp_dealloc, reinterpret_cast<void*>(Dealloc)},
      {Py_tp_traverse, reinterpret_cast<void*>(Traverse)},
      {Py_tp_clear, reinterpret_cast<void*>(Clear)},
      {Py_tp_call, reinterpret_cast<void*>(Call)},
      {Py_tp_new, reinterpret_cast<void*>(PyType_GenericNew)},
      {Py_tp_members, kMembers},
      {Py_tp_getset, kGetSets},
      {Py_tp_doc, const_cast<char*>("The C part of ember.Function: its common call (Note [Function calls in C]).")},
      {0, nullptr},
  };
  static PyType_Spec spec = {"ember.FunctionBase", sizeof(PyFunctionBase), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) return false;
  if (PyModule_AddObject(module, "FunctionBase", type) != 0) return false;
  return PyModule_AddFunctions(module, kModuleMethods) == 0;
}

}  // namespace ember::python
