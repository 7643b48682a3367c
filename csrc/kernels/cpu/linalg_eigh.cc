// This file implements the self_adjoint_eig CPU kernel (LAPACK's
// divide-and-conquer syevd/heevd): eigenvalues ascending, eigenvectors as
// columns.
#include <vector>

#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::Real;

// Attr 0: compute_v (by index: Note [Pending op definitions] in sort.cc).
template <typename T>
class SelfAdjointEigKernel final : public OpKernel {
 public:
  explicit SelfAdjointEigKernel(const KernelInit& init) : compute_v_(init.attrs[0].as_bool()) {}

  Status Compute(KernelContext& ctx) const override {
    Tensor& e_out = ctx.output(0);
    if (e_out.NumElements() == 0) return Status::OK();
    const int64_t n = linalg::Rows(ctx.input(0).shape());
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{n, n}}));
    const T* in = ctx.input(0).data<T>();
    T* e = e_out.data<T>();
    T* v = ctx.output(1).data<T>();
    const bool ok = linalg::ForEachMatrix(ctx, e_out.NumElements() / n, linalg::DecompositionCycles(n, n) * 2,
                                          [&](int64_t b) {
      // The solver reads the lower triangle; only it must be finite.
      const T* a = in + b * n * n;
      for (int64_t i = 0; i < n; ++i) {
        if (!linalg::AllFinite(a + i * n, i + 1)) return false;
      }
      std::vector<T> scratch;
      T* work = v + b * n * n;  // the eigenvectors replace the matrix
      if (!compute_v_) {
        scratch.resize(n * n);
        work = scratch.data();
      }
      std::copy(a, a + n * n, work);
      std::vector<Real<T>> values(n);
      if (lapack::Heevd(compute_v_, n, work, values.data()) != 0) return false;
      for (int64_t i = 0; i < n; ++i) e[b * n + i] = T(values[i]);
      return true;
    });
    return ok ? Status::OK()
              : InvalidArgument("Self-adjoint eigen decomposition was not successful. The input might not be valid.");
  }

 private:
  bool compute_v_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterEighKernels(KernelRegistry& r) {
  RegisterForTypeSet<SelfAdjointEigKernel>(r, "self_adjoint_eig", type_sets::Linalg{});
}

}  // namespace ember::cpu
