// This file declares the DLPack ABI (the C structs and constants of DLPack
// 1.0 that Ember exchanges), written from the DLPack specification.
#pragma once

#include <cstdint>

namespace ember::python::dlpack {

// Where the data lives. Only the values Ember reads or reports are named.
enum DeviceType : int32_t {
  kCpu = 1,
  kCudaHost = 3,   // page-locked host memory: the CPU reads it directly
  kRocmHost = 11,  // likewise
  kExtDev = 12,    // "an extension device": Ember's simulated accelerator
};

// The element type: a type code, a width in bits and a vector width.
enum TypeCode : uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kBFloat = 4,
  kComplex = 5,
  kBool = 6,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

// The tensor itself: `data + byte_offset` is the first element; `strides`
// (in elements, may be null for a compact row-major tensor) and `shape`
// have `ndim` entries.
struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};

// The pre-1.0 managed tensor, carried in a capsule named "dltensor".
struct ManagedTensor {
  Tensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);  // may be null
};

struct Version {
  uint32_t major;
  uint32_t minor;
};

// Bits of ManagedTensorVersioned::flags.
inline constexpr uint64_t kFlagReadOnly = 1ull << 0;  // the consumer must not write
inline constexpr uint64_t kFlagIsCopied = 1ull << 1;  // the producer made a copy the consumer owns alone

// The versioned managed tensor (DLPack >= 1.0), in a capsule named
// "dltensor_versioned". A consumer reads `version` first: a major version
// it does not know means only `deleter` may be touched.
struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);  // may be null
  uint64_t flags;
  Tensor dl_tensor;
};

inline constexpr Version kVersion = {1, 0};

// Capsule names: a consumer renames the capsule to the "used_" name when it
// takes ownership, so that the capsule's destructor leaves the tensor alone.
inline constexpr const char* kLegacyName = "dltensor";
inline constexpr const char* kLegacyUsedName = "used_dltensor";
inline constexpr const char* kVersionedName = "dltensor_versioned";
inline constexpr const char* kVersionedUsedName = "used_dltensor_versioned";

}  // namespace ember::python::dlpack
