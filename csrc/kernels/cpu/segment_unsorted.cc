// This file instantiates and registers the unsorted_segment_* CPU kernels.
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"

namespace ember::cpu {

EMBER_STARTUP_CODE void RegisterUnsortedSegmentKernels(KernelRegistry& r) {
  const type_sets::Real real;
  const type_sets::Floating floating;
  RegisterSegmentOp<SegmentOp::kSum, false>(r, "unsorted_segment_sum", real);
  RegisterSegmentOp<SegmentOp::kMean, false>(r, "unsorted_segment_mean", floating);
  RegisterSegmentOp<SegmentOp::kSqrtN, false>(r, "unsorted_segment_sqrt_n", floating);
  RegisterSegmentOp<SegmentOp::kMax, false>(r, "unsorted_segment_max", real);
  RegisterSegmentOp<SegmentOp::kMin, false>(r, "unsorted_segment_min", real);
  RegisterSegmentOp<SegmentOp::kProd, false>(r, "unsorted_segment_prod", real);
}

}  // namespace ember::cpu
