// This file declares the optional BLAS GEMM (OpenBLAS from the
// scipy-openblas32 wheel when built with EMBER_WITH_OPENBLAS) and what the
// build reports about it.
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

namespace ember::cpu {

// Note [BLAS GEMM]
// float32, float64 and complex64 products at least kBlasMinVolume
// (m * n * k) go to OpenBLAS's GEMM (float32 ones after the packed kernel
// has declined them: Note [Packed float32 GEMM]); smaller ones stay on Eigen, whose
// inlined small-product code is faster below about 16x16x16. OpenBLAS runs
// single-threaded on the calling thread: parallelism comes from Ember's
// intra-op pool, which splits one product into tiles (ParallelMatmul in
// matmul_gemm.h), so the pool's thread count is the only one that matters
// and no second set of spinning BLAS threads competes with it.
inline constexpr int64_t kBlasMinVolume = 16 * 16 * 16;

#ifdef EMBER_WITH_OPENBLAS
inline constexpr bool kHaveBlas = true;
#else
inline constexpr bool kHaveBlas = false;
#endif

template <typename T>
inline constexpr bool kBlasType = kHaveBlas && (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                                std::is_same_v<T, std::complex<float>>);

// Whether BLAS can take a product: the build has it and the library loads
// (Note [OpenBLAS on first use] in openblas.h; the first call loads it).
bool BlasAvailable();

// c = op(a) * op(b), row-major, with leading dimensions; op transposes when
// the flag is set. Defined only for the kBlasType types of a build with BLAS,
// and called only once BlasAvailable() said yes.
template <typename T>
void BlasGemm(bool transpose_a, bool transpose_b, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda,
              const T* b, int64_t ldb, T* c, int64_t ldc);

struct BlasInfo {
  std::string library;  // "OpenBLAS" or "Eigen" (no BLAS in the build, or it failed to load)
  std::string version;  // OpenBLAS's own version string, or Eigen's
  std::string config;   // OpenBLAS's build configuration (kernel, threading)
  int threads;          // threads BLAS itself uses per call
};
BlasInfo GetBlasInfo();  // loads OpenBLAS

// Whether OpenBLAS has been loaded (never loads it; false without BLAS).
bool OpenBlasLoaded();

// A directory to search for OpenBLAS (Note [OpenBLAS on first use] in
// openblas.h); ember/__init__.py passes the scipy-openblas32 package's.
// Ignored without BLAS.
void SetOpenBlasDirectory(std::string directory);

// "3.4.0": the Eigen headers this build compiled against.
std::string EigenVersion();

}  // namespace ember::cpu
