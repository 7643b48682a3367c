// This file registers the svd CPU kernel for double (linalg_svd.h).
#include "kernels/cpu/linalg_svd.h"

namespace ember::cpu {

void RegisterSvdKernelsF64(KernelRegistry& r) { RegisterForTypes<SvdKernel, double>(r, "svd"); }

}  // namespace ember::cpu
