// This file implements the tensordot CPU kernel: both operands are permuted
// so the contracted dims meet, then one GEMM computes [M, K] x [K, N].
#include <algorithm>
#include <memory>
#include <vector>

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

// Returns x laid out with dims `perm` (x itself when perm is the identity).
template <typename T>
const T* Permuted(Device* device, const Tensor& x, const std::vector<int>& perm,
                  std::unique_ptr<T[]>* scratch) {
  if (IsIdentity(perm)) return x.data<T>();
  scratch->reset(new T[x.NumElements()]);
  PermuteCopy(device, x.data<T>(), scratch->get(), sizeof(T), x.shape(), perm);
  return scratch->get();
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
    std::unique_ptr<T[]> a_scratch, b_scratch;
    const T* a_data = Permuted(ctx.device(), a, a_perm, &a_scratch);
    const T* b_data = Permuted(ctx.device(), b, b_perm, &b_scratch);
    const double row_cycles = 2.0 * static_cast<double>(dims.k * dims.n) + 1;
    ParallelFor(ctx, dims.m, row_cycles, [&](int64_t first, int64_t last) {
      MatmulRows<T>(a_data, b_data, out, dims, first, last);
    });
    return Status::OK();
  }

 private:
  std::vector<int64_t> axes_;
};

}  // namespace

void RegisterTensordotKernels(KernelRegistry& r) {
  RegisterForTypeSet<TensordotKernel>(r, "tensordot", type_sets::Numeric{});
}

}  // namespace ember::cpu
