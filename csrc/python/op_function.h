// This file declares ember's op functions: the C objects the generated
// bindings expose as ember.add, ember.matmul, ... (Note [Op functions]).
#pragma once

#include <Python.h>

namespace ember::python {

// Registers the type and _C._op_function(op_id, params, call_order,
// defaults, module, doc, text_signature, make_outputs), which makes one.
bool InitOpFunctionType(PyObject* module);

}  // namespace ember::python
