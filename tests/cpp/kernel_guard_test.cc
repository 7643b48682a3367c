// Tests RunKernelNoThrow and ParallelFor's exception forwarding: a kernel
// that throws becomes an error Status instead of terminating the process.
#include "ops/kernel_guard.h"

#include <new>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/parallel.h"
#include "ops/op_ids.gen.h"

namespace ember {
namespace {

template <typename Fn>
class ThrowingKernel final : public OpKernel {
 public:
  explicit ThrowingKernel(Fn fn) : fn_(fn) {}
  Status Compute(KernelContext& ctx) const override {
    fn_(ctx);
    return Status::OK();
  }

 private:
  Fn fn_;
};

template <typename Fn>
Status RunThrowing(Fn fn) {
  InitCpuDevice();
  std::vector<Tensor> inputs, outputs;
  AttrList attrs;
  KernelContext ctx(GetOpDef(OpId::kAdd), DeviceManager::Global().cpu(), attrs, &inputs, &outputs);
  return RunKernelNoThrow(ThrowingKernel<Fn>(fn), ctx);
}

TEST(KernelGuardTest, BadAllocIsResourceExhausted) {
  Status s = RunThrowing([](KernelContext&) { throw std::bad_alloc(); });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("out of memory"), std::string::npos) << s.message();
}

TEST(KernelGuardTest, OtherExceptionsAreInternalWithTheirMessage) {
  Status s = RunThrowing([](KernelContext&) { throw std::length_error("vector too long"); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_NE(s.message().find("vector too long"), std::string::npos) << s.message();
  EXPECT_EQ(RunThrowing([](KernelContext&) { throw 42; }).code(), StatusCode::kInternal);
}

TEST(KernelGuardTest, OkKernelPassesThrough) {
  EXPECT_TRUE(RunThrowing([](KernelContext&) {}).ok());
}

// A scratch allocation that fails on an intra-op pool thread must reach
// the kernel's thread (and so RunKernelNoThrow), not std::terminate.
TEST(KernelGuardTest, ExceptionOnPoolThreadReachesTheKernel) {
  Status s = RunThrowing([](KernelContext& ctx) {
    cpu::ParallelFor(ctx, 1 << 20, 1000.0, [](int64_t, int64_t) { throw std::bad_alloc(); });
  });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace ember
