// This file implements the scaled_dot_product_attention CPU kernel:
// per block of query rows, scores = q k^T * scale (GEMM), masked, row
// softmax, then scores v (GEMM).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
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

template <typename T, typename M>
class AttentionKernel final : public OpKernel {
 public:
  explicit AttentionKernel(const KernelInit& init) : scale_(ScaledDotProductAttentionAttrs(init.attrs).scale) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    const Tensor& mask = ctx.input(3);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int rank = out.rank(), lead = rank - 2;
    const int64_t lq = q.dim(q.rank() - 2), d = q.dim(q.rank() - 1);
    const int64_t lk = k.dim(k.rank() - 2), dv = v.dim(v.rank() - 1);
    Shape scores_shape(out.shape().data(), lead);
    scores_shape.AddDim(lq);
    scores_shape.AddDim(lk);
    // Batch offsets: operands broadcast over the output's batch dims.
    auto batch_offsets = [&](const Tensor& t, int64_t rows, int64_t cols) {
      Shape target(out.shape().data(), lead);
      target.AddDim(rows);
      target.AddDim(cols);
      return LeadOffsets(BroadcastStrides(t.shape(), target), target, lead);
    };
    const std::vector<int64_t> q_off = batch_offsets(q, lq, d);
    const std::vector<int64_t> k_off = batch_offsets(k, lk, d);
    const std::vector<int64_t> v_off = batch_offsets(v, lk, dv);
    const std::vector<int64_t> mask_strides = BroadcastStrides(mask.shape(), scores_shape);
    const std::vector<int64_t> m_off = LeadOffsets(mask_strides, scores_shape, lead);
    const int64_t ms_q = mask_strides[lead], ms_k = mask_strides[lead + 1];
    const T scale = scale_ ? static_cast<T>(*scale_) : static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
    const int64_t batches = static_cast<int64_t>(q_off.size());
    const int64_t blocks = (lq + kQueryBlock - 1) / kQueryBlock;
    const T* qd = q.data<T>();
    const T* kd = k.data<T>();
    const T* vd = v.data<T>();
    const M* md = mask.data<M>();
    T* od = out.data<T>();
    const double cycles = 2.0 * std::min(lq, kQueryBlock) * lk * (d + dv) + 30.0 * lk;
    ParallelFor(ctx, batches * blocks, cycles, [&](int64_t first, int64_t last) {
      std::vector<T> scores(std::min(lq, kQueryBlock) * lk);
      for (int64_t unit = first; unit < last; ++unit) {
        const int64_t b = unit / blocks, r0 = (unit % blocks) * kQueryBlock;
        const int64_t rows = std::min(kQueryBlock, lq - r0);
        MatmulRows<T>(qd + q_off[b] + r0 * d, kd + k_off[b], scores.data(), MatmulDims{rows, d, lk, false, true},
                      0, rows);
        for (int64_t i = 0; i < rows; ++i) {
          T* s = scores.data() + i * lk;
          const M* mrow = md + m_off[b] + (r0 + i) * ms_q;
          for (int64_t j = 0; j < lk; ++j) {
            const M mv = mrow[j * ms_k];
            if constexpr (std::is_same_v<M, bool>) {
              s[j] = mv ? s[j] * scale : -std::numeric_limits<T>::infinity();
            } else {
              s[j] = s[j] * scale + static_cast<T>(mv);
            }
          }
          if (lk == 0) continue;
          RowVec<T> row(s, lk);
          const T mx = row.maxCoeff();
          row = (row - mx).exp();
          row /= row.sum();
        }
        MatmulRows<T>(scores.data(), vd + v_off[b], od + (b * lq + r0) * dv, MatmulDims{rows, lk, dv, false, false},
                      0, rows);
      }
    });
    return Status::OK();
  }

 private:
  std::optional<double> scale_;
};

}  // namespace

void RegisterNnAttentionKernels(KernelRegistry& r) {
  RegisterForTypePairsWith<AttentionKernel, bool, float, double>(r, "scaled_dot_product_attention");
  RegisterForTypePairsWith<AttentionKernel, float, float, double>(r, "scaled_dot_product_attention");
  RegisterForTypePairsWith<AttentionKernel, double, float, double>(r, "scaled_dot_product_attention");
}

}  // namespace ember::cpu
