// This file implements the CPU kernel of fused_elementwise: a FusedProgram
// evaluated block by block (Note [Element-wise fusion]).
#include <algorithm>
#include <cstring>
#include <memory>

#include "kernels/cpu/activation_functors.h"
#include "kernels/cpu/elementwise_kernels.h"
#include "kernels/cpu/functors.h"
#include "kernels/cpu/special_functors.h"
#include "kernels/cpu/registration.h"
#include "ops/fused_program.h"

namespace ember::cpu {
namespace {

// One instruction over n elements. An operand is a run of n elements or,
// with its *_run false, one element repeated; with neither a run the
// result is one element too (n is then 1).
template <typename T>
using StepFn = void (*)(const FusedInstruction& in, const T* a, bool a_run, const T* b, bool b_run, T* out,
                        int64_t n);

template <typename T, typename F>
void UnaryStep(const FusedInstruction&, const T* a, bool, const T*, bool, T* out, int64_t n) {
  ApplyUnarySpan<T, T, F>(a, out, n);
}

template <typename T, typename F>
void BinaryStep(const FusedInstruction&, const T* a, bool a_run, const T* b, bool b_run, T* out, int64_t n) {
  if (!a_run && !b_run) a_run = b_run = true;  // both single elements: n is 1
  ApplySpanAs<T, T, F>(out, a, a_run, b, b_run, n);
}

// Activations are built from the instruction's attribute value: alpha or
// beta, or gelu's approximate flag (its bool constructor takes param != 0).
template <typename F>
F MakeActivation(double param) {
  if constexpr (std::is_constructible_v<F, double>) {
    return F(param);
  } else {
    return F();
  }
}

template <typename T, typename F>
void ActivationStep(const FusedInstruction& in, const T* a, bool, const T*, bool, T* out, int64_t n) {
  MakeActivation<F>(in.param)(a, out, n);
}

template <typename T>
StepFn<T> StepFor(FusedOp op) {
  switch (op) {
    case FusedOp::kNegative: return &UnaryStep<T, NegativeFn>;
    case FusedOp::kAbs: return &UnaryStep<T, AbsFn>;
    case FusedOp::kRelu: return &UnaryStep<T, ReluFn>;
    case FusedOp::kExp: return &UnaryStep<T, ExpFn>;
    case FusedOp::kLog: return &UnaryStep<T, LogFn>;
    case FusedOp::kSqrt: return &UnaryStep<T, SqrtFn>;
    case FusedOp::kTanh: return &UnaryStep<T, TanhFn>;
    case FusedOp::kSigmoid: return &UnaryStep<T, SigmoidFn>;
    case FusedOp::kSign: return &UnaryStep<T, SignFn>;
    case FusedOp::kSquare: return &UnaryStep<T, SquareFn>;
    case FusedOp::kReciprocal: return &UnaryStep<T, ReciprocalFn>;
    case FusedOp::kRsqrt: return &UnaryStep<T, RsqrtFn>;
    case FusedOp::kFloor: return &UnaryStep<T, FloorFn>;
    case FusedOp::kCeil: return &UnaryStep<T, CeilFn>;
    case FusedOp::kRound: return &UnaryStep<T, RoundFn>;
    case FusedOp::kExpm1: return &UnaryStep<T, Expm1Fn>;
    case FusedOp::kLog1p: return &UnaryStep<T, Log1pFn>;
    case FusedOp::kSin: return &UnaryStep<T, SinFn>;
    case FusedOp::kCos: return &UnaryStep<T, CosFn>;
    case FusedOp::kErf: return &UnaryStep<T, ErfFn>;
    case FusedOp::kSoftplus: return &UnaryStep<T, SoftplusFn>;
    case FusedOp::kRelu6: return &ActivationStep<T, Relu6Fn>;
    case FusedOp::kLeakyRelu: return &ActivationStep<T, LeakyReluFn>;
    case FusedOp::kElu: return &ActivationStep<T, EluFn>;
    case FusedOp::kSelu: return &ActivationStep<T, SeluFn>;
    case FusedOp::kGelu: return &ActivationStep<T, GeluFn>;
    case FusedOp::kSilu: return &ActivationStep<T, SiluFn>;
    case FusedOp::kAdd: return &BinaryStep<T, AddFn>;
    case FusedOp::kSubtract: return &BinaryStep<T, SubtractFn>;
    case FusedOp::kMultiply: return &BinaryStep<T, MultiplyFn>;
    case FusedOp::kDivide: return &BinaryStep<T, DivideFn>;
    case FusedOp::kMaximum: return &BinaryStep<T, MaximumFn>;
    case FusedOp::kMinimum: return &BinaryStep<T, MinimumFn>;
    case FusedOp::kSquaredDifference: return &BinaryStep<T, SquaredDifferenceFn>;
    case FusedOp::kPow: return &BinaryStep<T, PowFn>;
    case FusedOp::kReluGrad: return &BinaryStep<T, ReluGradFn>;
  }
  return nullptr;
}

// Frees a kept buffer past 64 KiB (Note [Fused kernel buffers]).
template <typename E>
void TrimVector(std::vector<E>& v) {
  if (v.capacity() * sizeof(E) > (size_t{64} << 10)) std::vector<E>().swap(v);
}

// Note [Fused kernel buffers]
// A call used to allocate about ten small buffers (the operand tables, the
// tiled channel vectors, each range's scratch): on a 512-element dense
// layer that was more than the arithmetic. Each thread now keeps one set
// and reuses it, grown to the largest call it has seen (a few blocks of
// 8 KiB; buffers past 64 KiB, from very wide channel vectors, are freed
// after the call). A kernel that finds its thread's set in use (a range run on the
// thread of a call that is still filling its own set) uses a fresh one.
template <typename Buffers>
class BufferLease {
 public:
  BufferLease() {
    Slot& slot = ThreadSlot();
    if (!slot.in_use) {
      slot.in_use = true;
      buffers_ = &slot.buffers;
    } else {
      fresh_ = std::make_unique<Buffers>();
      buffers_ = fresh_.get();
    }
  }
  ~BufferLease() {
    if (fresh_ != nullptr) return;
    buffers_->Trim();
    ThreadSlot().in_use = false;
  }
  BufferLease(const BufferLease&) = delete;
  BufferLease& operator=(const BufferLease&) = delete;
  Buffers& get() { return *buffers_; }

 private:
  struct Slot {
    Buffers buffers;
    bool in_use = false;
  };
  static Slot& ThreadSlot() {
    thread_local Slot slot;
    return slot;
  }
  Buffers* buffers_ = nullptr;
  std::unique_ptr<Buffers> fresh_;
};

template <typename T>
class FusedElementwiseKernel final : public OpKernel {
 public:
  // Intermediate values of one block; a few of them stay in L1.
  static constexpr int64_t kBlock = 8192 / sizeof(T);

  explicit FusedElementwiseKernel(const KernelInit& init) {
    // The shape function already accepted the program; a failure here is
    // kept and returned by Compute rather than trusted.
    parse_status_ = FusedProgram::Parse(init.attrs[0].as_string(), init.attrs[1].as_int_list(), &program_);
    if (parse_status_.ok()) Plan();
  }

  Status Compute(KernelContext& ctx) const override {
    if (!parse_status_.ok()) return parse_status_;
    const int num_args = ctx.num_inputs();
    if (num_args < program_.num_args) {
      return InvalidArgument("program reads a" + std::to_string(program_.num_args - 1) + " but there are " +
                             std::to_string(num_args) + " args");
    }
    const int64_t total = ctx.output(0).NumElements();
    if (total == 0) return Status::OK();
    // Which arguments and values are whole runs this call (the rest are
    // one element, broadcast). A channel vector (Note [Element-wise
    // fusion]) becomes a run too: blocks then start at multiples of the
    // channel count C and hold a whole number of rows, so one copy of the
    // vector tiled to a block's length serves every block.
    const Shape& out_shape = ctx.output(0).shape();
    BufferLease<Operands> lease;
    Operands& operands = lease.get();
    operands.arg_run.assign(num_args, 0);
    operands.arg_fixed.assign(num_args, 0);
    operands.args.resize(num_args);
    operands.channels = 1;
    for (int i = 0; i < num_args; ++i) {
      const Tensor& arg = ctx.input(i);
      operands.arg_run[i] = arg.NumElements() == total;
      operands.args[i] = arg.data<T>();
      if (!operands.arg_run[i] && IsChannelVector(arg.shape(), out_shape)) {
        operands.channels = out_shape.dim(out_shape.rank() - 1);
        operands.arg_run[i] = operands.arg_fixed[i] = 1;
      }
    }
    const int64_t rows_per_block = std::max<int64_t>(1, kBlock / operands.channels);
    operands.block = rows_per_block * operands.channels;
    int tiles = 0;
    for (int i = 0; i < num_args; ++i) {
      if (!operands.arg_fixed[i]) continue;
      // Whole rows of C, copied row by row: an element-wise modulo here
      // cost more than the program itself on a [64, 512] dense layer.
      const int64_t length = std::min(operands.block, total);
      if (static_cast<int>(operands.tiled.size()) <= tiles) operands.tiled.emplace_back();
      std::vector<T>& tiled = operands.tiled[tiles++];
      tiled.resize(static_cast<size_t>(length));
      for (int64_t row = 0; row < length; row += operands.channels) {
        std::memcpy(tiled.data() + row, operands.args[i], sizeof(T) * static_cast<size_t>(operands.channels));
      }
      operands.args[i] = tiled.data();
    }
    operands.value_run.resize(steps_.size());
    for (size_t k = 0; k < steps_.size(); ++k) {
      const Step& step = steps_[k];
      operands.value_run[k] = operands.IsRun(step.in.a) || (step.binary && operands.IsRun(step.in.b));
    }
    operands.outputs.resize(ctx.num_outputs());
    for (int o = 0; o < ctx.num_outputs(); ++o) operands.outputs[o] = ctx.output(o).data<T>();
    // Ranges of whole rows, so every block starts at a multiple of C.
    const int64_t c = operands.channels;
    ParallelFor(ctx, total / c, cycles_ * static_cast<double>(c),
                [&](int64_t first, int64_t last) { RunRange(operands, first * c, last * c); });
    return Status::OK();
  }

 private:
  // What one call reads and writes.
  struct Operands {
    std::vector<const T*> args;
    std::vector<char> arg_run;
    std::vector<char> arg_fixed;  // a tiled channel vector: the same pointer for every block
    std::vector<std::vector<T>> tiled;  // kept between calls (Note [Fused kernel buffers])
    int64_t channels = 1;          // C, when an argument is a channel vector; else 1
    int64_t block = kBlock;        // elements per block: a multiple of `channels`
    std::vector<char> value_run;
    std::vector<T*> outputs;
    bool IsRun(int operand) const {
      return IsFusedArg(operand) ? arg_run[FusedArgIndex(operand)] != 0 : value_run[operand] != 0;
    }
    void Trim() {
      for (std::vector<T>& t : tiled) TrimVector(t);
    }
  };

  // One range's scratch slots and operand pointers.
  struct RangeBuffers {
    std::vector<T> scratch;
    std::vector<const T*> args;
    std::vector<const T*> value;
    void Trim() { TrimVector(scratch); }
  };

  // Static register allocation: each instruction gets a scratch slot that
  // is reused once every reader of its value has run; output values keep
  // theirs to the end of the block.
  void Plan() {
    const int n = static_cast<int>(program_.code.size());
    std::vector<int> last_use(n, -1);
    for (int k = 0; k < n; ++k) {
      const FusedInstruction& in = program_.code[k];
      for (int operand : {in.a, FusedOpInfoOf(in.op).arity == 2 ? in.b : in.a}) {
        if (!IsFusedArg(operand)) last_use[operand] = k;
      }
    }
    for (int k : program_.outputs) last_use[k] = n;
    std::vector<std::vector<int>> freed_after(n + 1);  // values whose last reader is instruction k
    for (int k = 0; k < n; ++k) {
      if (last_use[k] >= 0) freed_after[last_use[k]].push_back(k);
    }
    std::vector<int> free_slots;
    steps_.resize(n);
    for (int k = 0; k < n; ++k) {
      Step& step = steps_[k];
      step.in = program_.code[k];
      step.fn = StepFor<T>(step.in.op);
      step.binary = FusedOpInfoOf(step.in.op).arity == 2;
      if (free_slots.empty()) {
        step.slot = num_slots_++;
      } else {
        step.slot = free_slots.back();
        free_slots.pop_back();
      }
      for (int j : freed_after[k]) free_slots.push_back(steps_[j].slot);
    }
    // An instruction whose value is an output writes it in place.
    for (size_t o = 0; o < program_.outputs.size(); ++o) {
      Step& step = steps_[program_.outputs[o]];
      if (step.direct_output < 0) step.direct_output = static_cast<int>(o);
    }
    cycles_ = program_.CyclesPerElement();
  }

  void RunRange(const Operands& ops, int64_t first, int64_t last) const {
    const int n = static_cast<int>(steps_.size());
    const int64_t block = std::min(ops.block, last - first);
    BufferLease<RangeBuffers> lease;
    RangeBuffers& buffers = lease.get();
    buffers.scratch.resize(static_cast<size_t>(num_slots_) * block);
    buffers.args.resize(ops.args.size());
    buffers.value.resize(n);
    T* const scratch_base = buffers.scratch.data();
    std::vector<const T*>& args = buffers.args;
    std::vector<const T*>& value = buffers.value;
    auto operand = [&](int ref) { return IsFusedArg(ref) ? args[FusedArgIndex(ref)] : value[ref]; };
    for (int64_t offset = first; offset < last; offset += block) {
      const int64_t count = std::min(block, last - offset);
      for (size_t i = 0; i < args.size(); ++i) {
        args[i] = ops.arg_run[i] && !ops.arg_fixed[i] ? ops.args[i] + offset : ops.args[i];
      }
      for (int k = 0; k < n; ++k) {
        const Step& step = steps_[k];
        const bool run = ops.value_run[k];
        T* dst = run && step.direct_output >= 0 ? ops.outputs[step.direct_output] + offset
                                                 : scratch_base + static_cast<int64_t>(step.slot) * block;
        const int a = step.in.a, b = step.in.b;
        step.fn(step.in, operand(a), ops.IsRun(a), step.binary ? operand(b) : nullptr,
                step.binary && ops.IsRun(b), dst, run ? count : 1);
        value[k] = dst;
      }
      for (size_t o = 0; o < program_.outputs.size(); ++o) {
        const int k = program_.outputs[o];
        const bool run = ops.value_run[k];
        if (run && steps_[k].direct_output == static_cast<int>(o)) continue;
        T* dst = ops.outputs[o] + offset;
        if (run) {
          std::memcpy(dst, value[k], sizeof(T) * count);
        } else {
          std::fill(dst, dst + count, *value[k]);
        }
      }
    }
  }

  // One instruction, resolved for the loop.
  struct Step {
    FusedInstruction in;
    StepFn<T> fn = nullptr;
    bool binary = false;
    int slot = -1;           // its scratch buffer
    int direct_output = -1;  // the output it writes in place, or -1
  };

  FusedProgram program_;
  Status parse_status_;
  std::vector<Step> steps_;
  int num_slots_ = 0;
  double cycles_ = 0;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterFusedElementwiseKernels(KernelRegistry& registry) {
  RegisterForTypes<FusedElementwiseKernel, float, double>(registry, "fused_elementwise");
}

}  // namespace ember::cpu
