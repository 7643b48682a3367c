// This file implements the LAPACK overloads of lapack.h on OpenBLAS's
// LAPACKE (Note [LAPACK for decompositions]).
#include "kernels/cpu/lapack.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "kernels/cpu/openblas.h"

namespace ember::cpu::lapack {
namespace {

constexpr int kRowMajor = LAPACK_ROW_MAJOR;

// Sizes were checked by CheckSizes before any call (the kernels call it
// on each input's shape), so the narrowing here cannot wrap.
lapack_int I(int64_t d) { return static_cast<lapack_int>(d); }
// A leading dimension: LAPACKE rejects 0 even for an empty matrix.
lapack_int Ld(int64_t d) { return static_cast<lapack_int>(std::max<int64_t>(d, 1)); }

// std::complex<float> has the layout of LAPACK's complex float, whichever
// type the headers chose for it.
lapack_complex_float* Z(Complex* p) { return reinterpret_cast<lapack_complex_float*>(p); }
const lapack_complex_float* Z(const Complex* p) { return reinterpret_cast<const lapack_complex_float*>(p); }

CBLAS_UPLO Uplo(bool lower) { return lower ? CblasLower : CblasUpper; }
CBLAS_TRANSPOSE Adjoint(bool adjoint) { return adjoint ? CblasConjTrans : CblasNoTrans; }

// Loaded: every kernel calls CheckSizes, which loads the library, first.
const OpenBlasFunctions& Api() { return *OpenBlas(); }

}  // namespace

Status CheckSizes(std::initializer_list<MatrixSize> matrices) {
  if (OpenBlas() == nullptr) return FailedPrecondition(OpenBlasError());
  constexpr int64_t kMax = std::numeric_limits<lapack_int>::max();
  for (const MatrixSize& m : matrices) {
    if (m.rows > kMax || m.cols > kMax || (m.cols > 0 && m.rows > kMax / m.cols)) {
      return InvalidArgument("a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                             " matrix exceeds LAPACK's 32-bit sizes (2^31 - 1 elements)");
    }
  }
  return Status::OK();
}

int Getrf(int64_t n, float* a, int32_t* p) { return Api().scipy_LAPACKE_sgetrf(kRowMajor, I(n), I(n), a, Ld(n), p); }
int Getrf(int64_t n, double* a, int32_t* p) { return Api().scipy_LAPACKE_dgetrf(kRowMajor, I(n), I(n), a, Ld(n), p); }
int Getrf(int64_t n, Complex* a, int32_t* p) { return Api().scipy_LAPACKE_cgetrf(kRowMajor, I(n), I(n), Z(a), Ld(n), p); }

int Getri(int64_t n, float* a, const int32_t* p) { return Api().scipy_LAPACKE_sgetri(kRowMajor, I(n), a, Ld(n), p); }
int Getri(int64_t n, double* a, const int32_t* p) { return Api().scipy_LAPACKE_dgetri(kRowMajor, I(n), a, Ld(n), p); }
int Getri(int64_t n, Complex* a, const int32_t* p) { return Api().scipy_LAPACKE_cgetri(kRowMajor, I(n), Z(a), Ld(n), p); }

int Getrs(int64_t n, int64_t k, const float* lu, const int32_t* p, float* b) {
  return Api().scipy_LAPACKE_sgetrs(kRowMajor, 'N', I(n), I(k), lu, Ld(n), p, b, Ld(k));
}
int Getrs(int64_t n, int64_t k, const double* lu, const int32_t* p, double* b) {
  return Api().scipy_LAPACKE_dgetrs(kRowMajor, 'N', I(n), I(k), lu, Ld(n), p, b, Ld(k));
}
int Getrs(int64_t n, int64_t k, const Complex* lu, const int32_t* p, Complex* b) {
  return Api().scipy_LAPACKE_cgetrs(kRowMajor, 'N', I(n), I(k), Z(lu), Ld(n), p, Z(b), Ld(k));
}

int Potrf(int64_t n, float* a) { return Api().scipy_LAPACKE_spotrf(kRowMajor, 'L', I(n), a, Ld(n)); }
int Potrf(int64_t n, double* a) { return Api().scipy_LAPACKE_dpotrf(kRowMajor, 'L', I(n), a, Ld(n)); }
int Potrf(int64_t n, Complex* a) { return Api().scipy_LAPACKE_cpotrf(kRowMajor, 'L', I(n), Z(a), Ld(n)); }

int Potrs(int64_t n, int64_t k, const float* l, float* b) {
  return Api().scipy_LAPACKE_spotrs(kRowMajor, 'L', I(n), I(k), l, Ld(n), b, Ld(k));
}
int Potrs(int64_t n, int64_t k, const double* l, double* b) {
  return Api().scipy_LAPACKE_dpotrs(kRowMajor, 'L', I(n), I(k), l, Ld(n), b, Ld(k));
}
int Potrs(int64_t n, int64_t k, const Complex* l, Complex* b) {
  return Api().scipy_LAPACKE_cpotrs(kRowMajor, 'L', I(n), I(k), Z(l), Ld(n), Z(b), Ld(k));
}

void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const float* a, float* b) {
  Api().scipy_cblas_strsm(CblasRowMajor, CblasLeft, Uplo(lower), Adjoint(adjoint), CblasNonUnit, I(n), I(k), 1.0f, a, Ld(n),
                    b, Ld(k));
}
void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const double* a, double* b) {
  Api().scipy_cblas_dtrsm(CblasRowMajor, CblasLeft, Uplo(lower), Adjoint(adjoint), CblasNonUnit, I(n), I(k), 1.0, a, Ld(n),
                    b, Ld(k));
}
void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const Complex* a, Complex* b) {
  const Complex one(1.0f);
  Api().scipy_cblas_ctrsm(CblasRowMajor, CblasLeft, Uplo(lower), Adjoint(adjoint), CblasNonUnit, I(n), I(k), &one, a, Ld(n),
                    b, Ld(k));
}

// Leading dimensions of op(x) stored row-major: its stored column count.
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const float* a, const float* b, float* c) {
  Api().scipy_cblas_sgemm(CblasRowMajor, Adjoint(adjoint_a), Adjoint(adjoint_b), I(m), I(n), I(kk), 1.0f, a,
                    Ld(adjoint_a ? m : kk), b, Ld(adjoint_b ? kk : n), 0.0f, c, Ld(n));
}
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const double* a, const double* b,
          double* c) {
  Api().scipy_cblas_dgemm(CblasRowMajor, Adjoint(adjoint_a), Adjoint(adjoint_b), I(m), I(n), I(kk), 1.0, a,
                    Ld(adjoint_a ? m : kk), b, Ld(adjoint_b ? kk : n), 0.0, c, Ld(n));
}
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const Complex* a, const Complex* b,
          Complex* c) {
  const Complex one(1.0f), zero(0.0f);
  Api().scipy_cblas_cgemm(CblasRowMajor, Adjoint(adjoint_a), Adjoint(adjoint_b), I(m), I(n), I(kk), &one, a,
                    Ld(adjoint_a ? m : kk), b, Ld(adjoint_b ? kk : n), &zero, c, Ld(n));
}

int Geqrf(int64_t m, int64_t n, float* a, float* tau) { return Api().scipy_LAPACKE_sgeqrf(kRowMajor, I(m), I(n), a, Ld(n), tau); }
int Geqrf(int64_t m, int64_t n, double* a, double* tau) {
  return Api().scipy_LAPACKE_dgeqrf(kRowMajor, I(m), I(n), a, Ld(n), tau);
}
int Geqrf(int64_t m, int64_t n, Complex* a, Complex* tau) {
  return Api().scipy_LAPACKE_cgeqrf(kRowMajor, I(m), I(n), Z(a), Ld(n), Z(tau));
}

int Orgqr(int64_t m, int64_t cols, int64_t reflectors, float* q, const float* tau) {
  return Api().scipy_LAPACKE_sorgqr(kRowMajor, I(m), I(cols), I(reflectors), q, Ld(cols), tau);
}
int Orgqr(int64_t m, int64_t cols, int64_t reflectors, double* q, const double* tau) {
  return Api().scipy_LAPACKE_dorgqr(kRowMajor, I(m), I(cols), I(reflectors), q, Ld(cols), tau);
}
int Orgqr(int64_t m, int64_t cols, int64_t reflectors, Complex* q, const Complex* tau) {
  return Api().scipy_LAPACKE_cungqr(kRowMajor, I(m), I(cols), I(reflectors), Z(q), Ld(cols), Z(tau));
}

int Gesdd(char jobz, int64_t m, int64_t n, float* a, float* s, float* u, int64_t ldu, float* vt, int64_t ldvt) {
  return Api().scipy_LAPACKE_sgesdd(kRowMajor, jobz, I(m), I(n), a, Ld(n), s, u, Ld(ldu), vt, Ld(ldvt));
}
int Gesdd(char jobz, int64_t m, int64_t n, double* a, double* s, double* u, int64_t ldu, double* vt, int64_t ldvt) {
  return Api().scipy_LAPACKE_dgesdd(kRowMajor, jobz, I(m), I(n), a, Ld(n), s, u, Ld(ldu), vt, Ld(ldvt));
}
int Gesdd(char jobz, int64_t m, int64_t n, Complex* a, float* s, Complex* u, int64_t ldu, Complex* vt, int64_t ldvt) {
  return Api().scipy_LAPACKE_cgesdd(kRowMajor, jobz, I(m), I(n), Z(a), Ld(n), s, Z(u), Ld(ldu), Z(vt), Ld(ldvt));
}

int Heevd(bool vectors, int64_t n, float* a, float* w) {
  return Api().scipy_LAPACKE_ssyevd(kRowMajor, vectors ? 'V' : 'N', 'L', I(n), a, Ld(n), w);
}
int Heevd(bool vectors, int64_t n, double* a, double* w) {
  return Api().scipy_LAPACKE_dsyevd(kRowMajor, vectors ? 'V' : 'N', 'L', I(n), a, Ld(n), w);
}
int Heevd(bool vectors, int64_t n, Complex* a, float* w) {
  return Api().scipy_LAPACKE_cheevd(kRowMajor, vectors ? 'V' : 'N', 'L', I(n), Z(a), Ld(n), w);
}

// gelsd writes the singular values to s; the kernels do not need them.
int Gelsd(int64_t m, int64_t n, int64_t k, float* a, float* b, double rcond) {
  std::vector<float> s(static_cast<size_t>(std::max<int64_t>(std::min(m, n), 1)));
  lapack_int rank = 0;
  return Api().scipy_LAPACKE_sgelsd(kRowMajor, I(m), I(n), I(k), a, Ld(n), b, Ld(k), s.data(), static_cast<float>(rcond),
                              &rank);
}
int Gelsd(int64_t m, int64_t n, int64_t k, double* a, double* b, double rcond) {
  std::vector<double> s(static_cast<size_t>(std::max<int64_t>(std::min(m, n), 1)));
  lapack_int rank = 0;
  return Api().scipy_LAPACKE_dgelsd(kRowMajor, I(m), I(n), I(k), a, Ld(n), b, Ld(k), s.data(), rcond, &rank);
}
int Gelsd(int64_t m, int64_t n, int64_t k, Complex* a, Complex* b, double rcond) {
  std::vector<float> s(static_cast<size_t>(std::max<int64_t>(std::min(m, n), 1)));
  lapack_int rank = 0;
  return Api().scipy_LAPACKE_cgelsd(kRowMajor, I(m), I(n), I(k), Z(a), Ld(n), Z(b), Ld(k), s.data(), static_cast<float>(rcond),
                              &rank);
}

}  // namespace ember::cpu::lapack
