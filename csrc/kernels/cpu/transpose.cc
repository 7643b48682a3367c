// This file implements PermuteCopy and the transpose CPU kernel.
#include "kernels/cpu/transpose.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/shape.gen.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

// A permutation reduced to the fewest output dims: size-1 dims dropped and
// output dims that are adjacent, in order, in the input merged.
struct CollapsedPerm {
  std::vector<int64_t> dims;       // output dims
  std::vector<int64_t> in_stride;  // input stride (elements) along each
};

CollapsedPerm Collapse(const Shape& in_shape, const std::vector<int>& perm) {
  const int rank = in_shape.rank();
  const std::vector<int64_t> strides = ContiguousStrides(in_shape);
  CollapsedPerm c;
  int prev = -2;  // input dim of the previous kept output dim
  for (int i = 0; i < rank; ++i) {
    const int p = perm[i];
    const int64_t d = in_shape.dim(p);
    if (d == 1) continue;
    if (p == prev + 1 && !c.dims.empty()) {
      // Input dims prev and p are adjacent, so the merged dim's innermost
      // stride is p's.
      c.dims.back() *= d;
      c.in_stride.back() = strides[p];
    } else {
      c.dims.push_back(d);
      c.in_stride.push_back(strides[p]);
    }
    // Skip over size-1 input dims when testing adjacency.
    prev = p;
    while (prev + 1 < rank && in_shape.dim(prev + 1) == 1) ++prev;
  }
  return c;
}

constexpr int64_t kTile = 32;

template <typename U>
void PermuteTyped(const DeviceContext* device, const U* in, U* out, const CollapsedPerm& c) {
  const int r = static_cast<int>(c.dims.size());
  int64_t total = 1;
  for (int64_t d : c.dims) total *= d;
  std::vector<int64_t> out_stride(r);
  for (int i = r - 1, s = 1; i >= 0; --i) {
    out_stride[i] = s;
    s *= c.dims[i];
  }
  const int last = r - 1;
  // q: the output dim that is contiguous in the input.
  int q = last;
  for (int i = 0; i < r; ++i) {
    if (c.in_stride[i] == 1) q = i;
  }
  const int64_t tiles_q = q == last ? 1 : (c.dims[q] + kTile - 1) / kTile;
  // Units: every index of the dims other than q and last, times tiles of q.
  const int64_t units = total / c.dims[last] / (q == last ? 1 : c.dims[q]) * tiles_q;
  const int64_t per_unit = (q == last ? 1 : kTile) * c.dims[last];

  ParallelFor(device, units, 2.0 * per_unit, [&](int64_t first, int64_t end) {
    for (int64_t u = first; u < end; ++u) {
      int64_t rest = u / tiles_q;
      int64_t in_base = 0;
      int64_t out_base = 0;
      for (int d = last - 1; d >= 0; --d) {
        if (d == q) continue;
        const int64_t i = rest % c.dims[d];
        rest /= c.dims[d];
        in_base += i * c.in_stride[d];
        out_base += i * out_stride[d];
      }
      const int64_t n_last = c.dims[last];
      if (q == last) {
        // The innermost run is contiguous on both sides.
        std::memcpy(out + out_base, in + in_base, n_last * sizeof(U));
        continue;
      }
      // A kTile x kTile blocked copy over the plane of dims q and last:
      // reads are contiguous along q, writes along last.
      const int64_t q0 = (u % tiles_q) * kTile;
      const int64_t q1 = std::min(q0 + kTile, c.dims[q]);
      const int64_t s_last = c.in_stride[last];
      const int64_t os_q = out_stride[q];
      for (int64_t j0 = 0; j0 < n_last; j0 += kTile) {
        const int64_t j1 = std::min(j0 + kTile, n_last);
        for (int64_t i = q0; i < q1; ++i) {
          const U* src = in + in_base + i;
          U* dst = out + out_base + i * os_q;
          for (int64_t j = j0; j < j1; ++j) dst[j] = src[j * s_last];
        }
      }
    }
  });
}

class TransposeKernel final : public OpKernel {
 public:
  explicit TransposeKernel(const KernelInit& init) : perm_(TransposeAttrs(init.attrs).perm) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    std::vector<int> perm;
    EMBER_RETURN_IF_ERROR(shape_fns::NormalizePerm(perm_, in.rank(), &perm));
    PermuteCopy(&ctx.device_context(), in.raw_data(), ctx.output(0).raw_data(), DTypeSize(in.dtype()),
                in.shape(), perm);
    return Status::OK();
  }

 private:
  std::optional<std::vector<int64_t>> perm_;
};

}  // namespace

void PermuteCopy(const DeviceContext* device, const void* in, void* out, size_t elem_size, const Shape& in_shape,
                 const std::vector<int>& perm) {
  const int64_t n = in_shape.NumElements();
  if (n == 0) return;
  const CollapsedPerm c = Collapse(in_shape, perm);
  if (c.dims.size() <= 1) {
    // The identity permutation: a straight copy.
    ParallelFor(device, static_cast<int64_t>(n * elem_size), 0.25, [&](int64_t first, int64_t last) {
      std::memcpy(static_cast<char*>(out) + first, static_cast<const char*>(in) + first, last - first);
    });
    return;
  }
  switch (elem_size) {
    case 1:
      return PermuteTyped(device, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), c);
    case 2:
      return PermuteTyped(device, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), c);
    case 4:
      return PermuteTyped(device, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), c);
    default:
      return PermuteTyped(device, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), c);
  }
}

EMBER_STARTUP_CODE void RegisterTransposeKernels(KernelRegistry& r) {
  for (int i = 0; i < kNumDTypes; ++i) {  // the `every` set
    const DType t = static_cast<DType>(i);
    r.Register("transpose", kCpuDeviceType, {t}, &MakeKernel<TransposeKernel>);
  }
}

}  // namespace ember::cpu
