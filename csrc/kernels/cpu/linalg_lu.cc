// This file implements the CPU kernels built on an LU decomposition with
// partial pivoting: matrix_inverse, matrix_determinant,
// log_matrix_determinant and matrix_solve.
#include <cmath>
#include <complex>
#include <limits>

#include <Eigen/LU>

#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Matrix;
using linalg::MatrixAt;
using linalg::Real;

// TensorFlow's test: a zero (or NaN) pivot means singular; tiny ones pass.
template <typename T>
bool HasNonzeroPivots(const Eigen::PartialPivLU<Matrix<T>>& lu) {
  return lu.matrixLU().diagonal().cwiseAbs().minCoeff() > Real<T>(0);
}

// Attr 0: adjoint (by index: Note [Pending op definitions] in sort.cc).
template <typename T>
class MatrixInverseKernel final : public OpKernel {
 public:
  explicit MatrixInverseKernel(const KernelInit& init) : adjoint_(init.attrs[0].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    const int64_t n = linalg::Rows(out.shape());
    if (out.NumElements() == 0) return Status::OK();
    const T* in = ctx.input(0).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * n), DecompositionCycles(n, n), [&](int64_t b) {
      Matrix<T> a = MatrixAt(in, b, n, n);
      if (adjoint_) a.adjointInPlace();
      const Eigen::PartialPivLU<Matrix<T>> lu(a);
      if (!HasNonzeroPivots(lu)) return false;
      MatrixAt(dst, b, n, n) = lu.inverse();
      return true;
    });
    return ok ? Status::OK() : InvalidArgument("Input is not invertible.");
  }

 private:
  bool adjoint_;
};

// The sign and log |det| of each matrix; `store(b, sign, log_abs)` keeps them.
template <typename T, typename Store>
void SignAndLogAbsDet(KernelContext& ctx, int64_t count, const Store& store) {
  const Tensor& input = ctx.input(0);
  const int64_t n = linalg::Rows(input.shape());
  const T* in = input.data<T>();
  ForEachMatrix(ctx, count, DecompositionCycles(n, n), [&](int64_t b) {
    if (n == 0) {  // the empty product: det = 1
      store(b, T(1), Real<T>(0));
      return true;
    }
    const Eigen::PartialPivLU<Matrix<T>> lu(Matrix<T>(MatrixAt(in, b, n, n)));
    T sign = T(lu.permutationP().determinant());
    Real<T> log_abs = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T d = lu.matrixLU()(i, i);
      const Real<T> magnitude = std::abs(d);
      if (magnitude == Real<T>(0)) {
        store(b, T(0), -std::numeric_limits<Real<T>>::infinity());
        return true;
      }
      sign *= d / magnitude;
      log_abs += std::log(magnitude);
    }
    store(b, sign, log_abs);
    return true;
  });
}

template <typename T>
class MatrixDeterminantKernel final : public OpKernel {
 public:
  explicit MatrixDeterminantKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    T* out = ctx.output(0).data<T>();
    const int64_t n = linalg::Rows(input.shape());
    const T* in = input.data<T>();
    ForEachMatrix(ctx, ctx.output(0).NumElements(), DecompositionCycles(n, n), [&](int64_t b) {
      out[b] = n == 0 ? T(1) : Eigen::PartialPivLU<Matrix<T>>(Matrix<T>(MatrixAt(in, b, n, n))).determinant();
      return true;
    });
    return Status::OK();
  }
};

template <typename T>
class LogMatrixDeterminantKernel final : public OpKernel {
 public:
  explicit LogMatrixDeterminantKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    T* sign = ctx.output(0).data<T>();
    T* log_abs = ctx.output(1).data<T>();
    SignAndLogAbsDet<T>(ctx, ctx.output(0).NumElements(), [&](int64_t b, T s, Real<T> l) {
      sign[b] = s;
      log_abs[b] = T(l);
    });
    return Status::OK();
  }
};

// Attr 0: adjoint.
template <typename T>
class MatrixSolveKernel final : public OpKernel {
 public:
  explicit MatrixSolveKernel(const KernelInit& init) : adjoint_(init.attrs[0].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(out.shape()), k = linalg::Cols(out.shape());
    const T* matrix = ctx.input(0).data<T>();
    const T* rhs = ctx.input(1).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * k), DecompositionCycles(n, n + k), [&](int64_t b) {
      Matrix<T> a = MatrixAt(matrix, b, n, n);
      if (adjoint_) a.adjointInPlace();
      const Eigen::PartialPivLU<Matrix<T>> lu(a);
      if (!HasNonzeroPivots(lu)) return false;
      MatrixAt(dst, b, n, k) = lu.solve(Matrix<T>(MatrixAt(rhs, b, n, k)));
      return true;
    });
    return ok ? Status::OK() : InvalidArgument("Input matrix is not invertible.");
  }

 private:
  bool adjoint_;
};

}  // namespace

void RegisterLuKernels(KernelRegistry& r) {
  RegisterForTypeSet<MatrixInverseKernel>(r, "matrix_inverse", type_sets::Linalg{});
  RegisterForTypeSet<MatrixDeterminantKernel>(r, "matrix_determinant", type_sets::Linalg{});
  RegisterForTypeSet<LogMatrixDeterminantKernel>(r, "log_matrix_determinant", type_sets::Linalg{});
  RegisterForTypeSet<MatrixSolveKernel>(r, "matrix_solve", type_sets::Linalg{});
}

}  // namespace ember::cpu
