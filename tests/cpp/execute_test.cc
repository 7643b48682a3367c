// Tests Execute end to end from C++: binding, shapes, async and sync runs.
#include "runtime/execute.h"
#include "ops/op_ids.gen.h"

#include <gtest/gtest.h>

#include "test_tensors.h"

#include <thread>

#include "devices/cpu/cpu_device.h"
#include "runtime/context.h"
#include "runtime/dispatch_cache.h"

namespace ember {
namespace {

class ExecuteTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    InitCpuDevice();
    Context::Global().set_async(GetParam());
  }
};

TEST_P(ExecuteTest, AddProducesValueAndShapeAtOnce) {
  auto a = Vector({1, 2, 3});
  auto b = Vector({10, 20, 30});
  TensorHandle* in[] = {a.get(), b.get()};
  std::vector<RefPtr<TensorHandle>> out;
  ASSERT_TRUE(ExecuteAndRun(GetOpDef(OpId::kAdd), in, 2, {}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0]->shape(), Shape({3}));
  ASSERT_TRUE(out[0]->Await().ok());
  const float* r = out[0]->tensor().data<float>();
  EXPECT_EQ(r[0], 11);
  EXPECT_EQ(r[2], 33);
}

TEST_P(ExecuteTest, ShapeErrorIsSynchronousAndNamesTheOp) {
  auto a = Vector({1, 2, 3});
  auto b = Vector({1, 2});
  TensorHandle* in[] = {a.get(), b.get()};
  std::vector<RefPtr<TensorHandle>> out;
  Status s = ExecuteAndRun(GetOpDef(OpId::kAdd), in, 2, {}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("add: ", 0), 0u) << s.message();
}

TEST_P(ExecuteTest, KernelErrorPoisonsDependents) {
  auto a = Vector({1, std::numeric_limits<float>::quiet_NaN()});
  TensorHandle* in[] = {a.get()};
  std::vector<RefPtr<TensorHandle>> checked, doubled;
  ASSERT_TRUE(ExecuteAndRun(GetOpDef(OpId::kCheckNumerics), in, 1, {AttrValue(std::string("x"))}, &checked).ok());
  TensorHandle* in2[] = {checked[0].get(), checked[0].get()};
  ASSERT_TRUE(ExecuteAndRun(GetOpDef(OpId::kAdd), in2, 2, {}, &doubled).ok());
  Status s = doubled[0]->Await();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("check_numerics"), std::string::npos);
  Context::Global().Sync();  // forget the recorded async error
}

// Note [Borrowed kernel inputs]: the kernel's input list holds no
// references, and gives none back: repeated calls leave the inputs' buffers
// owned by their handles alone, and the output's by its handle.
TEST_P(ExecuteTest, RepeatedCallsLeaveBufferCountsAlone) {
  auto a = Vector({1, 2, 3});
  auto b = Vector({10, 20, 30});
  TensorHandle* in[] = {a.get(), b.get()};
  for (int i = 0; i < 5; ++i) {
    std::vector<RefPtr<TensorHandle>> out;
    ASSERT_TRUE(ExecuteAndRun(GetOpDef(OpId::kAdd), in, 2, {}, &out).ok());
    ASSERT_TRUE(out[0]->Await().ok());
    EXPECT_EQ(out[0]->tensor().data<float>()[1], 22);
    EXPECT_EQ(out[0]->tensor().buffer()->RefCount(), 1);
  }
  EXPECT_EQ(a->tensor().buffer()->RefCount(), 1);
  EXPECT_EQ(b->tensor().buffer()->RefCount(), 1);
}

// Note [Borrowed kernels]: while a launch borrows an entry's kernel, a call
// of the same op on other shapes does not replace the entry.
TEST_P(ExecuteTest, DispatchEntryInUseIsNotReplaced) {
  const OpDef& add = GetOpDef(OpId::kAdd);
  auto a = Vector({1, 2, 3});
  TensorHandle* in[] = {a.get(), a.get()};
  std::vector<RefPtr<TensorHandle>> out;
  ASSERT_TRUE(ExecuteAndRun(add, in, 2, {}, &out).ok());
  ASSERT_TRUE(ExecuteAndRun(add, in, 2, {}, &out).ok());
  const DispatchEntry* entry = FindDispatchEntry(add, in, 2, {});
  ASSERT_NE(entry, nullptr);
  const OpKernel* kernel = entry->kernel.get();
  auto c = Vector({1, 2});
  TensorHandle* other[] = {c.get(), c.get()};
  {
    DispatchEntryInUse in_use(entry);
    ASSERT_TRUE(ExecuteAndRun(add, other, 2, {}, &out).ok());
    ASSERT_TRUE(out[0]->Await().ok());
    EXPECT_EQ(out[0]->tensor().data<float>()[1], 4);
    EXPECT_EQ(FindDispatchEntry(add, other, 2, {}), nullptr);
    EXPECT_EQ(FindDispatchEntry(add, in, 2, {}), entry);
    EXPECT_EQ(entry->kernel.get(), kernel);
  }
  ASSERT_TRUE(ExecuteAndRun(add, other, 2, {}, &out).ok());
  EXPECT_NE(FindDispatchEntry(add, other, 2, {}), nullptr);  // stored once no launch borrows it
}

// Note [Dispatch hit counts]: each thread counts its own hits; the kernel
// cache's stats add them up, those of exited threads too, until Clear.
TEST_P(ExecuteTest, DispatchHitsOfEveryThreadCount) {
  const OpDef& add = GetOpDef(OpId::kAdd);
  KernelCache& cache = Context::Global().kernel_cache();
  const uint64_t before = cache.GetStats().hits;
  std::thread worker([&] {
    auto a = Vector({1, 2, 3});
    TensorHandle* in[] = {a.get(), a.get()};
    for (int i = 0; i < 4; ++i) {
      std::vector<RefPtr<TensorHandle>> out;
      ASSERT_TRUE(ExecuteAndRun(add, in, 2, {}, &out).ok());
    }
  });
  worker.join();
  EXPECT_GE(cache.GetStats().hits - before, 3u);  // the first call stores the entry
  cache.Clear();
  EXPECT_EQ(DispatchHits(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, ExecuteTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Async" : "Sync"; });

}  // namespace
}  // namespace ember
