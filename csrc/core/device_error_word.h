// This file declares DeviceErrorWord, the record a device kernel fills in
// when it finds bad data (Note [Device error words] in device_error.h).
// Included by CUDA kernels, so it holds nothing but the layout.
#pragma once

#include <cstdint>

namespace ember {

struct DeviceErrorWord {
  uint32_t code;     // kDeviceErrorNone while no thread found bad data
  uint32_t operand;  // which input held the bad value
  int64_t position;  // flat position of the bad value (or the bad tuple) in that input
  int64_t value;     // the bad value
  int64_t bound;     // the exclusive upper bound it broke, for ranges
};
static_assert(sizeof(DeviceErrorWord) == 32, "kernels and the host share this layout");

enum DeviceErrorCode : uint32_t {
  kDeviceErrorNone = 0,
  kDeviceErrorIndexOutOfRange = 1,
  kDeviceErrorValueOutOfRange = 2,
  kDeviceErrorDivisionByZero = 3,
};

}  // namespace ember
