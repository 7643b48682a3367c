// This file defines the GPU form of a fused element-wise program (Note
// [Element-wise fusion] in ops/fused_program.h) and its per-element
// interpreter, as code host and device compile alike (Note [Kernel bodies
// on the host] in window_body.h): kernel_bodies_test runs the interpreter
// on the host.
#pragma once

#include <cmath>
#include <cstdint>

#include "kernels/common/element_math.h"
#include "ops/fused_program.h"

namespace ember::cuda {

// Note [GPU fused programs]
// A fused_elementwise node on a GPU runs as one kernel: each thread takes
// elements in a grid-stride loop and runs the whole program on each, its
// values in a small register file, so intermediate values never reach
// memory and a chain of k ops costs one launch. The program is compiled
// once per kernel (FusedCode) into slot numbers, reusing a value's slot
// once its last reader ran (as the CPU kernel reuses its block buffers),
// and passed to the kernel by value. Every instruction applies the shared
// scalar functor of its op (element_math.h). A program beyond the limits
// below (long, or with many values alive at once, or many arguments) runs
// instruction by instruction instead, each a one-instruction program
// whose operands are the arguments or earlier values kept in scratch.
inline constexpr int kMaxFusedCode = 64;
inline constexpr int kMaxFusedSlots = 12;
inline constexpr int kMaxFusedArgs = 16;
inline constexpr int kMaxFusedOutputs = 8;

struct FusedCode {
  int num_code = 0;
  int num_outputs = 0;
  uint8_t op[kMaxFusedCode] = {};   // a FusedOp
  int8_t a[kMaxFusedCode] = {};     // operands: slot s is s >= 0, argument i is -1 - i
  int8_t b[kMaxFusedCode] = {};     // unused by unary ops
  int8_t dst[kMaxFusedCode] = {};   // the slot each instruction writes
  double param[kMaxFusedCode] = {};
  int8_t output_slot[kMaxFusedOutputs] = {};
};

// A call's memory: argument i is a run of the output's size when bit i
// of arg_run is set, a channel vector (`channels` elements, repeated
// along the output's last dim) when bit i of arg_channel is, else one
// element, broadcast.
template <typename T>
struct FusedOperands {
  const T* args[kMaxFusedArgs] = {};
  uint32_t arg_run = 0;
  uint32_t arg_channel = 0;
  int64_t channels = 1;
  T* outputs[kMaxFusedOutputs] = {};
};

// One instruction on one element.
template <typename T>
EMBER_HOST_DEVICE inline T ApplyFused(uint8_t op, T x, T y, double param) {
  switch (static_cast<FusedOp>(op)) {
    case FusedOp::kNegative: return math::Negative()(x);
    case FusedOp::kAbs: return math::Abs()(x);
    case FusedOp::kRelu: return math::Relu()(x);
    case FusedOp::kExp: return math::Exp()(x);
    case FusedOp::kLog: return math::Log()(x);
    case FusedOp::kSqrt: return math::Sqrt()(x);
    case FusedOp::kTanh: return math::Tanh()(x);
    case FusedOp::kSigmoid: return math::Sigmoid()(x);
    case FusedOp::kSign: return math::Sign()(x);
    case FusedOp::kSquare: return math::Square()(x);
    case FusedOp::kReciprocal: return math::Reciprocal()(x);
    case FusedOp::kRsqrt: return math::Rsqrt()(x);
    case FusedOp::kFloor: return math::Floor()(x);
    case FusedOp::kCeil: return math::Ceil()(x);
    case FusedOp::kRound: return math::Round()(x);
    case FusedOp::kExpm1: return math::Expm1()(x);
    case FusedOp::kLog1p: return math::Log1p()(x);
    case FusedOp::kSin: return math::Sin()(x);
    case FusedOp::kCos: return math::Cos()(x);
    case FusedOp::kErf: return std::erf(x);
    case FusedOp::kSoftplus: return math::Softplus()(x);
    case FusedOp::kRelu6: return math::Relu6()(x);
    case FusedOp::kLeakyRelu: return math::LeakyRelu{param}(x);
    case FusedOp::kElu: return math::Elu()(x);
    case FusedOp::kSelu: return math::Selu()(x);
    case FusedOp::kGelu: return math::Gelu{param != 0}(x);
    case FusedOp::kSilu: return math::Silu{param}(x);
    case FusedOp::kAdd: return math::Add()(x, y);
    case FusedOp::kSubtract: return math::Subtract()(x, y);
    case FusedOp::kMultiply: return math::Multiply()(x, y);
    case FusedOp::kDivide: return math::Divide()(x, y);
    case FusedOp::kMaximum: return math::Maximum()(x, y);
    case FusedOp::kMinimum: return math::Minimum()(x, y);
    case FusedOp::kSquaredDifference: return math::SquaredDifference()(x, y);
    case FusedOp::kPow: return math::Pow()(x, y);
    case FusedOp::kReluGrad: return math::ReluGrad()(x, y);
  }
  return x;  // unreachable: FusedCode holds only the ops above
}

// Runs the program on element i and writes its outputs there.
template <typename T>
EMBER_HOST_DEVICE inline void RunFusedElement(const FusedCode& code, const FusedOperands<T>& ops, int64_t i) {
  T slots[kMaxFusedSlots] = {};  // every read slot was written; cleared for the compiler
  auto operand = [&](int8_t ref) -> T {
    if (ref >= 0) return slots[ref];
    const int arg = -1 - ref;
    if (((ops.arg_run >> arg) & 1u) != 0) return ops.args[arg][i];
    if (((ops.arg_channel >> arg) & 1u) != 0) return ops.args[arg][i % ops.channels];
    return ops.args[arg][0];
  };
  for (int k = 0; k < code.num_code; ++k) {
    const T x = operand(code.a[k]);
    const T y = operand(code.b[k]);
    slots[code.dst[k]] = ApplyFused<T>(code.op[k], x, y, code.param[k]);
  }
  for (int o = 0; o < code.num_outputs; ++o) ops.outputs[o][i] = slots[code.output_slot[o]];
}

}  // namespace ember::cuda
