// This file implements the matrix_solve_ls CPU kernel: least squares by
// the regularized normal equations (Cholesky) or, with fast=False, by a
// complete orthogonal decomposition. Apart from linalg_qr.cc because the
// decomposition templates are heavy to compile.
#include <Eigen/Cholesky>
#include <Eigen/QR>

#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Matrix;
using linalg::MatrixAt;

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
    const T* a_data = matrix.data<T>();
    const T* b_data = ctx.input(1).data<T>();
    T* x_data = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * k), DecompositionCycles(m, n + k), [&](int64_t b) {
      auto x = MatrixAt(x_data, b, n, k);
      if (m == 0) {  // no equations: the minimum-norm solution
        x.setZero();
        return true;
      }
      const Matrix<T> a = MatrixAt(a_data, b, m, n);
      const Matrix<T> rhs = MatrixAt(b_data, b, m, k);
      if (!fast_) {
        x = Eigen::CompleteOrthogonalDecomposition<Matrix<T>>(a).solve(rhs);
        return true;
      }
      // The normal equations of the smaller side, as TensorFlow's fast path.
      const bool tall = m >= n;
      Matrix<T> gram = tall ? Matrix<T>(a.adjoint() * a) : Matrix<T>(a * a.adjoint());
      gram.diagonal().array() += T(static_cast<linalg::Real<T>>(l2_));
      const Eigen::LLT<Matrix<T>> llt(gram);
      if (llt.info() != Eigen::Success) return false;
      if (tall) {
        x = llt.solve(a.adjoint() * rhs);
      } else {
        x = a.adjoint() * llt.solve(rhs);
      }
      return x.allFinite() || !rhs.allFinite() || !a.allFinite();
    });
    return ok ? Status::OK()
              : InvalidArgument("Input matrix was rank deficient or ill-conditioned. Try setting fast=False or "
                                "provide a larger l2_regularizer > 0.");
  }

 private:
  double l2_;
  bool fast_;
};

}  // namespace

void RegisterLstsqKernels(KernelRegistry& r) {
  RegisterForTypeSet<MatrixSolveLsKernel>(r, "matrix_solve_ls", type_sets::Linalg{});
}

}  // namespace ember::cpu
