// This file declares OpenBlas(): the OpenBLAS functions Ember calls, loaded
// from the scipy-openblas32 wheel's library on first use (a build with
// EMBER_WITH_OPENBLAS only).
#pragma once

#ifdef EMBER_WITH_OPENBLAS

#include <string>

#include "cblas.h"
#include "lapacke.h"

namespace ember::cpu {

// Note [OpenBLAS on first use]
// Linked, OpenBLAS was loaded with `import ember`: its relocations and
// start-up made 1 MiB of every process resident, and programs that never
// multiply a large float matrix or decompose one (NumPy brings its own
// OpenBLAS for NumPy's work) paid it. The library is now opened the first
// time a kernel needs it: a float32/float64/complex64 product the packed
// kernel declines (Note [BLAS GEMM]), a decomposition (Note [LAPACK for
// decompositions]), or build_info(). Where it cannot be opened, products
// run on Eigen and the decompositions fail with the reason.
// Where it is searched, in order: the name alone, which finds it through
// _C's rpath ($ORIGIN/../scipy_openblas32/lib, the wheel's layout) or an
// already-loaded copy; the directory ember/__init__.py reports from the
// scipy-openblas32 package (SetOpenBlasDirectory), for installs that put
// the two packages in different site-packages; the build tree's copy (the
// C++ tests); or only the file EMBER_OPENBLAS_LIBRARY names, where that is
// set. OpenBLAS starts a server thread per core at load unless
// OPENBLAS_NUM_THREADS says otherwise: Ember's runs single-threaded (Note
// [BLAS GEMM]), so the variable is 1 while the library loads, unless the
// user set it, and is then put back.
#define EMBER_OPENBLAS_FUNCTIONS(X)                                                                               \
  X(scipy_cblas_sgemm) X(scipy_cblas_dgemm) X(scipy_cblas_cgemm) X(scipy_cblas_strsm) X(scipy_cblas_dtrsm)        \
  X(scipy_cblas_ctrsm) X(scipy_openblas_set_num_threads) X(scipy_openblas_get_num_threads)                        \
  X(scipy_openblas_get_config) X(scipy_LAPACKE_set_nancheck) X(scipy_LAPACKE_sgetrf) X(scipy_LAPACKE_dgetrf)      \
  X(scipy_LAPACKE_cgetrf) X(scipy_LAPACKE_sgetri) X(scipy_LAPACKE_dgetri) X(scipy_LAPACKE_cgetri)                 \
  X(scipy_LAPACKE_sgetrs) X(scipy_LAPACKE_dgetrs) X(scipy_LAPACKE_cgetrs) X(scipy_LAPACKE_spotrf)                 \
  X(scipy_LAPACKE_dpotrf) X(scipy_LAPACKE_cpotrf) X(scipy_LAPACKE_spotrs) X(scipy_LAPACKE_dpotrs)                 \
  X(scipy_LAPACKE_cpotrs) X(scipy_LAPACKE_sgeqrf) X(scipy_LAPACKE_dgeqrf) X(scipy_LAPACKE_cgeqrf)                 \
  X(scipy_LAPACKE_sorgqr) X(scipy_LAPACKE_dorgqr) X(scipy_LAPACKE_cungqr) X(scipy_LAPACKE_sgesdd)                 \
  X(scipy_LAPACKE_dgesdd) X(scipy_LAPACKE_cgesdd) X(scipy_LAPACKE_ssyevd) X(scipy_LAPACKE_dsyevd)                 \
  X(scipy_LAPACKE_cheevd) X(scipy_LAPACKE_sgelsd) X(scipy_LAPACKE_dgelsd) X(scipy_LAPACKE_cgelsd)

struct OpenBlasFunctions {
#define EMBER_OPENBLAS_POINTER(name) decltype(&::name) name = nullptr;
  EMBER_OPENBLAS_FUNCTIONS(EMBER_OPENBLAS_POINTER)
#undef EMBER_OPENBLAS_POINTER
};

// The functions, loading the library on the first call (thread-safe); null
// when it cannot be loaded, with the reason in OpenBlasError().
const OpenBlasFunctions* OpenBlas();
const std::string& OpenBlasError();

}  // namespace ember::cpu

#endif  // EMBER_WITH_OPENBLAS
