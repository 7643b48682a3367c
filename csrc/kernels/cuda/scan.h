// This file declares the CUDA cumsum and cumprod kernels.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// The input viewed as [outer, len, inner] around the axis; each of the
// outer * inner columns is one thread's, scanned in order along the axis
// in the compute type (integers wrapping), so every output is the CPU's
// bit for bit: the same operations in the same order. Columns that are
// adjacent in memory are adjacent threads, so loads coalesce when inner
// is large; a scan along the last axis of few rows has little
// parallelism (a block-wide scan would fix that, not written yet).
template <typename T, bool kProduct>
cudaError_t LaunchScan(const T* in, T* out, int64_t outer, int64_t len, int64_t inner, bool exclusive, bool reverse,
                       cudaStream_t stream, int64_t max_blocks);

}  // namespace ember::cuda
