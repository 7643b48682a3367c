// This file implements the qr CPU kernel (LAPACK's Householder QR, geqrf,
// and the explicit Q, orgqr/ungqr).
#include <vector>

#include "kernels/cpu/lapack.h"
#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;

// Attr 0: full_matrices.
template <typename T>
class QrKernel final : public OpKernel {
 public:
  explicit QrKernel(const KernelInit&) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& input = ctx.input(0);
    Tensor& q_out = ctx.output(0);
    Tensor& r_out = ctx.output(1);
    const int64_t m = linalg::Rows(input.shape()), n = linalg::Cols(input.shape());
    const int64_t p = linalg::Cols(q_out.shape());  // min(m, n), or m with full_matrices
    const int64_t reflectors = std::min(m, n);
    const T* in = input.data<T>();
    T* q = q_out.data<T>();
    T* r = r_out.data<T>();
    if (q_out.NumElements() == 0) return Status::OK();  // then r is empty too: p = 0 or no batch
    EMBER_RETURN_IF_ERROR(lapack::CheckSizes({{m, n}, {m, p}}));
    const bool ok = ForEachMatrix(ctx, q_out.NumElements() / (m * p), DecompositionCycles(m, n), [&](int64_t b) {
      T* q_b = q + b * m * p;
      if (n == 0) {  // q = I (full_matrices), r has no columns
        linalg::SetIdentity(q_b, m, p);
        return true;
      }
      std::vector<T> a(in + b * m * n, in + (b + 1) * m * n);
      std::vector<T> tau(reflectors);
      if (lapack::Geqrf(m, n, a.data(), tau.data()) != 0) return false;
      // r: the upper triangle of the first p rows.
      T* r_b = r + b * p * n;
      for (int64_t i = 0; i < p; ++i) {
        for (int64_t j = 0; j < n; ++j) r_b[i * n + j] = j >= i ? a[i * n + j] : T(0);
      }
      // q: the reflectors, stored below r's diagonal, widened to p columns.
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < p; ++j) q_b[i * p + j] = j < n ? a[i * n + j] : T(0);
      }
      return lapack::Orgqr(m, p, reflectors, q_b, tau.data()) == 0;
    });
    return ok ? Status::OK() : Internal("LAPACK's QR rejected its arguments");
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterQrKernels(KernelRegistry& r) {
  RegisterForTypeSet<QrKernel>(r, "qr", type_sets::Linalg{});
}

}  // namespace ember::cpu
