// This file implements RegisterCpuLinalgKernels: the matrix decompositions
// and solvers, one file per decomposition family (linalg_*.cc).
#include "devices/cpu/cpu_device.h"
#include "ops/op_kernel.h"

namespace ember {
namespace cpu {
void RegisterLuKernels(KernelRegistry& r);        // linalg_lu.cc
void RegisterCholeskyKernels(KernelRegistry& r);  // linalg_cholesky.cc
void RegisterQrKernels(KernelRegistry& r);        // linalg_qr.cc
void RegisterLstsqKernels(KernelRegistry& r);     // linalg_lstsq.cc
void RegisterEighKernels(KernelRegistry& r);      // linalg_eigh.cc
void RegisterSvdKernelsF32(KernelRegistry& r);    // linalg_svd_f32.cc
void RegisterSvdKernelsF64(KernelRegistry& r);    // linalg_svd_f64.cc
void RegisterSvdKernelsC64(KernelRegistry& r);    // linalg_svd_c64.cc
}  // namespace cpu

void RegisterCpuLinalgKernels(KernelRegistry& r) {
  cpu::RegisterLuKernels(r);
  cpu::RegisterCholeskyKernels(r);
  cpu::RegisterQrKernels(r);
  cpu::RegisterLstsqKernels(r);
  cpu::RegisterEighKernels(r);
  cpu::RegisterSvdKernelsF32(r);
  cpu::RegisterSvdKernelsF64(r);
  cpu::RegisterSvdKernelsC64(r);
}

}  // namespace ember
