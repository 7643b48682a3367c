// Tests the recording half of the gradient tape (Note [Gradient tape]):
// what it keeps, what it skips, and that kept values are never donated.
#include "autodiff/tape.h"

#include <gtest/gtest.h>

#include "test_tensors.h"

#include "devices/cpu/cpu_device.h"
#include "graph/tracer.h"
#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/execute.h"

namespace ember {
namespace {

RefPtr<TensorHandle> RunOp(OpId op, std::vector<TensorHandle*> inputs, uint32_t donated = 0) {
  ExecuteResult result;
  Status s = Execute(GetOpDef(op), inputs.data(), static_cast<int>(inputs.size()), {}, nullptr, donated, &result);
  EXPECT_TRUE(s.ok()) << s.message();
  if (result.inline_task) result.inline_task->Run();
  EXPECT_TRUE(result.outputs[0]->Await().ok());
  return result.outputs[0];
}

// Pushes a tape on this thread for the test's lifetime.
class TapeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InitCpuDevice();
    Context::Global().set_async(false);
    AddOpCallObserver(&tape_);
  }
  void TearDown() override { RemoveOpCallObserver(&tape_); }
  Tape tape_;
};

TEST_F(TapeTest, KeepsOnlyCallsThatReadWatchedValues) {
  auto x = Vector({1, 2});
  auto c = Vector({3, 4});
  RunOp(OpId::kMultiply, {c.get(), c.get()});  // nothing watched yet
  EXPECT_TRUE(tape_.entries().empty());
  tape_.Watch(x);
  auto y = RunOp(OpId::kMultiply, {x.get(), c.get()});
  auto z = RunOp(OpId::kExp, {y.get()});  // reads a watched output
  ASSERT_EQ(tape_.entries().size(), 2u);
  EXPECT_EQ(tape_.entries()[0].op->id, OpId::kMultiply);
  EXPECT_EQ(tape_.entries()[1].op->id, OpId::kExp);
  EXPECT_TRUE(tape_.IsWatched(z.get()));
}

TEST_F(TapeTest, SkipsNotDifferentiableOpsAndIntegerOutputs) {
  auto x = Vector({1, 2});
  tape_.Watch(x);
  RunOp(OpId::kGreater, {x.get(), x.get()});  // declared grad: none
  EXPECT_TRUE(tape_.entries().empty());
  auto stopped = RunOp(OpId::kStopGradient, {x.get()});
  EXPECT_TRUE(tape_.entries().empty());
  EXPECT_FALSE(tape_.IsWatched(stopped.get()));
}

TEST_F(TapeTest, PausedTapeRecordsNothing) {
  auto x = Vector({1, 2});
  tape_.Watch(x);
  tape_.set_recording(false);
  RunOp(OpId::kExp, {x.get()});
  tape_.set_recording(true);
  EXPECT_TRUE(tape_.entries().empty());
}

TEST_F(TapeTest, SavedInputIsNeverDonated) {
  auto x = Vector({1, 2});
  tape_.Watch(x);
  auto y = RunOp(OpId::kExp, {x.get()});
  const void* saved = y->tensor().raw_data();
  // The caller donates y (as Python does for a temporary), but the tape
  // saved it for exp's gradient: the output must get a buffer of its own.
  auto z = RunOp(OpId::kExp, {y.get()}, /*donated=*/1u);
  EXPECT_NE(z->tensor().raw_data(), saved);
  EXPECT_TRUE(y->saved());
}

TEST(TapeDonationTest, UnsavedTemporaryIsStillDonated) {
  InitCpuDevice();
  Context::Global().set_async(false);
  auto x = Vector({1, 2});
  auto y = RunOp(OpId::kExp, {x.get()});
  const void* buffer = y->tensor().raw_data();
  auto z = RunOp(OpId::kExp, {y.get()}, /*donated=*/1u);
  // The control for the test above: without a tape the buffer is reused.
  EXPECT_EQ(z->tensor().raw_data(), buffer);
}

TEST(TapeContextTest, EagerTapeIgnoresTracedOps) {
  InitCpuDevice();
  Tape tape;  // created eagerly
  AddOpCallObserver(&tape);
  auto x = Vector({1, 2});
  tape.Watch(x);
  {
    Tracer tracer;
    TracerScope scope(&tracer);
    TensorHandle* in[] = {x.get()};
    ExecuteResult result;
    ASSERT_TRUE(Execute(GetOpDef(OpId::kExp), in, 1, {}, nullptr, 0, &result).ok());
  }
  EXPECT_TRUE(tape.entries().empty());
  RemoveOpCallObserver(&tape);
}

TEST(TapeObserverTest, NoObserversMeansTheCountIsZero) {
  EXPECT_FALSE(AnyOpCallObservers());
  Tape tape;
  AddOpCallObserver(&tape);
  EXPECT_TRUE(AnyOpCallObservers());
  RemoveOpCallObserver(&tape);
  RemoveOpCallObserver(&tape);  // a second removal is a no-op
  EXPECT_FALSE(AnyOpCallObservers());
}

}  // namespace
}  // namespace ember
