// This file implements the CPU kernels for triangular matrices: cholesky
// (LAPACK's potrf) and matrix_triangular_solve (BLAS's trsm, with
// broadcast batch dims).
#include <atomic>
#include <cmath>

#include "kernels/cpu/broadcast.h"
#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Real;

template <typename T>
class CholeskyKernel final : public OpKernel {
 public:
  explicit CholeskyKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(out.shape());
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}}));
    const T* in = ctx.input(0).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * n), DecompositionCycles(n, n), [&](int64_t b) {
      T* l = dst + b * n * n;
      // potrf reads the lower triangle only, as TensorFlow's Cholesky does,
      // and leaves the upper one, which the result has as zeros.
      std::copy(in + b * n * n, in + (b + 1) * n * n, l);
      if (lapack::Potrf(n, l) != 0) return false;
      for (int64_t i = 0; i < n; ++i) std::fill(l + i * n + i + 1, l + (i + 1) * n, T(0));
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
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}, {n, k}}));
    // Batch dims broadcast as matmul's do (Note [Broadcast plan]).
    const BroadcastPlan batches = MakeBroadcastPlan(linalg::BatchShape(matrix.shape()),
                                                    linalg::BatchShape(rhs.shape()), linalg::BatchShape(out.shape()));
    const T* a_data = matrix.data<T>();
    const T* b_data = rhs.data<T>();
    T* dst = out.data<T>();
    std::atomic<bool> ok{true};
    ParallelFor(ctx, batches.num_elements, DecompositionCycles(n, k) / 10, [&](int64_t first, int64_t last) {
      ForEachBroadcastElement(batches, first, last, [&](int64_t b, int64_t a_index, int64_t b_index) {
        const T* a = a_data + a_index * n * n;
        // A zero (or NaN) on the diagonal: singular, as TensorFlow tests.
        for (int64_t i = 0; i < n; ++i) {
          if (!(std::abs(a[i * n + i]) > Real<T>(0))) {
            ok.store(false, std::memory_order_relaxed);
            return;
          }
        }
        T* x = dst + b * n * k;
        std::copy(b_data + b_index * n * k, b_data + (b_index + 1) * n * k, x);
        lapack::Trsm(lower_, adjoint_, n, k, a, x);
      });
    });
    return ok.load() ? Status::OK() : InvalidArgument("Input matrix is not invertible.");
  }

 private:
  bool lower_, adjoint_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCholeskyKernels(KernelRegistry& r) {
  RegisterForTypeSet<CholeskyKernel>(r, "cholesky", type_sets::Linalg{});
  RegisterForTypeSet<TriangularSolveKernel>(r, "matrix_triangular_solve", type_sets::Linalg{});
}

}  // namespace ember::cpu
