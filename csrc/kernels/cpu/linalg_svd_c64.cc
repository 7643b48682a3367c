// This file registers the svd CPU kernel for std::complex<float> (linalg_svd.h).
#include "kernels/cpu/linalg_svd.h"

namespace ember::cpu {

void RegisterSvdKernelsC64(KernelRegistry& r) { RegisterForTypes<SvdKernel, std::complex<float>>(r, "svd"); }

}  // namespace ember::cpu
