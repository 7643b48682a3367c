// This file implements the CPU kernels for triangular matrices: cholesky
// (Eigen's LLT) and matrix_triangular_solve (with broadcast batch dims).
#include <atomic>

#include <Eigen/Cholesky>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Matrix;
using linalg::MatrixAt;
using linalg::Real;

template <typename T>
class CholeskyKernel final : public OpKernel {
 public:
  explicit CholeskyKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(out.shape());
    const T* in = ctx.input(0).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * n), DecompositionCycles(n, n), [&](int64_t b) {
      // LLT reads the lower triangle only, as TensorFlow's Cholesky does.
      const Eigen::LLT<Matrix<T>, Eigen::Lower> llt(Matrix<T>(MatrixAt(in, b, n, n)));
      if (llt.info() != Eigen::Success) return false;
      MatrixAt(dst, b, n, n) = llt.matrixL().toDenseMatrix();
      return true;
    });
    return ok ? Status::OK()
              : InvalidArgument("Cholesky decomposition was not successful. The input might not be valid.");
  }
};

// Attrs: 0 lower, 1 adjoint.
template <typename T>
class TriangularSolveKernel final : public OpKernel {
 public:
  explicit TriangularSolveKernel(const KernelInit& init)
      : lower_(init.attrs[0].as_bool()), adjoint_(init.attrs[1].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& matrix = ctx.input(0);
    const Tensor& rhs = ctx.input(1);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(out.shape()), k = linalg::Cols(out.shape());
    // Batch dims broadcast as matmul's do (Note [Broadcast plan]).
    const BroadcastPlan batches = MakeBroadcastPlan(linalg::BatchShape(matrix.shape()),
                                                    linalg::BatchShape(rhs.shape()), linalg::BatchShape(out.shape()));
    const T* a_data = matrix.data<T>();
    const T* b_data = rhs.data<T>();
    T* dst = out.data<T>();
    std::atomic<bool> ok{true};
    ParallelFor(ctx, batches.num_elements, DecompositionCycles(n, k) / 10, [&](int64_t first, int64_t last) {
      ForEachBroadcastElement(batches, first, last, [&](int64_t b, int64_t a_index, int64_t b_index) {
        const auto a = MatrixAt(a_data, a_index, n, n);
        // A zero (or NaN) on the diagonal: singular, as TensorFlow tests.
        if (!(a.diagonal().cwiseAbs().minCoeff() > Real<T>(0))) {
          ok.store(false, std::memory_order_relaxed);
          return;
        }
        auto x = MatrixAt(dst, b, n, k);
        x = MatrixAt(b_data, b_index, n, k);
        if (lower_ && !adjoint_) a.template triangularView<Eigen::Lower>().solveInPlace(x);
        if (lower_ && adjoint_) a.template triangularView<Eigen::Lower>().adjoint().solveInPlace(x);
        if (!lower_ && !adjoint_) a.template triangularView<Eigen::Upper>().solveInPlace(x);
        if (!lower_ && adjoint_) a.template triangularView<Eigen::Upper>().adjoint().solveInPlace(x);
      });
    });
    return ok.load() ? Status::OK() : InvalidArgument("Input matrix is not invertible.");
  }

 private:
  bool lower_, adjoint_;
};

}  // namespace

void RegisterCholeskyKernels(KernelRegistry& r) {
  RegisterForTypeSet<CholeskyKernel>(r, "cholesky", type_sets::Linalg{});
  RegisterForTypeSet<TriangularSolveKernel>(r, "matrix_triangular_solve", type_sets::Linalg{});
}

}  // namespace ember::cpu
