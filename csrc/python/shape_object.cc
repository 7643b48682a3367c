// This file implements _C._ShapeTuple, the C base of ember.TensorShape, and
// the conversion of a Shape to it (Note [TensorShape as a tuple]).
#include "python/shape_object.h"

namespace ember::python {
namespace {

PyTypeObject* g_base_type = nullptr;
PyTypeObject* g_shape_type = nullptr;  // ember.TensorShape once registered

// A new shape of `type` holding the items of the tuple `items`.
PyObject* ShapeFromTuple(PyTypeObject* type, PyObject* items) {
  const Py_ssize_t n = PyTuple_GET_SIZE(items);
  PyObject* out = type->tp_alloc(type, n);
  if (!out) return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) PyTuple_SET_ITEM(out, i, Py_NewRef(PyTuple_GET_ITEM(items, i)));
  return out;
}

// shape[i] is the dim (an int or None); shape[a:b] is a shape, as in TensorFlow.
PyObject* ShapeSubscript(PyObject* self, PyObject* key) {
  PyObject* result = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  if (!result || !PySlice_Check(key) || Py_TYPE(result) == Py_TYPE(self)) return result;
  PyObject* shape = ShapeFromTuple(Py_TYPE(self), result);
  Py_DECREF(result);
  return shape;
}

// Equal to tuples, lists and shapes with the same dims (TensorFlow's
// TensorShape == [2, 3] is true); ordering compares like tuples.
PyObject* ShapeRichCompare(PyObject* self, PyObject* other, int op) {
  if ((op == Py_EQ || op == Py_NE) && PyList_Check(other)) {
    PyObject* items = PyList_AsTuple(other);
    if (!items) return nullptr;
    PyObject* result = PyTuple_Type.tp_richcompare(self, items, op);
    Py_DECREF(items);
    return result;
  }
  return PyTuple_Type.tp_richcompare(self, other, op);
}

}  // namespace

bool InitShapeType(PyObject* module) {
  static PyType_Slot slots[] = {
      {Py_mp_subscript, reinterpret_cast<void*>(ShapeSubscript)},
      {Py_tp_richcompare, reinterpret_cast<void*>(ShapeRichCompare)},
      // A type that defines tp_richcompare does not inherit tp_hash.
      {Py_tp_hash, reinterpret_cast<void*>(PyTuple_Type.tp_hash)},
      {Py_tp_doc, const_cast<char*>("The C base of ember.TensorShape (python/ember/_tensor_shape.py).")},
      {0, nullptr},
  };
  static PyType_Spec spec = {"ember._C._ShapeTuple", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyTuple_Type));
  if (!bases) return false;
  PyObject* type = PyType_FromSpecWithBases(&spec, bases);
  Py_DECREF(bases);
  if (!type) return false;
  g_base_type = reinterpret_cast<PyTypeObject*>(type);
  return PyModule_AddObject(module, "_ShapeTuple", type) == 0;
}

bool IsShapeClass(PyObject* cls) {
  return g_base_type && PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), g_base_type);
}

void SetShapeType(PyTypeObject* type) {
  Py_XINCREF(type);
  g_shape_type = type;
}

PyObject* ShapeToPython(const Shape& shape) {
  PyObject* out = g_shape_type ? g_shape_type->tp_alloc(g_shape_type, shape.rank()) : PyTuple_New(shape.rank());
  if (!out) return nullptr;
  for (int i = 0; i < shape.rank(); ++i) {
    PyObject* d = shape.dim(i) < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(shape.dim(i));
    if (!d) {
      Py_DECREF(out);
      return nullptr;
    }
    PyTuple_SET_ITEM(out, i, d);
  }
  return out;
}

}  // namespace ember::python
