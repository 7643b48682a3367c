// This file implements the Tensor type's arithmetic operator slots
// (x + y, x @ y, -x, ...), which call Execute without a Python frame.
#include "python/tensor_operators.h"

#include "ops/op_ids.gen.h"
#include "python/execute_binding.h"

namespace ember::python {
namespace {

// Note [Operator slots]
// `x + 1.0` used to reach C through two Python frames: the type's generic
// slot looked up `__add__` (a generated Python function), which called
// _C._execute. The slots here call ExecuteOp directly, as NumPy's ufuncs
// do. CPython passes the operands of `a + b` and of the reflected `b + a`
// to the same nb_add in their written order, so no reflected methods are
// needed. No buffer is donated (Note [Buffer donation]): a slot cannot
// tell a temporary from an operand that a C caller such as sum() holds by
// a borrowed reference, as both have one reference.
template <OpId kOp>
PyObject* Binary(PyObject* a, PyObject* b) {
  PyObject* args[2] = {a, b};
  return ExecuteOp(GetOpDef(kOp), args, nullptr, DonationProof::kNone);
}

template <OpId kOp>
PyObject* Unary(PyObject* a) {
  return ExecuteOp(GetOpDef(kOp), &a, nullptr, DonationProof::kNone);
}

PyObject* Power(PyObject* a, PyObject* b, PyObject* modulo) {
  if (modulo != Py_None) {
    PyErr_SetString(PyExc_TypeError, "pow: a three-argument pow() is not supported for tensors");
    return nullptr;
  }
  return Binary<OpId::kPow>(a, b);
}

}  // namespace

// Each entry's method names are in kTensorOperatorMethods, which the
// generated _install_tensor_methods leaves alone.
const std::vector<PyType_Slot>& TensorOperatorSlots() {
  static const std::vector<PyType_Slot> slots = {
      {Py_nb_add, reinterpret_cast<void*>(&Binary<OpId::kAdd>)},
      {Py_nb_subtract, reinterpret_cast<void*>(&Binary<OpId::kSubtract>)},
      {Py_nb_multiply, reinterpret_cast<void*>(&Binary<OpId::kMultiply>)},
      {Py_nb_true_divide, reinterpret_cast<void*>(&Binary<OpId::kDivide>)},
      {Py_nb_floor_divide, reinterpret_cast<void*>(&Binary<OpId::kFloordiv>)},
      {Py_nb_remainder, reinterpret_cast<void*>(&Binary<OpId::kFloormod>)},
      {Py_nb_matrix_multiply, reinterpret_cast<void*>(&Binary<OpId::kMatmul>)},
      {Py_nb_power, reinterpret_cast<void*>(&Power)},
      {Py_nb_negative, reinterpret_cast<void*>(&Unary<OpId::kNegative>)},
      {Py_nb_absolute, reinterpret_cast<void*>(&Unary<OpId::kAbs>)},
  };
  return slots;
}

const char* const kTensorOperatorMethods[] = {
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
    "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__matmul__", "__rmatmul__", "__pow__", "__rpow__",
    "__neg__", "__abs__", nullptr};

}  // namespace ember::python
