// This file defines the svd CPU kernel (Eigen's BDCSVD), a template that
// linalg_svd_{f32,f64,c64}.cc instantiate one dtype each: the SVD templates
// are the heaviest to compile of the decompositions.
#pragma once

#include <limits>

#include <Eigen/SVD>

#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {

// Attrs: 0 compute_uv, 1 full_matrices (by index: Note [Pending op
// definitions] in sort.cc).
template <typename T>
class SvdKernel final : public OpKernel {
 public:
  explicit SvdKernel(const KernelInit& init)
      : compute_uv_(init.attrs[0].as_bool()), full_(init.attrs[1].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    using linalg::MatrixAt;
    const Tensor& input = ctx.input(0);
    const int64_t m = linalg::Rows(input.shape()), n = linalg::Cols(input.shape());
    const int64_t p = std::min(m, n);
    const int64_t um = compute_uv_ ? (full_ ? m : p) : 0;  // columns of u and v
    const int64_t vn = compute_uv_ ? (full_ ? n : p) : 0;
    const T* in = input.data<T>();
    T* s = ctx.output(0).data<T>();
    T* u = ctx.output(1).data<T>();
    T* v = ctx.output(2).data<T>();
    if (p == 0) {  // no singular values; full-sized u and v are identities
      FillIdentities(ctx.output(1), m, um);
      FillIdentities(ctx.output(2), n, vn);
      return Status::OK();
    }
    const int64_t batch = ctx.output(0).NumElements() / p;
    const unsigned options = !compute_uv_ ? 0
                             : full_      ? Eigen::ComputeFullU | Eigen::ComputeFullV
                                          : Eigen::ComputeThinU | Eigen::ComputeThinV;
    linalg::ForEachMatrix(ctx, batch, linalg::DecompositionCycles(m, n) * 4, [&](int64_t b) {
      const linalg::Matrix<T> a = MatrixAt(in, b, m, n);
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> s_out(s + b * p, p);
      if (!a.allFinite()) {  // TensorFlow's answer: NaN everywhere
        const T nan = T(std::numeric_limits<linalg::Real<T>>::quiet_NaN());
        s_out.setConstant(nan);
        if (compute_uv_) {
          MatrixAt(u, b, m, um).setConstant(nan);
          MatrixAt(v, b, n, vn).setConstant(nan);
        }
        return true;
      }
      const Eigen::BDCSVD<linalg::Matrix<T>> svd(a, options);
      s_out = svd.singularValues().template cast<T>();
      if (compute_uv_) {
        MatrixAt(u, b, m, um) = svd.matrixU();
        MatrixAt(v, b, n, vn) = svd.matrixV();
      }
      return true;
    });
    return Status::OK();
  }

 private:
  // Sets each [rows, cols] matrix of `t` to the identity (nothing if empty).
  static void FillIdentities(Tensor& t, int64_t rows, int64_t cols) {
    if (t.NumElements() == 0) return;
    for (int64_t b = 0; b < t.NumElements() / (rows * cols); ++b) {
      linalg::MatrixAt(t.data<T>(), b, rows, cols).setIdentity();
    }
  }

  bool compute_uv_, full_;
};

}  // namespace ember::cpu
