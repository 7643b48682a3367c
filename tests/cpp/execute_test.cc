// Tests Execute end to end from C++: binding, shapes, async and sync runs.
#include "runtime/execute.h"
#include "ops/op_ids.gen.h"

#include <gtest/gtest.h>

#include "test_tensors.h"

#include "devices/cpu/cpu_device.h"
#include "runtime/context.h"

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

INSTANTIATE_TEST_SUITE_P(Modes, ExecuteTest, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "Async" : "Sync"; });

}  // namespace
}  // namespace ember
