// This file defines RegisterCpuSegmentKernels, the registration of the
// op_defs/segments.yaml family's CPU kernels.
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/segment_reduce.h"

namespace ember {

EMBER_STARTUP_CODE void RegisterCpuSegmentKernels(KernelRegistry& r) {
  cpu::RegisterSortedSegmentKernels(r);
  cpu::RegisterUnsortedSegmentKernels(r);
  cpu::RegisterBincountKernels(r);
  cpu::RegisterUniqueKernels(r);
  cpu::RegisterSearchsortedKernels(r);
  cpu::RegisterReverseSequenceKernels(r);
}

}  // namespace ember
