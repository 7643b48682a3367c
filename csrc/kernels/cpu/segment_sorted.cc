// This file instantiates and registers the sorted segment_* CPU kernels.
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"

namespace ember::cpu {

EMBER_STARTUP_CODE void RegisterSortedSegmentKernels(KernelRegistry& r) {
  const type_sets::Real real;
  RegisterSegmentOp<SegmentOp::kSum, true>(r, "segment_sum", real);
  RegisterSegmentOp<SegmentOp::kMean, true>(r, "segment_mean", real);
  RegisterSegmentOp<SegmentOp::kMax, true>(r, "segment_max", real);
  RegisterSegmentOp<SegmentOp::kMin, true>(r, "segment_min", real);
  RegisterSegmentOp<SegmentOp::kProd, true>(r, "segment_prod", real);
}

}  // namespace ember::cpu
