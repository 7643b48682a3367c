// This file declares CublasLtGemm: the cuBLASLt descriptors of one
// GemmPlan (Note [Row-major GEMM on cuBLAS]), built on the host, and their
// launch.
#pragma once

#include <cstddef>
#include <memory>

#include "core/dtype.h"
#include "core/status.h"
#include "kernels/cuda/gemm_plan.h"

namespace ember::cuda {

struct CublasLtApi;

// Note [Matmul precision on GPUs]
// float16 and bfloat16 products use the tensor cores and accumulate in
// float32; float64 in float64. float32 follows TensorFlow's TF32 policy:
// on by default (Ampere and newer multiply float32 operands rounded to
// TF32's 10-bit mantissa, accumulating in float32), off with
// SetTensorFloat32Allowed(false) for full float32 products.
void SetTensorFloat32Allowed(bool allowed);
bool TensorFloat32Allowed();

class CublasLtGemm {
 public:
  // Builds the matmul descriptor and the A, B and D layouts; fails for
  // dtypes cuBLASLt has no GEMM for, or sizes past its int limits.
  static Status Create(const GemmPlan& plan, DType dtype, std::unique_ptr<CublasLtGemm>* out);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Enqueues D = A·B (cuBLAS's operands, Note [Row-major GEMM on cuBLAS])
  // on `stream` with the device's cuBLASLt handle and a workspace.
  Status Run(void* handle, const void* a, const void* b, void* d, void* workspace, size_t workspace_bytes,
             void* stream) const;

  // What the layouts say, read back from cuBLASLt (for tests): rows,
  // columns, leading dimension, batch count and batch stride of A, B, D.
  Status Describe(int64_t out[3][5]) const;

  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

 private:
  CublasLtGemm() = default;

  const CublasLtApi* api_ = nullptr;
  DType dtype_ = DType::kFloat32;
  void* desc_ = nullptr;
  void* layouts_[3] = {nullptr, nullptr, nullptr};
};

// The device's cuBLASLt handle, made on first use on the calling thread's
// current device (a GPU is needed).
Status CreateCublasLtHandle(void** handle);

}  // namespace ember::cuda
