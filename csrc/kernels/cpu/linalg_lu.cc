// This file implements the CPU kernels built on an LU decomposition with
// partial pivoting (LAPACK's getrf): matrix_inverse, matrix_determinant,
// log_matrix_determinant and matrix_solve.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Real;

// TensorFlow's test: a zero (or NaN) pivot means singular; tiny ones pass.
template <typename T>
bool HasNonzeroPivots(const T* lu, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!(std::abs(lu[i * n + i]) > Real<T>(0))) return false;
  }
  return true;
}

// a = matrix b of `in`, or its adjoint.
template <typename T>
void LoadMatrix(const T* in, int64_t b, int64_t n, bool adjoint, T* a) {
  const T* src = in + b * n * n;
  if (adjoint) {
    linalg::Transpose(src, n, n, /*conjugate=*/true, a);
  } else {
    std::copy(src, src + n * n, a);
  }
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
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}}));
    const T* in = ctx.input(0).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * n), DecompositionCycles(n, n), [&](int64_t b) {
      T* a = dst + b * n * n;
      LoadMatrix(in, b, n, adjoint_, a);
      std::vector<int32_t> pivots(n);
      lapack::Getrf(n, a, pivots.data());
      if (!HasNonzeroPivots(a, n)) return false;
      return lapack::Getri(n, a, pivots.data()) == 0;
    });
    return ok ? Status::OK() : InvalidArgument("Input is not invertible.");
  }

 private:
  bool adjoint_;
};

// The sign and log |det| of each matrix; `store(b, sign, log_abs)` keeps them.
template <typename T, typename Store>
Status SignAndLogAbsDet(KernelContext& ctx, int64_t count, const Store& store) {
  const Tensor& input = ctx.input(0);
  const int64_t n = linalg::Rows(input.shape());
  EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}}));
  const T* in = input.data<T>();
  ForEachMatrix(ctx, count, DecompositionCycles(n, n), [&](int64_t b) {
    if (n == 0) {  // the empty product: det = 1
      store(b, T(1), Real<T>(0));
      return true;
    }
    std::vector<T> lu(in + b * n * n, in + (b + 1) * n * n);
    std::vector<int32_t> pivots(n);
    lapack::Getrf(n, lu.data(), pivots.data());  // a zero pivot shows in the loop below
    T sign(1);
    Real<T> log_abs = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (pivots[i] != i + 1) sign = -sign;  // each row swap flips the sign
      const T d = lu[i * n + i];
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
  return Status::OK();
}

template <typename T>
class MatrixDeterminantKernel final : public OpKernel {
 public:
  explicit MatrixDeterminantKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    T* out = ctx.output(0).data<T>();
    const int64_t n = linalg::Rows(input.shape());
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}}));
    const T* in = input.data<T>();
    ForEachMatrix(ctx, ctx.output(0).NumElements(), DecompositionCycles(n, n), [&](int64_t b) {
      std::vector<T> lu(in + b * n * n, in + (b + 1) * n * n);
      std::vector<int32_t> pivots(n);
      if (n > 0) lapack::Getrf(n, lu.data(), pivots.data());
      // The product of U's diagonal, negated for each row swap (the empty
      // product of a 0 x 0 matrix is 1).
      T det(1);
      for (int64_t i = 0; i < n; ++i) det *= pivots[i] != i + 1 ? -lu[i * n + i] : lu[i * n + i];
      out[b] = det;
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
    return SignAndLogAbsDet<T>(ctx, ctx.output(0).NumElements(),
                               [&](int64_t b, T s, Real<T> l) {
                                 sign[b] = s;
                                 log_abs[b] = T(l);
                               });
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
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}, {n, k}}));
    const T* matrix = ctx.input(0).data<T>();
    const T* rhs = ctx.input(1).data<T>();
    T* dst = out.data<T>();
    const bool ok = ForEachMatrix(ctx, out.NumElements() / (n * k), DecompositionCycles(n, n + k), [&](int64_t b) {
      std::vector<T> a(n * n);
      LoadMatrix(matrix, b, n, adjoint_, a.data());
      std::vector<int32_t> pivots(n);
      lapack::Getrf(n, a.data(), pivots.data());
      if (!HasNonzeroPivots(a.data(), n)) return false;
      T* x = dst + b * n * k;
      std::copy(rhs + b * n * k, rhs + (b + 1) * n * k, x);
      return lapack::Getrs(n, k, a.data(), pivots.data(), x) == 0;
    });
    return ok ? Status::OK() : InvalidArgument("Input matrix is not invertible.");
  }

 private:
  bool adjoint_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterLuKernels(KernelRegistry& r) {
  RegisterForTypeSet<MatrixInverseKernel>(r, "matrix_inverse", type_sets::Linalg{});
  RegisterForTypeSet<MatrixDeterminantKernel>(r, "matrix_determinant", type_sets::Linalg{});
  RegisterForTypeSet<LogMatrixDeterminantKernel>(r, "log_matrix_determinant", type_sets::Linalg{});
  RegisterForTypeSet<MatrixSolveKernel>(r, "matrix_solve", type_sets::Linalg{});
}

}  // namespace ember::cpu
