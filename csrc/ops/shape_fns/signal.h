// This file declares how the Fourier transforms resolve their fft_length
// attr, shared by their shape functions (signal.cc) and CPU kernels.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/shape.h"
#include "core/status.h"

namespace ember::shape_fns {

// The largest transform length: Eigen's kissfft indexes with int.
inline constexpr int64_t kMaxFftLength = (int64_t{1} << 31) - 1;

// The transform length N of rfft (`inverse` false) or irfft (true) over
// `in`'s innermost dim: fft_length[0] if given (one int, >= 0), else the
// inner length (rfft) or 2 * (inner - 1) (irfft, which needs inner >= 1).
Status ResolveFftLength(const Shape& in, const std::optional<std::vector<int64_t>>& fft_length, bool inverse,
                        int64_t* n);

}  // namespace ember::shape_fns
