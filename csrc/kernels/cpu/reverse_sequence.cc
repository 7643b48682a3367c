// This file implements the reverse_sequence CPU kernel, which moves
// elements as bytes and so serves every dtype.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/cpu/movement_copy.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/segment_reduce.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

class ReverseSequenceKernel final : public OpKernel {
 public:
  explicit ReverseSequenceKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    const Tensor& lengths = ctx.input(1);
    int seq_axis = 0, batch_axis = 0;
    EMBER_RETURN_IF_ERROR(
        shape_fns::ReverseSequenceAxes(input.shape(), ctx.attrs()[0], ctx.attrs()[1], &seq_axis, &batch_axis));
    const int64_t seq_dim = input.dim(seq_axis), batch_dim = input.dim(batch_axis);
    if (lengths.NumElements() != batch_dim) {
      return InvalidArgument("seq_lengths has " + std::to_string(lengths.NumElements()) +
                             " entries, input.shape[batch_axis] = " + std::to_string(batch_dim));
    }
    for (int64_t b = 0; b < batch_dim; ++b) {
      const int64_t len = IndexAt(lengths, b);
      if (len < 0 || len > seq_dim) {
        return InvalidArgument("seq_lengths[" + std::to_string(b) + "] = " + std::to_string(len) +
                               " is not in [0, input.shape[seq_axis] = " + std::to_string(seq_dim) + "]");
      }
    }
    // Row-major strides (in elements) of the two axes.
    int64_t seq_stride = 1, batch_stride = 1;
    for (int i = input.rank() - 1; i > seq_axis; --i) seq_stride *= input.dim(i);
    for (int i = input.rank() - 1; i > batch_axis; --i) batch_stride *= input.dim(i);
    const size_t es = DTypeSize(input.dtype());
    const char* src = static_cast<const char*>(input.raw_data());
    char* dst = static_cast<char*>(ctx.output(0).raw_data());
    ParallelFor(ctx, input.NumElements(), 8, [&](int64_t first, int64_t last) {
      for (int64_t e = first; e < last; ++e) {
        const int64_t s = (e / seq_stride) % seq_dim;
        const int64_t len = IndexAt(lengths, (e / batch_stride) % batch_dim);
        const int64_t from = s < len ? e + (len - 1 - 2 * s) * seq_stride : e;
        std::memcpy(dst + e * es, src + from * es, es);
      }
    });
    return Status::OK();
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterReverseSequenceKernels(KernelRegistry& r) {
  RegisterWithIndexTypes(r, "reverse_sequence", &MakeKernel<ReverseSequenceKernel>,
                         &MakeKernel<ReverseSequenceKernel>, type_sets::Every{});
}

}  // namespace ember::cpu
