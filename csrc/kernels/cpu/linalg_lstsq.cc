// This file implements the matrix_solve_ls CPU kernel: least squares by
// the regularized normal equations (Cholesky) or, with fast=False, the
// minimum-norm solution by LAPACK's SVD-based gelsd.
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::AllFinite;
using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Real;

// Attrs: 0 l2_regularizer, 1 fast.
template <typename T>
class MatrixSolveLsKernel final : public OpKernel {
 public:
  explicit MatrixSolveLsKernel(const KernelInit& init)
      : l2_(init.attrs[0].as_float()), fast_(init.attrs[1].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& matrix = ctx.input(0);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int64_t m = linalg::Rows(matrix.shape()), n = linalg::Cols(matrix.shape());
    const int64_t k = linalg::Cols(out.shape());
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{m, n}, {std::max(m, n), k}, {std::min(m, n), std::min(m, n)}}));
    const T* a_data = matrix.data<T>();
    const T* b_data = ctx.input(1).data<T>();
    T* x_data = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * k), DecompositionCycles(m, n + k), [&](int64_t b) {
      T* x = x_data + b * n * k;
      if (m == 0) {  // no equations: the minimum-norm solution
        std::fill(x, x + n * k, T(0));
        return true;
      }
      const T* a = a_data + b * m * n;
      const T* rhs = b_data + b * m * k;
      return fast_ ? SolveNormalEquations(m, n, k, a, rhs, x) : SolveMinimumNorm(m, n, k, a, rhs, x);
    });
    return ok ? Status::OK()
              : InvalidArgument("Input matrix was rank deficient or ill-conditioned. Try setting fast=False or "
                                "provide a larger l2_regularizer > 0.");
  }

 private:
  // The normal equations of the smaller side, as TensorFlow's fast path:
  // (A^H A + l2 I) x = A^H b when tall, x = A^H (A A^H + l2 I)^-1 b when wide.
  bool SolveNormalEquations(int64_t m, int64_t n, int64_t k, const T* a, const T* rhs, T* x) const {
    const bool tall = m >= n;
    const int64_t side = tall ? n : m;
    std::vector<T> gram(side * side);
    lapack::Gemm(/*adjoint_a=*/tall, /*adjoint_b=*/!tall, side, side, tall ? m : n, a, a, gram.data());
    for (int64_t i = 0; i < side; ++i) gram[i * side + i] += T(static_cast<Real<T>>(l2_));
    if (lapack::Potrf(side, gram.data()) != 0) return false;
    if (tall) {
      lapack::Gemm(/*adjoint_a=*/true, false, n, k, m, a, rhs, x);
      lapack::Potrs(n, k, gram.data(), x);
    } else {
      std::vector<T> y(rhs, rhs + m * k);
      lapack::Potrs(m, k, gram.data(), y.data());
      lapack::Gemm(/*adjoint_a=*/true, false, n, k, m, a, y.data(), x);
    }
    return AllFinite(x, n * k) || !AllFinite(rhs, m * k) || !AllFinite(a, m * n);
  }

  // Singular values below NumPy's default cut-off, eps * max(m, n) times
  // the largest, count as zero.
  static bool SolveMinimumNorm(int64_t m, int64_t n, int64_t k, const T* a, const T* rhs, T* x) {
    if (!AllFinite(a, m * n) || !AllFinite(rhs, m * k)) {
      // NaN, as TensorFlow's orthogonal decomposition gives; gelsd would
      // reject its scaled input and print LAPACK's argument error.
      std::fill(x, x + n * k, T(std::numeric_limits<Real<T>>::quiet_NaN()));
      return true;
    }
    std::vector<T> a_copy(a, a + m * n);
    std::vector<T> b(std::max(m, n) * k, T(0));
    std::copy(rhs, rhs + m * k, b.begin());
    const double rcond = std::numeric_limits<Real<T>>::epsilon() * static_cast<double>(std::max(m, n));
    if (lapack::Gelsd(m, n, k, a_copy.data(), b.data(), rcond) != 0) return false;
    std::copy(b.begin(), b.begin() + n * k, x);
    return true;
  }

  double l2_;
  bool fast_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterLstsqKernels(KernelRegistry& r) {
  RegisterForTypeSet<MatrixSolveLsKernel>(r, "matrix_solve_ls", type_sets::Linalg{});
}

}  // namespace ember::cpu
