// Stresses the async runtime from many threads at once: the CPU device's
// ThreadExecutor, TensorHandle publication and waiting, the kernel cache,
// async error recording, the intra-op pool, and GraphExecutor runs mixed
// with eager ops. Meant to be run under TSan (.ci/sanitize tsan).
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "graph/executor.h"
#include "graph/tracer.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/execute.h"

namespace ember {
namespace {

constexpr int kThreads = 4;

RefPtr<TensorHandle> Filled(int64_t n, float value) {
  RefPtr<Buffer> b = Buffer::Allocate(HostAllocator(), n * sizeof(float));
  std::fill(static_cast<float*>(b->data()), static_cast<float*>(b->data()) + n, value);
  return TensorHandle::CreateReady(Tensor(DType::kFloat32, Shape({n}), std::move(b)),
                                   DeviceManager::Global().cpu());
}

RefPtr<TensorHandle> RunOp(OpId op, std::vector<TensorHandle*> in, AttrList attrs = {}) {
  std::vector<RefPtr<TensorHandle>> out;
  Status s = ExecuteAndRun(GetOpDef(op), in.data(), static_cast<int>(in.size()), attrs, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out.empty() ? RefPtr<TensorHandle>() : out[0];
}

// Runs body(t) on kThreads threads and joins them.
template <typename Fn>
void OnThreads(Fn body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back([&body, t] { body(t); });
  for (auto& th : threads) th.join();
}

class ConcurrencyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InitCpuDevice();
    Context::Global().set_async(true);
  }
  void TearDown() override {
    EXPECT_TRUE(Context::Global().Sync().ok());
    Context::Global().set_async(false);
  }
};

// Chains of adds enqueued from several threads; some handles are polled
// while pending, some dropped before their kernel ran.
TEST_F(ConcurrencyTest, AsyncChainsFromManyThreads) {
  auto one = Filled(16, 1.0f);
  OnThreads([&](int t) {
    RefPtr<TensorHandle> x = Filled(16, static_cast<float>(t));
    for (int i = 0; i < 200; ++i) {
      x = RunOp(OpId::kAdd, {x.get(), one.get()});
      if (i % 7 == 0) (void)x->IsAvailable();
      if (i % 11 == 0) RunOp(OpId::kMultiply, {x.get(), x.get()});  // result dropped at once
    }
    ASSERT_TRUE(x->Await().ok());
    EXPECT_EQ(x->tensor().data<float>()[15], t + 200.0f);
  });
}

// Large ops split over the intra-op pool, launched from several threads.
TEST_F(ConcurrencyTest, IntraOpPoolSharedByManyCallers) {
  auto big = Filled(1 << 18, 2.0f);
  OnThreads([&](int) {
    for (int i = 0; i < 5; ++i) {
      auto y = RunOp(OpId::kMultiply, {big.get(), big.get()});
      ASSERT_TRUE(y->Await().ok());
      EXPECT_EQ(y->tensor().data<float>()[(1 << 18) - 1], 4.0f);
    }
  });
}

// Kernel errors from several threads poison their dependents, and Sync()
// reports one of them exactly once.
TEST_F(ConcurrencyTest, AsyncErrorsFromManyThreads) {
  auto nan = Filled(4, std::nanf(""));
  OnThreads([&](int) {
    for (int i = 0; i < 20; ++i) {
      auto checked = RunOp(OpId::kCheckNumerics, {nan.get()}, {AttrValue(std::string("x"))});
      auto sum = RunOp(OpId::kAdd, {checked.get(), checked.get()});
      EXPECT_FALSE(sum->Await().ok());
    }
    // Note [Async error routing]: each thread's Sync reports its own
    // failures (C++ Await does not mark them reported), once.
    EXPECT_FALSE(Context::Global().Sync().ok());
    EXPECT_TRUE(Context::Global().Sync().ok());
  });
  EXPECT_TRUE(Context::Global().Sync().ok());  // the main thread issued nothing that failed
}

// One graph run from several threads while others run eager ops.
TEST_F(ConcurrencyTest, GraphRunsMixedWithEagerOps) {
  Context::Global().set_async(false);
  Tracer tracer;
  auto x = tracer.AddParameter(DType::kFloat32, Shape({64}), DeviceManager::Global().cpu());
  RefPtr<TensorHandle> y;
  {
    TracerScope scope(&tracer);
    y = RunOp(OpId::kAdd, {x.get(), x.get()});
    for (int i = 0; i < 20; ++i) y = RunOp(OpId::kMultiply, {y.get(), y.get()});
    y = RunOp(OpId::kAdd, {y.get(), x.get()});
  }
  tracer.SetOutputs({y.get()});
  std::unique_ptr<GraphExecutor> ex;
  ASSERT_TRUE(GraphExecutor::Create(tracer.graph(), &ex).ok());
  Context::Global().set_async(true);
  auto zeros = Filled(64, 0.0f);
  OnThreads([&](int t) {
    for (int i = 0; i < 20; ++i) {
      if (t % 2 == 0) {
        std::vector<Tensor> out;
        Status s = ex->Run({zeros->tensor()}, &out);
        ASSERT_TRUE(s.ok()) << s.message();
        EXPECT_EQ(out[0].data<float>()[63], 0.0f);
      } else {
        auto z = RunOp(OpId::kAdd, {zeros.get(), zeros.get()});
        ASSERT_TRUE(z->Await().ok());
      }
    }
  });
}

}  // namespace
}  // namespace ember
