// This file implements RegisterCpuLinalgKernels: the matrix decompositions
// and solvers, one file per decomposition family (linalg_*.cc), all on
// LAPACK (Note [LAPACK for decompositions] in lapack.h).
#include "devices/cpu/cpu_device.h"
#include "ops/op_kernel.h"

namespace ember {
namespace cpu {
void RegisterLuKernels(KernelRegistry& r);        // linalg_lu.cc
void RegisterCholeskyKernels(KernelRegistry& r);  // linalg_cholesky.cc
void RegisterQrKernels(KernelRegistry& r);        // linalg_qr.cc
void RegisterLstsqKernels(KernelRegistry& r);     // linalg_lstsq.cc
void RegisterEighKernels(KernelRegistry& r);      // linalg_eigh.cc
void RegisterSvdKernels(KernelRegistry& r);       // linalg_svd.cc
}  // namespace cpu

EMBER_STARTUP_CODE void RegisterCpuLinalgKernels(KernelRegistry& r) {
#ifdef EMBER_WITH_OPENBLAS  // a build without LAPACK has no decompositions
  cpu::RegisterLuKernels(r);
  cpu::RegisterCholeskyKernels(r);
  cpu::RegisterQrKernels(r);
  cpu::RegisterLstsqKernels(r);
  cpu::RegisterEighKernels(r);
  cpu::RegisterSvdKernels(r);
#else
  (void)r;
#endif
}

}  // namespace ember
