// This file registers the svd CPU kernel for float (linalg_svd.h).
#include "kernels/cpu/linalg_svd.h"

namespace ember::cpu {

void RegisterSvdKernelsF32(KernelRegistry& r) { RegisterForTypes<SvdKernel, float>(r, "svd"); }

}  // namespace ember::cpu
