// This file declares the CUDA sort, argsort and top_k kernels (Note [GPU
// sort keys] in sort_body.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace ember::cuda {

// What a sort writes: the sorted values, the sorting indices (int32), or
// the first k of a descending sort along the last axis (values and
// indices, [columns, k]).
enum class SortOutput { kValues, kIndices, kTopK };

// The input viewed as [outer, len, inner] around the axis; columns =
// outer * inner. columns * len must fit in an int (CUB's item count): the
// caller checks with SortFits.
struct SortGeometry {
  int64_t columns = 0;
  int64_t len = 0;
  int64_t inner = 1;
};

bool SortFits(const SortGeometry& g);

// Bytes of device scratch a sort of `g` needs: the keys and indices before
// and after, the segment offsets, and CUB's temporary storage.
template <typename T>
cudaError_t SortScratchBytes(const SortGeometry& g, size_t* bytes);

// Sorts every column of `in` (keys, then one CUB sort over all columns,
// then the outputs gathered through the sorted indices). For kTopK,
// `values` and `indices` are the [columns, k] outputs; otherwise the one
// output is `values` (kValues) or `indices` (kIndices), shaped as `in`.
template <typename T>
cudaError_t LaunchSort(const T* in, T* values, int32_t* indices, const SortGeometry& g, SortOutput what,
                       bool descending, int64_t k, void* scratch, size_t scratch_bytes, cudaStream_t stream,
                       int64_t max_blocks);

}  // namespace ember::cuda
