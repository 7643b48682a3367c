// This file implements ConvertAttr.
#include "python/attr_convert.h"

#include "python/numpy_api.h"
#include "python/status_to_python.h"
#include "python/tensor_object.h"

namespace ember::python {
namespace {

// An int of the right type but out of range is a ValueError; anything else
// of the wrong type is a TypeError.
bool Fail(const OpDef& op, const AttrDef& def, PyObject* obj, const char* expected) {
  const bool numeric_attr = def.type == AttrType::kInt || def.type == AttrType::kFloat;
  const bool right_type_wrong_value = numeric_attr && PyLong_Check(obj) && !PyBool_Check(obj);
  PyErr_Format(right_type_wrong_value ? PyExc_ValueError : PyExc_TypeError, "%s: attribute '%s' expects %s, got %R (type %s)", op.name, def.name,
               expected, obj, Py_TYPE(obj)->tp_name);
  return false;
}

bool AsInt(PyObject* obj, int64_t* out) {
  if (PyBool_Check(obj)) return false;
  if (!PyLong_Check(obj) && !PyIndex_Check(obj)) return false;
  PyObject* index = PyNumber_Index(obj);
  if (index == nullptr) {
    PyErr_Clear();
    return false;
  }
  long long v = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) {  // outside int64: reported as "expects an int" with the value
    PyErr_Clear();
    return false;
  }
  *out = v;
  return true;
}

// Accepts an int, a sequence of ints, a 0-/1-D integer NumPy array or
// ember tensor (whose value is read, waiting if needed).
bool AsIntList(PyObject* obj, std::vector<int64_t>* out) {
  int64_t single;
  if (AsInt(obj, &single)) {
    out->assign(1, single);
    return true;
  }
  PyObject* source = obj;
  PyObject* owned = nullptr;
  if (IsTensor(obj)) {
    owned = PyObject_CallMethod(obj, "_numpy", nullptr);
    if (!owned) return false;
    source = owned;
  }
  PyObject* seq = PySequence_Fast(source, "");
  Py_XDECREF(owned);
  if (!seq) {
    PyErr_Clear();
    return false;
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  out->resize(n);
  bool ok = true;
  for (Py_ssize_t i = 0; i < n && ok; ++i) ok = AsInt(PySequence_Fast_GET_ITEM(seq, i), &(*out)[i]);
  Py_DECREF(seq);
  return ok;
}

}  // namespace

bool ConvertAttrImpl(const OpDef& op, const AttrDef& def, PyObject* obj, AttrValue* out);

bool ConvertAttr(const OpDef& op, const AttrDef& def, PyObject* obj, AttrValue* out) {
  // Conversions allocate (vectors, strings): no C++ exception may escape.
  return NoThrow<bool>(op.name, false, [&] { return ConvertAttrImpl(op, def, obj, out); });
}

bool ConvertAttrImpl(const OpDef& op, const AttrDef& def, PyObject* obj, AttrValue* out) {
  if (obj == Py_None) {
    if (def.optional) {
      *out = AttrValue();
      return true;
    }
    PyErr_Format(PyExc_TypeError, "%s: attribute '%s' must not be None", op.name, def.name);
    return false;
  }
  switch (def.type) {
    case AttrType::kBool:
      if (!PyBool_Check(obj) && !PyArray_IsScalar(obj, Bool)) return Fail(op, def, obj, "a bool");
      *out = AttrValue(PyObject_IsTrue(obj) == 1);
      return true;
    case AttrType::kInt: {
      int64_t v;
      if (!AsInt(obj, &v)) return Fail(op, def, obj, "an int");
      *out = AttrValue(v);
      return true;
    }
    case AttrType::kFloat: {
      if (PyBool_Check(obj) || (!PyFloat_Check(obj) && !PyLong_Check(obj) && !PyArray_IsScalar(obj, Floating) &&
                                !PyArray_IsScalar(obj, Integer))) {
        return Fail(op, def, obj, "a float");
      }
      const double v = PyFloat_AsDouble(obj);
      if (v == -1.0 && PyErr_Occurred()) {  // an int too large for a double
        PyErr_Clear();
        return Fail(op, def, obj, "a float within the range of float64");
      }
      *out = AttrValue(v);
      return true;
    }
    case AttrType::kString: {
      if (!PyUnicode_Check(obj)) return Fail(op, def, obj, "a str");
      Py_ssize_t size = 0;
      const char* utf8 = PyUnicode_AsUTF8AndSize(obj, &size);
      if (utf8 == nullptr) {  // lone surrogates have no UTF-8 form
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: attribute '%s' is not valid text (it cannot be encoded as UTF-8)",
                     op.name, def.name);
        return false;
      }
      *out = AttrValue(std::string(utf8, static_cast<size_t>(size)));
      return true;
    }
    case AttrType::kIntList: {
      std::vector<int64_t> v;
      if (!AsIntList(obj, &v)) return Fail(op, def, obj, "an int or a list of ints");
      *out = AttrValue(std::move(v));
      return true;
    }
    case AttrType::kDType: {
      DType d;
      if (!ParseDTypeObject(obj, &d)) {
        PyErr_Clear();
        return Fail(op, def, obj, "a dtype");
      }
      *out = AttrValue(d);
      return true;
    }
  }
  return Fail(op, def, obj, "a supported attribute value");
}

}  // namespace ember::python
