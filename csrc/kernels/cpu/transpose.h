// This file declares PermuteCopy, the strided permutation copy behind the
// transpose kernel (also used by reductions over scattered axes).
#pragma once

#include <cstddef>
#include <vector>

#include "core/device.h"
#include "core/shape.h"

namespace ember::cpu {

// Writes the transpose of `in` (row-major, `in_shape`) to `out`: output dim i
// is input dim perm[i]. Elements are copied as raw bytes of `elem_size`
// (1, 2, 4 or 8), so one instantiation serves every dtype of that size.
// `in` and `out` must not overlap. `device` may be null (runs inline).
void PermuteCopy(const DeviceContext* device, const void* in, void* out, size_t elem_size, const Shape& in_shape,
                 const std::vector<int>& perm);

}  // namespace ember::cpu
