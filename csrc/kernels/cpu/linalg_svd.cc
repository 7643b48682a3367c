// This file implements the svd CPU kernel (LAPACK's divide-and-conquer
// gesdd).
#include <limits>
#include <vector>

#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::Real;

// Attrs: 0 compute_uv, 1 full_matrices (by index: Note [Pending op
// definitions] in sort.cc).
template <typename T>
class SvdKernel final : public OpKernel {
 public:
  explicit SvdKernel(const KernelInit& init)
      : compute_uv_(init.attrs[0].as_bool()), full_(init.attrs[1].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
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
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{m, n}, {m, um}, {vn, n}}));
    const int64_t batch = ctx.output(0).NumElements() / p;
    const char jobz = !compute_uv_ ? 'N' : full_ ? 'A' : 'S';
    const bool ok = linalg::ForEachMatrix(ctx, batch, linalg::DecompositionCycles(m, n) * 4, [&](int64_t b) {
      const T* a = in + b * m * n;
      T* s_b = s + b * p;
      T* u_b = compute_uv_ ? u + b * m * um : nullptr;
      T* v_b = compute_uv_ ? v + b * n * vn : nullptr;
      if (!linalg::AllFinite(a, m * n)) {  // TensorFlow's answer: NaN everywhere
        const T nan = T(std::numeric_limits<Real<T>>::quiet_NaN());
        std::fill(s_b, s_b + p, nan);
        if (compute_uv_) {
          std::fill(u_b, u_b + m * um, nan);
          std::fill(v_b, v_b + n * vn, nan);
        }
        return true;
      }
      std::vector<T> work(a, a + m * n);
      std::vector<Real<T>> values(p);
      std::vector<T> vt(compute_uv_ ? vn * n : 1);  // V^H, vn x n
      if (lapack::Gesdd(jobz, m, n, work.data(), values.data(), u_b, um, vt.data(), n) != 0) return false;
      for (int64_t i = 0; i < p; ++i) s_b[i] = T(values[i]);
      if (compute_uv_) linalg::Transpose(vt.data(), vn, n, /*conjugate=*/true, v_b);  // TensorFlow returns V
      return true;
    });
    return ok ? Status::OK() : InvalidArgument("SVD did not converge.");
  }

 private:
  // Sets each [rows, cols] matrix of `t` to the identity (nothing if empty).
  static void FillIdentities(Tensor& t, int64_t rows, int64_t cols) {
    if (t.NumElements() == 0) return;
    for (int64_t b = 0; b < t.NumElements() / (rows * cols); ++b) {
      linalg::SetIdentity(t.data<T>() + b * rows * cols, rows, cols);
    }
  }

  bool compute_uv_, full_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterSvdKernels(KernelRegistry& r) {
  RegisterForTypeSet<SvdKernel>(r, "svd", type_sets::Linalg{});
}

}  // namespace ember::cpu
