// This file implements the self_adjoint_eig CPU kernel (Eigen's
// SelfAdjointEigenSolver): eigenvalues ascending, eigenvectors as columns.
#include <Eigen/Eigenvalues>

#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::Matrix;
using linalg::MatrixAt;

// Attr 0: compute_v (by index: Note [Pending op definitions] in sort.cc).
template <typename T>
class SelfAdjointEigKernel final : public OpKernel {
 public:
  explicit SelfAdjointEigKernel(const KernelInit& init) : compute_v_(init.attrs[0].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& e_out = ctx.output(0);
    if (e_out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(ctx.input(0).shape());
    const T* in = ctx.input(0).data<T>();
    T* e = e_out.data<T>();
    T* v = ctx.output(1).data<T>();
    const int options = compute_v_ ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly;
    const bool ok = linalg::ForEachMatrix(ctx, e_out.NumElements() / n, linalg::DecompositionCycles(n, n) * 2,
                                          [&](int64_t b) {
      // The solver reads the lower triangle; only it must be finite.
      const Matrix<T> lower = MatrixAt(in, b, n, n).template triangularView<Eigen::Lower>().toDenseMatrix();
      if (!lower.allFinite()) return false;
      const Eigen::SelfAdjointEigenSolver<Matrix<T>> solver(lower, options);
      if (solver.info() != Eigen::Success) return false;
      Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(e + b * n, n) = solver.eigenvalues().template cast<T>();
      if (compute_v_) MatrixAt(v, b, n, n) = solver.eigenvectors();
      return true;
    });
    return ok ? Status::OK()
              : InvalidArgument("Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  }

 private:
  bool compute_v_;
};

}  // namespace

void RegisterEighKernels(KernelRegistry& r) {
  RegisterForTypeSet<SelfAdjointEigKernel>(r, "self_adjoint_eig", type_sets::Linalg{});
}

}  // namespace ember::cpu
