// This file implements the qr CPU kernel (Householder reflections).
#include <Eigen/QR>

#include "kernels/cpu/linalg_batch.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

using linalg::DecompositionCycles;
using linalg::ForEachMatrix;
using linalg::Matrix;
using linalg::MatrixAt;

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
    const T* in = input.data<T>();
    T* q = q_out.data<T>();
    T* r = r_out.data<T>();
    if (q_out.NumElements() == 0) return Status::OK();  // then r is empty too: p = 0 or no batch
    ForEachMatrix(ctx, q_out.NumElements() / (m * p), DecompositionCycles(m, n), [&](int64_t b) {
      if (n == 0) {  // q = I (full_matrices), r has no columns
        MatrixAt(q, b, m, p).setIdentity();
        return true;
      }
      const Eigen::HouseholderQR<Matrix<T>> qr(Matrix<T>(MatrixAt(in, b, m, n)));
      MatrixAt(q, b, m, p) = qr.householderQ() * Matrix<T>::Identity(m, p);
      MatrixAt(r, b, p, n) = qr.matrixQR().topRows(p).template triangularView<Eigen::Upper>().toDenseMatrix();
      return true;
    });
    return Status::OK();
  }
};

}  // namespace

void RegisterQrKernels(KernelRegistry& r) {
  RegisterForTypeSet<QrKernel>(r, "qr", type_sets::Linalg{});
}

}  // namespace ember::cpu
