// Tests device error words (Note [Device error words]) on CudaStreams over
// FakeCudaApi: a "kernel" (host work in stream order) claims a word, and
// the verdict reaches the launch's outputs, the values computed from them,
// and ember.sync()'s error sink only once the kernel ran.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "core/device_error.h"
#include "devices/cuda/cuda_error_words.h"
#include "devices/cuda/cuda_stream.h"
#include "fake_cuda_api.h"
#include "runtime/context.h"
#include "runtime/tensor_handle.h"

namespace ember::cuda {
namespace {

using testing::FakeCudaApi;

std::string Describe(const DeviceErrorWord& w) {
  return "indices[" + std::to_string(w.position) + "] = " + std::to_string(w.value) + " is not in [0, " +
         std::to_string(w.bound) + ")";
}

struct WordFixture : ::testing::Test {
  FakeCudaApi api{1};
  DeviceHealth health;
  CudaErrorWords words{&api};
  CudaStream stream{"s", &api, 0, nullptr, &health};

  // A launch of a kernel that takes a word; `bad` says whether it finds a
  // bad index (at position 3, value 7, bound 5) when the stream runs it.
  RefPtr<DeferredError> Launch(bool bad, const std::string& op = "gather") {
    DeviceErrorWord* word = words.Acquire();
    EXPECT_NE(word, nullptr);
    RefPtr<DeferredError> verdict = DeferredError::ForWord(&words, word, op, Describe);
    const uint64_t ticket = stream.Post([this, word, bad] {
      api.LaunchHostWork(stream.handle(), [word, bad] {
        if (!bad || word->code != kDeviceErrorNone) return;
        word->code = kDeviceErrorIndexOutOfRange;
        word->position = 3;
        word->value = 7;
        word->bound = 5;
      });
    });
    verdict->SetEvent(Event{&stream, ticket});
    return verdict;
  }
};

TEST_F(WordFixture, WordsAreZeroedAndReused) {
  DeviceErrorWord* a = words.Acquire();
  a->code = 1;
  a->value = 9;
  words.Release(a);
  DeviceErrorWord* b = words.Acquire();
  EXPECT_EQ(b, a);
  EXPECT_EQ(b->code, 0u);
  EXPECT_EQ(b->value, 0);
  std::vector<DeviceErrorWord*> many;
  for (size_t i = 0; i < CudaErrorWords::kWordsPerSlab + 1; ++i) many.push_back(words.Acquire());
  EXPECT_EQ(words.slabs(), 2u);
  EXPECT_EQ(words.in_use(), CudaErrorWords::kWordsPerSlab + 2);
  for (auto* w : many) words.Release(w);
  words.Release(b);
  EXPECT_EQ(words.in_use(), 0u);
}

TEST_F(WordFixture, VerdictIsKnownOnlyAfterTheKernelRan) {
  auto gate = api.Block(stream.handle());
  RefPtr<DeferredError> bad = Launch(true);
  RefPtr<DeferredError> good = Launch(false);
  EXPECT_FALSE(good->KnownOk());  // not run yet
  gate->Open();
  const Status& s = bad->Resolve();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "gather: indices[3] = 7 is not in [0, 5)");
  EXPECT_TRUE(good->Resolve().ok());
  EXPECT_TRUE(good->KnownOk());
  EXPECT_FALSE(bad->KnownOk());
  // The same Status each time: reporting it once marks it for every reader.
  EXPECT_EQ(&bad->Resolve(), &s);
}

TEST_F(WordFixture, WordsGoBackWhenTheLastValueCarryingThemIsGone) {
  {
    RefPtr<DeferredError> v = Launch(false);
    EXPECT_EQ(words.in_use(), 1u);
    v->Resolve();
  }
  EXPECT_EQ(words.in_use(), 0u);
}

TEST_F(WordFixture, JointVerdictsFlattenDeduplicateAndReportTheFirstFailure) {
  RefPtr<DeferredError> good = Launch(false);
  RefPtr<DeferredError> bad = Launch(true, "gather_nd");
  EXPECT_EQ(DeferredError::Joint({good, good}).get(), good.get());
  RefPtr<DeferredError> joint = DeferredError::Joint({good, bad});
  RefPtr<DeferredError> nested = DeferredError::Joint({joint, bad, good});
  std::vector<RefPtr<DeferredError>> parts;
  nested->AppendWords(&parts);
  EXPECT_EQ(parts.size(), 2u);  // joints hold words, never joints
  EXPECT_EQ(nested->Resolve().message(), "gather_nd: indices[3] = 7 is not in [0, 5)");
  EXPECT_EQ(DeferredError::Joint({}).get(), nullptr);
}

// Note [Deferred errors in handles]: the launch's outputs and every value
// computed from them while unresolved fail with the word's error.
TEST_F(WordFixture, HandlesCarryTheVerdictToValuesComputedFromThem) {
  auto gate = api.Block(stream.handle());
  RefPtr<DeferredError> bad = Launch(true);
  auto made = [&](RefPtr<DeferredError> deferred) {
    RefPtr<TensorHandle> h = TensorHandle::CreatePending(DType::kFloat32, Shape({2}), nullptr);
    h->SetTensor(Tensor(DType::kFloat32, Shape({2}), nullptr));
    if (deferred) h->SetDeferredError(std::move(deferred));
    h->MarkDefined(stream.Record());
    return h;
  };
  RefPtr<TensorHandle> gathered = made(bad);
  RefPtr<TensorHandle> clean = made(nullptr);
  const auto deferred_of = [](const RefPtr<TensorHandle>& h) -> const RefPtr<DeferredError>& {
    return h->deferred_error();
  };
  // A consumer launched while the gather is still queued carries its verdict.
  std::vector<RefPtr<TensorHandle>> inputs = {clean, gathered};
  RefPtr<TensorHandle> sum = made(CarryDeferredErrors(inputs, deferred_of, nullptr));
  RefPtr<TensorHandle> untouched = made(CarryDeferredErrors(std::vector<RefPtr<TensorHandle>>{clean}, deferred_of,
                                                            nullptr));
  EXPECT_FALSE(sum->IsAvailable());
  gate->Open();
  EXPECT_EQ(gathered->Await().message(), "gather: indices[3] = 7 is not in [0, 5)");
  EXPECT_EQ(sum->Await().message(), "gather: indices[3] = 7 is not in [0, 5)");
  EXPECT_TRUE(sum->IsError());
  EXPECT_TRUE(untouched->Await().ok());
  EXPECT_EQ(untouched->deferred_error().get(), nullptr);
  // Launched after the verdict was known good: nothing to carry.
  RefPtr<DeferredError> good = Launch(false);
  good->Resolve();
  EXPECT_EQ(CarryDeferredErrors(std::vector<RefPtr<TensorHandle>>{made(good)}, deferred_of, nullptr).get(), nullptr);
}

// ember.sync() in async mode: the sink resolves what it was given, skips
// what a reader already raised, and drops verdicts known good.
TEST_F(WordFixture, ErrorSinkRaisesUnreadFailuresOnce) {
  ErrorSink sink;
  RefPtr<DeferredError> bad = Launch(true);
  RefPtr<DeferredError> also_bad = Launch(true, "scatter_nd");
  sink.RecordDeferred(bad, 1);
  sink.RecordDeferred(also_bad, 2);
  for (int i = 0; i < 100; ++i) {
    sink.RecordDeferred(Launch(false), 3 + i);
    stream.Drain();  // known good from here on
  }
  stream.Drain();
  also_bad->Resolve().MarkReported();  // a reader raised this one
  std::vector<Status> errors = sink.TakeUnreported();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message(), "gather: indices[3] = 7 is not in [0, 5)");
  EXPECT_TRUE(sink.TakeUnreported().empty());
  EXPECT_LE(words.in_use(), 2u + 64u);  // good verdicts were dropped as more came
}

// A device that failed for good reports that failure; its words mean
// nothing, so the verdict does not add a second error.
TEST_F(WordFixture, FailedDeviceLeavesTheWordUnread) {
  RefPtr<DeferredError> bad = Launch(true);
  api.InjectFault(stream.handle(), kErrorIllegalAddress);
  stream.Drain();
  EXPECT_FALSE(stream.Failure().ok());
  EXPECT_TRUE(bad->Resolve().ok());
}

}  // namespace
}  // namespace ember::cuda
