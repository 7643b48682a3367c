// This file implements the zeros, ones and fill CPU kernels. They copy bit
// patterns, so one kernel per element size serves every dtype.
#include <algorithm>
#include <complex>
#include <cstring>

#include "kernels/cpu/parallel.h"
#include "kernels/cpu/registration.h"

namespace ember::cpu {
namespace {

template <typename U>
void FillTyped(const KernelContext& ctx, void* out, int64_t n, const void* value) {
  U v;
  std::memcpy(&v, value, sizeof(U));
  U* dst = static_cast<U*>(out);
  ParallelFor(ctx, n, kCheapOpCycles, [=](int64_t first, int64_t last) { std::fill(dst + first, dst + last, v); });
}

// Writes the element at `value` (elem_size bytes) n times to `out`.
void FillBytes(const KernelContext& ctx, void* out, int64_t n, size_t elem_size, const void* value) {
  switch (elem_size) {
    case 1: return FillTyped<uint8_t>(ctx, out, n, value);
    case 2: return FillTyped<uint16_t>(ctx, out, n, value);
    case 4: return FillTyped<uint32_t>(ctx, out, n, value);
    default: return FillTyped<uint64_t>(ctx, out, n, value);
  }
}

template <typename T>
void Put(T v, unsigned char* bytes) { std::memcpy(bytes, &v, sizeof(T)); }

// The bytes of the value 1 in `dtype` (no Eigen needed for the 16-bit floats).
void OneBytes(DType dtype, unsigned char* bytes) {
  switch (dtype) {
    case DType::kBool: return Put(true, bytes);
    case DType::kInt8: return Put(int8_t{1}, bytes);
    case DType::kInt16: return Put(int16_t{1}, bytes);
    case DType::kInt32: return Put(int32_t{1}, bytes);
    case DType::kInt64: return Put(int64_t{1}, bytes);
    case DType::kUInt8: return Put(uint8_t{1}, bytes);
    case DType::kFloat16: return Put(DoubleToHalfBits(1.0), bytes);
    case DType::kBFloat16: return Put(DoubleToBFloat16Bits(1.0), bytes);
    case DType::kFloat32: return Put(1.0f, bytes);
    case DType::kFloat64: return Put(1.0, bytes);
    case DType::kComplex64: return Put(std::complex<float>(1.0f, 0.0f), bytes);
  }
}

// All-zero bytes are 0, 0.0 and false in every dtype.
class ZerosKernel final : public OpKernel {
 public:
  explicit ZerosKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    char* bytes = static_cast<char*>(out.raw_data());
    ParallelFor(ctx, static_cast<int64_t>(out.NumBytes()), 0.25, [=](int64_t first, int64_t last) {
      std::memset(bytes + first, 0, last - first);
    });
    return Status::OK();
  }
};

class OnesKernel final : public OpKernel {
 public:
  explicit OnesKernel(const KernelInit& init) { OneBytes(init.type_bindings[0], one_); }
  Status Compute(KernelContext& ctx) const override {
    Tensor& out = ctx.output(0);
    FillBytes(ctx, out.raw_data(), out.NumElements(), DTypeSize(out.dtype()), one_);
    return Status::OK();
  }

 private:
  alignas(8) unsigned char one_[8] = {};
};

class FillKernel final : public OpKernel {
 public:
  explicit FillKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    const Tensor& value = ctx.input(0);
    // shape_fns::ShapeFromAttr checks this too; the kernel must not read
    // past a non-scalar's first element if called directly.
    if (value.rank() != 0) {
      return InvalidArgument("value must be a scalar, got shape " + value.shape().ToString());
    }
    Tensor& out = ctx.output(0);
    FillBytes(ctx, out.raw_data(), out.NumElements(), DTypeSize(out.dtype()), value.raw_data());
    return Status::OK();
  }
};

}  // namespace

EMBER_STARTUP_CODE void RegisterFillKernels(KernelRegistry& r) {
  for (int i = 0; i < kNumDTypes; ++i) {  // the `every` set
    const DType t = static_cast<DType>(i);
    r.Register("zeros", kCpuDeviceType, {t}, &MakeKernel<ZerosKernel>);
    r.Register("ones", kCpuDeviceType, {t}, &MakeKernel<OnesKernel>);
    r.Register("fill", kCpuDeviceType, {t}, &MakeKernel<FillKernel>);
  }
}

}  // namespace ember::cpu
