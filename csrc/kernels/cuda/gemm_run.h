// This file declares RunGemm: one GEMM plan's products run on the
// device's cuBLASLt handle, for the kernels that multiply (matmul,
// fused_matmul, scaled_dot_product_attention).
#pragma once

#include <cstddef>
#include <vector>

#include "devices/cuda/cublaslt_matmul.h"
#include "kernels/cuda/gemm_plan.h"
#include "ops/op_kernel.h"

namespace ember::cuda {

// cuBLAS's A, B and D of one product (Note [Row-major GEMM on cuBLAS]).
struct GemmOperands {
  const void* a;
  const void* b;
  void* d;
};

// Ember's a @ b (row-major, as `plan` was made) as cuBLAS's products:
// one for a strided-batched plan, one per product for other broadcasts.
// `item` is the element size.
std::vector<GemmOperands> GemmProducts(const GemmPlan& plan, const void* a, const void* b, void* d, size_t item);

// Runs `gemm` over each product with the device's cuBLASLt handle and a
// workspace (and `bias` for an epilogue that reads one, else null).
Status RunGemm(KernelContext& ctx, const CublasLtGemm& gemm, const std::vector<GemmOperands>& products,
               const void* bias);

}  // namespace ember::cuda
