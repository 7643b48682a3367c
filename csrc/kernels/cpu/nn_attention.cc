// This file implements the scaled_dot_product_attention CPU kernel:
// per block of query rows, scores = q k^T * scale (GEMM), masked, row
// softmax, then scores v (GEMM).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/cpu/eigen.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/nn_kernels.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/nn.gen.h"

namespace ember::cpu {
namespace {

template <typename T>
using RowVec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

// Element strides of `operand` along each dim of `target`, which it
// broadcasts to (right-aligned; 0 where it is broadcast or missing).
std::vector<int64_t> BroadcastStrides(const Shape& operand, const Shape& target) {
  std::vector<int64_t> strides(target.rank(), 0);
  int64_t stride = 1;
  for (int i = operand.rank() - 1; i >= 0; --i) {
    const int t = i + target.rank() - operand.rank();
    if (operand.dim(i) != 1) strides[t] = stride;
    stride *= operand.dim(i);
  }
  return strides;
}

// Offsets of each of the `lead` leading dims' flat indices of `target`.
std::vector<int64_t> LeadOffsets(const std::vector<int64_t>& strides, const Shape& target, int lead) {
  int64_t count = 1;
  for (int i = 0; i < lead; ++i) count *= target.dim(i);
  std::vector<int64_t> offsets(count);
  for (int64_t b = 0; b < count; ++b) {
    int64_t rest = b, off = 0;
    for (int i = lead - 1; i >= 0; --i) {
      off += (rest % target.dim(i)) * strides[i];
      rest /= target.dim(i);
    }
    offsets[b] = off;
  }
  return offsets;
}

// Query rows per work unit: scores for the block stay small.
constexpr int64_t kQueryBlock = 64;

// Where each operand's rows start per batch of the output, and the mask's
// strides: dtype-independent, so computed once outside the templates.
struct AttentionPlan {
  int64_t lq, d, lk, dv;
  std::vector<int64_t> q_off, k_off, v_off, m_off;
  int64_t ms_q, ms_k;  // mask strides along Lq and Lk (0 where broadcast)
};

AttentionPlan MakeAttentionPlan(const Shape& q, const Shape& k, const Shape& v, const Shape& mask,
                                const Shape& out) {
  AttentionPlan p;
  const int lead = out.rank() - 2;
  p.lq = q.dim(q.rank() - 2);
  p.d = q.dim(q.rank() - 1);
  p.lk = k.dim(k.rank() - 2);
  p.dv = v.dim(v.rank() - 1);
  // Batch offsets: operands broadcast over the output's batch dims.
  auto batch_offsets = [&](const Shape& t, int64_t rows, int64_t cols) {
    Shape target(out.data(), lead);
    target.AddDim(rows);
    target.AddDim(cols);
    return LeadOffsets(BroadcastStrides(t, target), target, lead);
  };
  p.q_off = batch_offsets(q, p.lq, p.d);
  p.k_off = batch_offsets(k, p.lk, p.d);
  p.v_off = batch_offsets(v, p.lk, p.dv);
  Shape scores_shape(out.data(), lead);
  scores_shape.AddDim(p.lq);
  scores_shape.AddDim(p.lk);
  const std::vector<int64_t> mask_strides = BroadcastStrides(mask, scores_shape);
  p.m_off = LeadOffsets(mask_strides, scores_shape, lead);
  p.ms_q = mask_strides[lead];
  p.ms_k = mask_strides[lead + 1];
  return p;
}

// The attention of one plan, in compute type C; the mask is read as M.
template <typename C, typename M>
void Attend(const DeviceContext* device, const AttentionPlan& p, const C* qd, const C* kd, const C* vd, const M* md, C* od,
            C scale) {
  const int64_t lq = p.lq, d = p.d, lk = p.lk, dv = p.dv;
  const int64_t batches = static_cast<int64_t>(p.q_off.size());
  const int64_t blocks = (lq + kQueryBlock - 1) / kQueryBlock;
  const double cycles = 2.0 * std::min(lq, kQueryBlock) * lk * (d + dv) + 30.0 * lk;
  ParallelFor(device, batches * blocks, cycles, [&](int64_t first, int64_t last) {
    std::vector<C> scores(std::min(lq, kQueryBlock) * lk);
    for (int64_t unit = first; unit < last; ++unit) {
      const int64_t b = unit / blocks, r0 = (unit % blocks) * kQueryBlock;
      const int64_t rows = std::min(kQueryBlock, lq - r0);
      MatmulRows<C>(qd + p.q_off[b] + r0 * d, kd + p.k_off[b], scores.data(), MatmulDims{rows, d, lk, false, true},
                    0, rows);
      for (int64_t i = 0; i < rows; ++i) {
        C* s = scores.data() + i * lk;
        const M* mrow = md + p.m_off[b] + (r0 + i) * p.ms_q;
        for (int64_t j = 0; j < lk; ++j) {
          const M mv = mrow[j * p.ms_k];
          if constexpr (std::is_same_v<M, bool>) {
            s[j] = mv ? s[j] * scale : -std::numeric_limits<C>::infinity();
          } else {
            s[j] = s[j] * scale + static_cast<C>(mv);
          }
        }
        if (lk == 0) continue;
        RowVec<C> row(s, lk);
        const C mx = row.maxCoeff();
        row = (row - mx).exp();
        row /= row.sum();
      }
      MatmulRows<C>(scores.data(), vd + p.v_off[b], od + (b * lq + r0) * dv, MatmulDims{rows, lk, dv, false, false},
                    0, rows);
    }
  });
}

// Computes in ComputeType<T> (Note [Whole-tensor half compute]); a
// float16/bfloat16 mask is widened element by element as it is read.
template <typename T, typename M>
class AttentionKernel final : public OpKernel {
 public:
  explicit AttentionKernel(const KernelInit& init) : scale_(ScaledDotProductAttentionAttrs(init.attrs).scale) {}

  Status Compute(KernelContext& ctx) const override {
    using C = ComputeType<T>;
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor& mask = ctx.input(3);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const DeviceContext* device = &ctx.device_context();
    const AttentionPlan plan = MakeAttentionPlan(q.shape(), k.shape(), v.shape(), mask.shape(), out.shape());
    const C scale = static_cast<C>(scale_ ? *scale_ : 1.0 / std::sqrt(static_cast<double>(plan.d)));
    std::vector<C> q_wide, k_wide, v_wide, out_wide;
    Attend<C, M>(device, plan, WidenedData<T>(device, q, &q_wide), WidenedData<T>(device, k, &k_wide),
                 WidenedData<T>(device, v, &v_wide), mask.data<M>(), ComputeOutput<T>(out, &out_wide), scale);
    StoreNarrowed<T>(device, out_wide, out);
    return Status::OK();
  }

 private:
  std::optional<double> scale_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterNnAttentionKernels(KernelRegistry& r) {
  constexpr const char* kOp = "scaled_dot_product_attention";
  RegisterForTypePairsWith<AttentionKernel, bool, Eigen::half, Eigen::bfloat16, float, double>(r, kOp);
  RegisterForTypePairsWith<AttentionKernel, Eigen::half, Eigen::half, Eigen::bfloat16, float, double>(r, kOp);
  RegisterForTypePairsWith<AttentionKernel, Eigen::bfloat16, Eigen::half, Eigen::bfloat16, float, double>(r, kOp);
  RegisterForTypePairsWith<AttentionKernel, float, Eigen::half, Eigen::bfloat16, float, double>(r, kOp);
  RegisterForTypePairsWith<AttentionKernel, double, Eigen::half, Eigen::bfloat16, float, double>(r, kOp);
}

}  // namespace ember::cpu
