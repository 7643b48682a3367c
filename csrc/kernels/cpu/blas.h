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
// A narrow float32 product (fewer than 64 columns or 16 of depth, which
// the packed kernel declines: Note [Packed float32 GEMM]) goes to BLAS
// only from this volume: below it Eigen takes it, so that a small model's
// training step (its last layer, say 512 -> 10) never loads OpenBLAS (Note
// [OpenBLAS on first use]). Measured on the 2-core Xeon, sync, Eigen
// against OpenBLAS: [64,512]x[512,10] 10.1 vs 8.5 us, [64,10]x[10,512]
// 12.1 vs 12.2 us, [512,64]^T x [64,10] 12.8 vs 6.4 us. Products with few
// rows (an MLP at batch 1) stay on OpenBLAS: on Eigen, batch 1 took 14%
// longer.
inline constexpr int64_t kFloatNarrowBlasMinVolume = int64_t{1} << 20;

// Whether BlasGemm takes a (rows x k) x (k x cols) product of T.
template <typename T>
constexpr bool BlasTakes(int64_t rows, int64_t cols, int64_t k) {
  const int64_t volume = rows * cols * k;
  if (volume < kBlasMinVolume) return false;
  if constexpr (std::is_same_v<T, float>) {
    const bool narrow = cols < 64 || k < 16;
    return !narrow || volume >= kFloatNarrowBlasMinVolume;
  }
  return true;
}

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
