// This file declares CublasLtGemm: the cuBLASLt descriptors of one
// GemmPlan (Note [Row-major GEMM on cuBLAS]), built on the host, and their
// launch.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

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

// Note [Matmul epilogues]
// fused_matmul computes activation(a @ b + bias); on a GPU that is one
// cuBLASLt call whose epilogue adds the bias (one value per row of
// cuBLAS's column-major D, which is one per column of Ember's row-major
// product: Note [Row-major GEMM on cuBLAS]) and applies the activation
// as the tile is written. The epilogue is part of the descriptor; the
// bias's address is a descriptor attribute too, so a run with a bias
// sets it and launches under the descriptor's lock (cuBLASLt reads the
// descriptor when the call is made, not when the GPU runs it).
enum class GemmEpilogue { kNone = 0, kBias = 1, kReluBias = 2, kGeluBias = 3 };

// cuBLASLt's values for kBias, kReluBias and kGeluBias (for tests that
// read a descriptor back).
std::vector<int64_t> CublasLtEpilogueValues();

class CublasLtGemm {
 public:
  // Builds the matmul descriptor and the A, B and D layouts; fails for
  // dtypes cuBLASLt has no GEMM for, or sizes past its int limits.
  static Status Create(const GemmPlan& plan, DType dtype, std::unique_ptr<CublasLtGemm>* out) {
    return Create(plan, dtype, GemmEpilogue::kNone, out);
  }
  static Status Create(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue, std::unique_ptr<CublasLtGemm>* out);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Enqueues D = A·B (cuBLAS's operands, Note [Row-major GEMM on cuBLAS])
  // on `stream` with the device's cuBLASLt handle and a workspace.
  // With an epilogue, `bias` is the device address of its vector.
  Status Run(void* handle, const void* a, const void* b, void* d, void* workspace, size_t workspace_bytes,
             void* stream, const void* bias = nullptr) const;

  // The epilogue the descriptor holds, read back from cuBLASLt (for tests):
  // cuBLASLt's cublasLtEpilogue_t value.
  Status DescribeEpilogue(int64_t* out) const;

  // What the layouts say, read back from cuBLASLt (for tests): rows,
  // columns, leading dimension, batch count and batch stride of A, B, D.
  Status Describe(int64_t out[3][5]) const;

  static constexpr size_t kWorkspaceBytes = size_t{32} << 20;

 private:
  CublasLtGemm() = default;

  const CublasLtApi* api_ = nullptr;
  DType dtype_ = DType::kFloat32;
  GemmEpilogue epilogue_ = GemmEpilogue::kNone;
  mutable std::mutex bias_mu_;  // Note [Matmul epilogues]
  void* desc_ = nullptr;
  void* layouts_[3] = {nullptr, nullptr, nullptr};
};

// Note [GEMM descriptor cache]
// Building a CublasLtGemm takes a matmul descriptor and three layouts, up
// to a dozen cuBLASLt calls, and the GPU run at stop 33 found per-op host
// work to dominate a ResNet-50 step (about 20 us per op). A matmul kernel
// therefore keeps the descriptors of the plans it has run, keyed by
// everything Create reads (the layouts, transposes, batch strides, dtype
// and the TF32 policy at the time), most recently used last, at most
// `capacity` of them. cuBLASLt itself caches the heuristic's choice for a
// descriptor, so a repeated shape costs one lookup here and the launch.
// Descriptors are read-only once built, so several streams may launch the
// same one at once.
class CublasLtGemmCache {
 public:
  explicit CublasLtGemmCache(size_t capacity = 64) : capacity_(capacity == 0 ? 1 : capacity) {}
  Status Get(const GemmPlan& plan, DType dtype, std::shared_ptr<const CublasLtGemm>* out) {
    return Get(plan, dtype, GemmEpilogue::kNone, out);
  }
  Status Get(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue, std::shared_ptr<const CublasLtGemm>* out);
  size_t size() const;

 private:
  using Key = std::array<int64_t, 18>;
  static Key KeyOf(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue);
  struct Entry {
    Key key;
    std::shared_ptr<const CublasLtGemm> gemm;
  };
  const size_t capacity_;
  mutable std::mutex mu_;
  std::vector<Entry> entries_;  // most recently used last
};

// The device's cuBLASLt handle, made on first use on the calling thread's
// current device (a GPU is needed).
Status CreateCublasLtHandle(void** handle);

}  // namespace ember::cuda
