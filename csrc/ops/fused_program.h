// This file declares FusedProgram, the element-wise program one
// fused_elementwise node runs, and the table of ops that may be fused.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/shape.h"
#include "core/status.h"

namespace ember {

// Note [Element-wise fusion]
// The graph optimizer (graph/passes/fuse_elementwise.cc) replaces a group of
// element-wise nodes that share a dtype and a shape by one fused_elementwise
// node whose `program` attr lists the group's ops in order. Its CPU kernel
// (kernels/cpu/fused_elementwise.cc) evaluates the program block by block,
// a few thousand elements at a time: every intermediate value lives in a
// block-sized buffer that stays in L1, so a chain of k ops reads its inputs
// and writes its outputs once instead of k times, and a chain of tiny ops
// pays one node's scheduling instead of k. Each instruction runs the same
// Eigen functor as the op's own kernel, so results match the unfused graph.
// Operands are whole runs (the output's shape), single elements, or
// channel vectors: the output's last dim alone ([C] or [1, ..., 1, C]),
// repeated along every other dim, as batch normalization's scale and
// shift and a bias are in NHWC; anything else stays unfused. Only the
// optimizer and tests write programs; the shape function checks them
// like any attr.
enum class FusedOp : uint8_t {
  // Unary.
  kNegative, kAbs, kRelu, kExp, kLog, kSqrt, kTanh, kSigmoid, kSign, kSquare, kReciprocal, kRsqrt,
  kFloor, kCeil, kRound, kExpm1, kLog1p, kSin, kCos, kErf, kSoftplus,
  kRelu6, kLeakyRelu, kElu, kSelu, kGelu, kSilu,
  // Binary.
  kAdd, kSubtract, kMultiply, kDivide, kMaximum, kMinimum, kSquaredDifference, kPow, kReluGrad,
};

// What an op carries besides its operands: leaky_relu's alpha and silu's
// beta (float), gelu's approximate (bool).
enum class FusedParam : uint8_t { kNone, kFloat, kBool };

struct FusedOpInfo {
  const char* name;  // the op's own name (op_defs/)
  FusedOp op;
  int arity;
  FusedParam param;
  double cycles;  // rough per-element cost, for ParallelFor
};

// True if `arg` is a channel vector of `out` (Note [Element-wise fusion]):
// fully known, every dim 1 but its last, which is out's last dim (known and
// above 1), and of rank at most out's (at least 2).
bool IsChannelVector(const Shape& arg, const Shape& out);

// The fusible op named `name` (an op_defs/ name; truediv reads as divide),
// or null.
const FusedOpInfo* FindFusedOp(std::string_view name);
const FusedOpInfo& FusedOpInfoOf(FusedOp op);

// An operand: argument i is Arg(i) (negative), instruction k's value is k.
inline constexpr int FusedArg(int i) { return -1 - i; }
inline constexpr bool IsFusedArg(int operand) { return operand < 0; }
inline constexpr int FusedArgIndex(int operand) { return -1 - operand; }

struct FusedInstruction {
  FusedOp op;
  int a = 0;
  int b = 0;  // unused by unary ops
  double param = 0;
};

// The text form, one instruction per ";": "multiply(a0, a1); add(v0, a1);
// tanh(v1)" where aI is argument I and vK the value instruction K defined
// (only earlier ones); leaky_relu and silu carry their float attribute and
// gelu its approximate flag in brackets: "leaky_relu[0.2](v2)".
struct FusedProgram {
  int num_args = 0;  // 1 + the largest argument it reads
  std::vector<FusedInstruction> code;
  std::vector<int> outputs;  // instruction numbers

  double CyclesPerElement() const;
  std::string ToText() const;
  static Status Parse(const std::string& text, const std::vector<int64_t>& outputs, FusedProgram* out);
};

}  // namespace ember
