// This file implements BlasGemm on OpenBLAS (a build with
// EMBER_WITH_OPENBLAS, loaded on first use: openblas.h) and the BLAS build
// report.
#include "kernels/cpu/blas.h"

#include <limits>
#include <stdexcept>

#include "kernels/cpu/eigen.h"

#include "kernels/cpu/openblas.h"

namespace ember::cpu {

#ifdef EMBER_WITH_OPENBLAS
namespace {

// OpenBLAS from the wheel takes 32-bit dimensions (the "32" of
// scipy-openblas32); larger products are split by the callers' tiles long
// before this, but a single huge dimension must not wrap silently.
blasint Dim(int64_t d) {
  if (d > std::numeric_limits<blasint>::max()) throw std::length_error("GEMM dimension exceeds OpenBLAS's 32-bit range");
  return static_cast<blasint>(d);
}

CBLAS_TRANSPOSE Op(bool transpose) { return transpose ? CblasTrans : CblasNoTrans; }

}  // namespace

template <>
void BlasGemm<float>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                     int64_t ldb, float* c, int64_t ldc) {
  OpenBlas()->scipy_cblas_sgemm(CblasRowMajor, Op(ta), Op(tb), Dim(m), Dim(n), Dim(k), 1.0f, a, Dim(lda), b, Dim(ldb), 0.0f, c,
                    Dim(ldc));
}

template <>
void BlasGemm<double>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const double* a, int64_t lda,
                      const double* b, int64_t ldb, double* c, int64_t ldc) {
  OpenBlas()->scipy_cblas_dgemm(CblasRowMajor, Op(ta), Op(tb), Dim(m), Dim(n), Dim(k), 1.0, a, Dim(lda), b, Dim(ldb), 0.0, c,
                    Dim(ldc));
}

template <>
void BlasGemm<std::complex<float>>(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const std::complex<float>* a,
                                   int64_t lda, const std::complex<float>* b, int64_t ldb, std::complex<float>* c,
                                   int64_t ldc) {
  const std::complex<float> one(1.0f), zero(0.0f);
  OpenBlas()->scipy_cblas_cgemm(CblasRowMajor, Op(ta), Op(tb), Dim(m), Dim(n), Dim(k), &one, a, Dim(lda), b, Dim(ldb), &zero, c,
                    Dim(ldc));
}

bool BlasAvailable() { return OpenBlas() != nullptr; }

BlasInfo GetBlasInfo() {
  const OpenBlasFunctions* blas = OpenBlas();
  if (blas == nullptr) return BlasInfo{"Eigen", EigenVersion(), OpenBlasError(), 1};
  // get_config() reads "OpenBLAS 0.3.x DYNAMIC_ARCH NO_AFFINITY SkylakeX
  // MAX_THREADS=64": the version is its second word.
  const std::string config = blas->scipy_openblas_get_config();
  std::string version = EMBER_OPENBLAS_WHEEL_VERSION;
  const size_t space = config.find(' ');
  if (space != std::string::npos) version = config.substr(space + 1, config.find(' ', space + 1) - space - 1);
  return BlasInfo{"OpenBLAS", version, config, blas->scipy_openblas_get_num_threads()};
}

#else

bool BlasAvailable() { return false; }
bool OpenBlasLoaded() { return false; }
void SetOpenBlasDirectory(std::string) {}

BlasInfo GetBlasInfo() { return BlasInfo{"Eigen", EigenVersion(), "", 1}; }

#endif

std::string EigenVersion() {
  return std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
         std::to_string(EIGEN_MINOR_VERSION);
}

}  // namespace ember::cpu
