// This file implements the tensordot CPU kernel: both operands are permuted
// so the contracted dims meet, then one GEMM computes [M, K] x [K, N].
#include <algorithm>
#include <vector>

#include "kernels/cpu/compute_type.h"
#include "kernels/cpu/matmul_gemm.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"
#include "kernels/cpu/transpose.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember::cpu {
namespace {

bool IsIdentity(const std::vector<int>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int>(i)) return false;
  }
  return true;
}

// Returns `data`, a tensor of `shape`, laid out with dims `perm`: data
// itself when perm is the identity, else a copy in *scratch.
template <typename C>
const C* Permuted(const DeviceContext* device, const C* data, const Shape& shape, const std::vector<int>& perm,
                  std::vector<C>* scratch) {
  if (IsIdentity(perm)) return data;
  scratch->resize(shape.NumElements());
  PermuteCopy(device, data, scratch->data(), sizeof(C), shape, perm);
  return scratch->data();
}

// Attr 0: axes, by index (Note [Pending op definitions] in sort.cc).
template <typename T>
class TensordotKernel final : public OpKernel {
 public:
  explicit TensordotKernel(const KernelInit& init) : axes_(init.attrs[0].as_int_list()) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    Tensor& c = ctx.output(0);
    std::vector<int> a_axes, b_axes;
    EMBER_RETURN_IF_ERROR(shape_fns::TensordotAxes(a.shape(), b.shape(), axes_, &a_axes, &b_axes));
    // a -> [free..., contracted...] = [M, K]; b -> [contracted..., free...] = [K, N].
    std::vector<int> a_perm, b_perm(b_axes.begin(), b_axes.end());
    MatmulDims dims{1, 1, 1, false, false};
    for (int i = 0; i < a.rank(); ++i) {
      if (std::find(a_axes.begin(), a_axes.end(), i) == a_axes.end()) {
        a_perm.push_back(i);
        dims.m *= a.dim(i);
      }
    }
    for (int ax : a_axes) {
      a_perm.push_back(ax);
      dims.k *= a.dim(ax);
    }
    for (int i = 0; i < b.rank(); ++i) {
      if (std::find(b_axes.begin(), b_axes.end(), i) == b_axes.end()) {
        b_perm.push_back(i);
        dims.n *= b.dim(i);
      }
    }
    T* out = c.data<T>();
    if (c.NumElements() == 0) return Status::OK();
    if (dims.k == 0) {
      std::fill(out, out + c.NumElements(), T(0));
      return Status::OK();
    }
    // Note [Half compute]: float16 and bfloat16 operands are widened whole
    // before the permutation, so the GEMM runs on float32.
    using C = ComputeType<T>;
    std::vector<C> a_wide, b_wide, a_scratch, b_scratch, c_scratch(kIsWidened<T> ? c.NumElements() : 0);
    const C* a_in = AsComputeType(a.data<T>(), a.NumElements(), &a_wide);
    const C* b_in = AsComputeType(b.data<T>(), b.NumElements(), &b_wide);
    const C* a_data = Permuted(&ctx.device_context(), a_in, a.shape(), a_perm, &a_scratch);
    const C* b_data = Permuted(&ctx.device_context(), b_in, b.shape(), b_perm, &b_scratch);
    ParallelMatmul<T>(&ctx.device_context(), dims, a_data, b_data, out, c_scratch.data());
    return Status::OK();
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterTensordotKernels(KernelRegistry& r) {
  RegisterForTypeSet<TensordotKernel>(r, "tensordot", type_sets::Matmul{});
}

}  // namespace ember::cpu
