// This file declares the per-pair conversion loops behind the cast kernel
// (cast.cc). They are instantiated in two files, by source dtype, so the
// 121 pairs compile in parallel. Internal to kernels/cpu/.
#pragma once

#include <cstdint>

#include "core/dtype.h"

namespace ember::cpu {

// Converts elements [first, last) of `in` (the source dtype) into `out`
// (the destination dtype).
using CastFn = void (*)(const void* in, void* out, int64_t first, int64_t last);
struct CastTable {
  CastFn fn[kNumDTypes][kNumDTypes] = {};  // [src][dst]
};

void AddIntegerSourceCasts(CastTable& table);  // cast_integer.cc: bool and the integer sources
void AddFloatSourceCasts(CastTable& table);    // cast_float.cc: the float and complex sources

}  // namespace ember::cpu
