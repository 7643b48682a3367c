// This file declares overflow-checked integer arithmetic for sizes and
// indices (Note [Shape limits] in core/shape.h).
#pragma once

#include <cstdint>

namespace ember {

// Each returns false, leaving *out unspecified, when the exact result does
// not fit in int64_t.
inline bool CheckedMul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
inline bool CheckedAdd(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }
inline bool CheckedSub(int64_t a, int64_t b, int64_t* out) { return !__builtin_sub_overflow(a, b, out); }

}  // namespace ember
