// This file declares the C base of ember.TensorShape: a tuple subclass
// whose indexing and comparisons run at tuple speed.
#pragma once

#include <Python.h>

#include "core/shape.h"

namespace ember::python {

// Adds _C._ShapeTuple, the base class python/ember/_tensor_shape.py derives
// TensorShape from. Returns false with a Python error set.
bool InitShapeType(PyObject* module);

// Whether `cls` is _ShapeTuple or a subclass of it.
bool IsShapeClass(PyObject* cls);

// Sets the class Tensor.shape returns (a subclass of _ShapeTuple); until
// then shapes are plain tuples.
void SetShapeType(PyTypeObject* type);

// New reference: `shape` as an ember.TensorShape (unknown dims are None).
PyObject* ShapeToPython(const Shape& shape);

}  // namespace ember::python
