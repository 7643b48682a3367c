// This file implements the einsum CPU kernel. Operands join left to right;
// for each pair, both sides are rearranged (diagonals taken, labels needed
// nowhere else summed, '...' dims broadcast) into [batch, free, contracted]
// and [batch, contracted, free] order, then one batched GEMM contracts them.
// A last rearrangement writes the output's label order.
#include <algorithm>
#include <cstring>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/shape_fns/einsum.h"

namespace ember {
namespace {

using shape_fns::EinsumSpec;

// A row-major array whose dim d carries label `labels[d]`: an input's
// buffer (labels may repeat) or an intermediate this kernel owns.
template <typename T>
struct Operand {
  const T* external = nullptr;
  std::vector<T> owned;
  bool is_external = false;
  std::vector<int> labels;
  std::vector<int64_t> dims;

  const T* data() const { return is_external ? external : owned.data(); }
};

// An input as an Operand of its compute type: a view of its buffer, or
// for float16 and bfloat16 a float32 copy (Note [Half compute]).
template <typename T>
Operand<cpu::ComputeType<T>> FromInput(const Tensor& t, const std::vector<int>& labels) {
  Operand<cpu::ComputeType<T>> op;
  if constexpr (cpu::kIsWidened<T>) {
    op.owned.resize(t.NumElements());
    cpu::ConvertSpan(t.data<T>(), op.owned.data(), t.NumElements());
  } else {
    op.external = t.data<T>();
    op.is_external = true;
  }
  op.labels = labels;
  op.dims = t.shape().ToVector();
  return op;
}

// Steps a row-major multi-index and its offset (per-dim strides) by one.
inline void Advance(std::vector<int64_t>& index, const std::vector<int64_t>& dims,
                    const std::vector<int64_t>& strides, int64_t* offset) {
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    if (++index[i] < dims[i]) {
      *offset += strides[i];
      return;
    }
    *offset -= (dims[i] - 1) * strides[i];
    index[i] = 0;
  }
}

// True when `in` already is `kept` in that order with nothing to sum or
// broadcast, so it can be used without a copy.
template <typename T>
bool IsLaidOut(const Operand<T>& in, const std::vector<int>& kept, const std::vector<int64_t>& sizes) {
  if (in.labels != kept) return false;
  for (size_t d = 0; d < kept.size(); ++d) {
    if (in.dims[d] != sizes[kept[d]]) return false;
  }
  return true;
}

// out[kept...] = sum over `summed` labels of `in`. A label's stride in `in`
// is the sum of the strides of the dims carrying it (a repeated label walks
// the diagonal); a dim of size 1 under a larger label size has stride 0
// (broadcast). Each label of `in` must be in `kept` or `summed`.
template <typename T>
void Rearrange(const KernelContext& ctx, const Operand<T>& in, const std::vector<int>& kept,
               const std::vector<int>& summed, const std::vector<int64_t>& sizes, T* out) {
  std::vector<int64_t> label_stride(sizes.size(), 0);
  int64_t stride = 1;
  for (int d = static_cast<int>(in.dims.size()) - 1; d >= 0; --d) {
    if (in.dims[d] != 1) label_stride[in.labels[d]] += stride;
    stride *= in.dims[d];
  }
  std::vector<int64_t> kept_dims, kept_strides, sum_dims, sum_strides;
  int64_t num_out = 1, num_sum = 1;
  for (int l : kept) {
    kept_dims.push_back(sizes[l]);
    kept_strides.push_back(label_stride[l]);
    num_out *= sizes[l];
  }
  for (int l : summed) {
    sum_dims.push_back(sizes[l]);
    sum_strides.push_back(label_stride[l]);
    num_sum *= sizes[l];
  }
  if (num_out == 0) return;
  const T* src = in.data();
  cpu::ParallelFor(ctx, num_out, cpu::kCheapOpCycles * static_cast<double>(std::max<int64_t>(num_sum, 1)),
              [&](int64_t begin, int64_t end) {
                std::vector<int64_t> index(kept_dims.size()), sum_index(sum_dims.size());
                int64_t offset = 0;
                for (int64_t i = static_cast<int64_t>(kept_dims.size()) - 1, rest = begin; i >= 0; --i) {
                  index[i] = rest % kept_dims[i];
                  rest /= kept_dims[i];
                  offset += index[i] * kept_strides[i];
                }
                for (int64_t o = begin; o < end; ++o) {
                  T acc = T(0);
                  int64_t sum_offset = 0;
                  for (int64_t s = 0; s < num_sum; ++s) {
                    acc += src[offset + sum_offset];
                    Advance(sum_index, sum_dims, sum_strides, &sum_offset);
                  }
                  out[o] = acc;
                  Advance(index, kept_dims, kept_strides, &offset);
                }
              });
}

// `in` rearranged to `kept` (a view when it already is).
template <typename T>
Operand<T> Arranged(const KernelContext& ctx, Operand<T>&& in, const std::vector<int>& kept,
                    const std::vector<int>& summed, const std::vector<int64_t>& sizes) {
  if (summed.empty() && IsLaidOut(in, kept, sizes)) return std::move(in);
  Operand<T> out;
  out.labels = kept;
  int64_t n = 1;
  for (int l : kept) {
    out.dims.push_back(sizes[l]);
    n *= sizes[l];
  }
  out.owned.resize(n);
  Rearrange(ctx, in, kept, summed, sizes, out.owned.data());
  return out;
}

int64_t Product(const std::vector<int>& labels, const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int l : labels) n *= sizes[l];
  return n;
}

// Contracts a and b; `later` marks the labels the output or a later operand needs.
template <typename T>
Operand<T> Contract(const KernelContext& ctx, Operand<T>&& a, Operand<T>&& b, const std::vector<bool>& later,
                    const std::vector<int64_t>& sizes) {
  const shape_fns::EinsumPairLabels p =
      shape_fns::SplitEinsumPair(a.labels, b.labels, later, static_cast<int>(sizes.size()));
  using shape_fns::ConcatLabels;
  const Operand<T> lhs = Arranged(ctx, std::move(a), ConcatLabels(ConcatLabels(p.batch, p.a_free), p.contracted),
                                  p.a_sum, sizes);
  const Operand<T> rhs = Arranged(ctx, std::move(b), ConcatLabels(ConcatLabels(p.batch, p.contracted), p.b_free),
                                  p.b_sum, sizes);
  const int64_t num_batches = Product(p.batch, sizes);
  cpu::MatmulDims dims{Product(p.a_free, sizes), Product(p.contracted, sizes), Product(p.b_free, sizes), false, false};

  Operand<T> c;
  c.labels = ConcatLabels(ConcatLabels(p.batch, p.a_free), p.b_free);
  for (int l : c.labels) c.dims.push_back(sizes[l]);
  c.owned.assign(num_batches * dims.m * dims.n, T(0));
  if (c.owned.empty() || dims.k == 0) return c;  // an empty sum is 0
  const T* a_data = lhs.data();
  const T* b_data = rhs.data();
  T* c_data = c.owned.data();
  cpu::ParallelMatmul<T>(
      &ctx.device_context(), dims, num_batches,
      [](int64_t first, int64_t last, auto&& fn) {
        for (int64_t o = first; o < last; ++o) fn(o, o, o);
      },
      a_data, b_data, c_data, nullptr);
  return c;
}

// out = acc with the labels the output lacks summed, in the output's order.
template <typename T>
void WriteOutput(const KernelContext& ctx, const Operand<T>& acc, const EinsumSpec& spec, T* out) {
  const auto summed = shape_fns::EinsumLabelsOutside(acc.labels, spec.output, spec.num_labels());
  if (summed.empty() && IsLaidOut(acc, spec.output, spec.sizes)) {
    std::memcpy(out, acc.data(), sizeof(T) * Product(spec.output, spec.sizes));
  } else {
    Rearrange(ctx, acc, spec.output, summed, spec.sizes, out);
  }
}

// Note [Half compute]: float16 and bfloat16 inputs are widened whole, every
// contraction and sum runs in float32, and the output is rounded once.
// Attr 0: equation, by index (Note [Pending op definitions] in sort.cc).
template <typename T>
class EinsumKernel final : public OpKernel {
 public:
  explicit EinsumKernel(const KernelInit& init) : equation_(init.attrs[0].as_string()) {}

  Status Compute(KernelContext& ctx) const override {
    const int n = ctx.num_inputs();
    std::vector<Shape> shapes;
    shapes.reserve(n);
    for (int i = 0; i < n; ++i) shapes.push_back(ctx.input(i).shape());
    EinsumSpec spec;
    EMBER_RETURN_IF_ERROR(shape_fns::ParseEinsum(equation_, shapes.data(), n, &spec));
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    using C = cpu::ComputeType<T>;

    // needed[i]: labels the output or operands i+1.. use.
    const std::vector<std::vector<bool>> needed = shape_fns::EinsumLaterLabels(spec);
    Operand<C> acc = FromInput<T>(ctx.input(0), spec.inputs[0]);
    for (int i = 1; i < n; ++i) {
      acc = Contract(ctx, std::move(acc), FromInput<T>(ctx.input(i), spec.inputs[i]), needed[i], spec.sizes);
    }
    if constexpr (cpu::kIsWidened<T>) {
      std::vector<C> wide(out.NumElements());
      WriteOutput(ctx, acc, spec, wide.data());
      cpu::ConvertSpan(wide.data(), out.data<T>(), out.NumElements());
    } else {
      WriteOutput(ctx, acc, spec, out.data<T>());
    }
    return Status::OK();
  }

 private:
  std::string equation_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCpuEinsumKernels(KernelRegistry& registry) {
  cpu::RegisterForTypeSet<EinsumKernel>(registry, "einsum", type_sets::Matmul{});
}

}  // namespace ember
