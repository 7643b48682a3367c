// This file instantiates the cast loops from the float and complex dtypes.
#include "kernels/cpu/cast_convert.h"

namespace ember::cpu {

void AddFloatSourceCasts(CastTable& table) {
  AddCastsFrom<Eigen::half>(table, type_sets::Every{});
  AddCastsFrom<Eigen::bfloat16>(table, type_sets::Every{});
  AddCastsFrom<float>(table, type_sets::Every{});
  AddCastsFrom<double>(table, type_sets::Every{});
  AddCastsFrom<std::complex<float>>(table, type_sets::Every{});
}

}  // namespace ember::cpu
