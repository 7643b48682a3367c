// This file declares the LAPACK routines the matrix decomposition kernels
// (linalg_*.cc) call, from OpenBLAS in the scipy-openblas32 wheel, as
// overloads over float, double and complex64 (the linalg type set).
//
// Note [LAPACK for decompositions]
// The decompositions (LU, Cholesky, QR, least squares, eigh, SVD) call
// LAPACK through its C interface, LAPACKE, in row-major mode, so that
// tensors are passed as they lie; LAPACKE transposes to and from LAPACK's
// column-major layout itself. Before this they were Eigen's templates,
// which cost a quarter of the C++ build's compile time (and as much again
// in the sanitizer build). Measured against them on 2 cores, float32: SVD
// of 256x256 2.1x faster, Cholesky of 512x512 1.6x, eigh of 256x256 1.2x;
// inverse of 256x256 and QR of 512x256 within 10%; a batch of 1,000 3x3
// SVDs 3.2x slower (2.5 us each: LAPACKE's workspace query and transposes,
// where Eigen used a Jacobi SVD inlined for the small size; NumPy takes
// 1.9 us). LAPACK here is 32-bit: a matrix
// whose dimensions or element count exceed int32 gets an error from
// CheckSizes, never a wrapped index. LAPACKE's own NaN scan is switched
// off (when the library loads: openblas.cc): a NaN is a value the kernels give meaning to (NaN
// singular values, a NaN determinant), not an argument error.
#pragma once

#include <complex>
#include <cstdint>
#include <initializer_list>

#include "core/status.h"

namespace ember::cpu::lapack {

using Complex = std::complex<float>;

// Checks that each {rows, cols} matrix a kernel hands to LAPACK (inputs,
// outputs and work copies) fits LAPACK's 32-bit dimensions: both sides
// and the element count within int32. Also loads OpenBLAS (Note [OpenBLAS
// on first use]), failing with the reason where it cannot be loaded.
struct MatrixSize {
  int64_t rows, cols;
};
Status CheckSizes(std::initializer_list<MatrixSize> matrices);

// Each returns LAPACK's info: 0 on success, > 0 for a numerical failure
// (a zero pivot, a matrix that is not positive definite, no convergence).
// Matrices are row-major with leading dimension = their column count
// unless a parameter says otherwise.

// LU with partial pivoting of an n x n matrix, in place; pivots 1-based.
int Getrf(int64_t n, float* a, int32_t* pivots);
int Getrf(int64_t n, double* a, int32_t* pivots);
int Getrf(int64_t n, Complex* a, int32_t* pivots);

// The inverse from Getrf's factors, in place.
int Getri(int64_t n, float* a, const int32_t* pivots);
int Getri(int64_t n, double* a, const int32_t* pivots);
int Getri(int64_t n, Complex* a, const int32_t* pivots);

// Solves A x = b (n x k) from Getrf's factors, in place in b.
int Getrs(int64_t n, int64_t k, const float* lu, const int32_t* pivots, float* b);
int Getrs(int64_t n, int64_t k, const double* lu, const int32_t* pivots, double* b);
int Getrs(int64_t n, int64_t k, const Complex* lu, const int32_t* pivots, Complex* b);

// Cholesky: A = L L^H from the lower triangle, in place (the upper
// triangle is left as it was).
int Potrf(int64_t n, float* a);
int Potrf(int64_t n, double* a);
int Potrf(int64_t n, Complex* a);

// Solves L L^H x = b (n x k) from Potrf's factor, in place in b.
int Potrs(int64_t n, int64_t k, const float* l, float* b);
int Potrs(int64_t n, int64_t k, const double* l, double* b);
int Potrs(int64_t n, int64_t k, const Complex* l, Complex* b);

// Solves op(A) x = b for triangular n x n A, b n x k, in place in b.
void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const float* a, float* b);
void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const double* a, double* b);
void Trsm(bool lower, bool adjoint, int64_t n, int64_t k, const Complex* a, Complex* b);

// c (m x n) = op(a) op(b), op the adjoint when asked; a is m x kk (or
// kk x m when adjoint), b is kk x n (or n x kk).
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const float* a, const float* b, float* c);
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const double* a, const double* b,
          double* c);
void Gemm(bool adjoint_a, bool adjoint_b, int64_t m, int64_t n, int64_t kk, const Complex* a, const Complex* b,
          Complex* c);

// Householder QR of an m x n matrix in place, min(m, n) reflectors in tau.
int Geqrf(int64_t m, int64_t n, float* a, float* tau);
int Geqrf(int64_t m, int64_t n, double* a, double* tau);
int Geqrf(int64_t m, int64_t n, Complex* a, Complex* tau);

// The first `cols` columns of Q from `reflectors` Householder vectors in
// the m x cols matrix q (Geqrf's output, widened), in place.
int Orgqr(int64_t m, int64_t cols, int64_t reflectors, float* q, const float* tau);
int Orgqr(int64_t m, int64_t cols, int64_t reflectors, double* q, const double* tau);
int Orgqr(int64_t m, int64_t cols, int64_t reflectors, Complex* q, const Complex* tau);

// The SVD of an m x n matrix (destroyed) by divide and conquer: jobz 'N'
// (values only), 'S' (thin u, vt) or 'A' (full); vt is V^H. Singular
// values are real, descending.
int Gesdd(char jobz, int64_t m, int64_t n, float* a, float* s, float* u, int64_t ldu, float* vt, int64_t ldvt);
int Gesdd(char jobz, int64_t m, int64_t n, double* a, double* s, double* u, int64_t ldu, double* vt, int64_t ldvt);
int Gesdd(char jobz, int64_t m, int64_t n, Complex* a, float* s, Complex* u, int64_t ldu, Complex* vt, int64_t ldvt);

// Eigenvalues (real, ascending) and, with vectors, eigenvectors in a's
// columns, of a self-adjoint n x n matrix given by its lower triangle.
int Heevd(bool vectors, int64_t n, float* a, float* w);
int Heevd(bool vectors, int64_t n, double* a, double* w);
int Heevd(bool vectors, int64_t n, Complex* a, float* w);

// The minimum-norm least-squares solution of A x = b by the SVD, singular
// values below rcond * the largest treated as zero. a is m x n (destroyed),
// b is max(m, n) x k with the right-hand sides in its first m rows and the
// solution left in its first n.
int Gelsd(int64_t m, int64_t n, int64_t k, float* a, float* b, double rcond);
int Gelsd(int64_t m, int64_t n, int64_t k, double* a, double* b, double rcond);
int Gelsd(int64_t m, int64_t n, int64_t k, Complex* a, Complex* b, double rcond);

}  // namespace ember::cpu::lapack
