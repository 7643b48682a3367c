// This file declares the conversion of Python values into typed attributes.
#pragma once

#include <Python.h>

#include "core/attr_value.h"
#include "ops/op_def.h"

namespace ember::python {

// Converts `obj` for attribute `def` of `op`; false with a TypeError or
// ValueError naming the op and attribute.
bool ConvertAttr(const OpDef& op, const AttrDef& def, PyObject* obj, AttrValue* out);

}  // namespace ember::python
