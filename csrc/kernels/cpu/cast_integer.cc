// This file instantiates the cast loops from bool and the integer dtypes.
#include "kernels/cpu/cast_convert.h"

namespace ember::cpu {

void AddIntegerSourceCasts(CastTable& table) {
  AddCastsFrom<bool>(table, type_sets::Every{});
  AddCastsFrom<int8_t>(table, type_sets::Every{});
  AddCastsFrom<int16_t>(table, type_sets::Every{});
  AddCastsFrom<int32_t>(table, type_sets::Every{});
  AddCastsFrom<int64_t>(table, type_sets::Every{});
  AddCastsFrom<uint8_t>(table, type_sets::Every{});
}

}  // namespace ember::cpu
