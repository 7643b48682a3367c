// Tests CachingAllocator: block reuse, splitting and merging, sizes, stats,
// the limit, EmptyCache, per-stream pools and the fence rule of
// Note [Stream-ordered memory], from one thread and from many.
#include "core/caching_allocator.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/stream.h"

namespace ember {
namespace {

constexpr size_t kKiB = size_t{1} << 10;
constexpr size_t kMiB = size_t{1} << 20;

// Host memory standing in for a device's, counting calls; refuses to hold
// more than `capacity` bytes (0: no cap).
class FakeSource : public SubAllocator {
 public:
  struct Counters {
    std::atomic<int> allocs{0};
    std::atomic<int> frees{0};
    std::atomic<size_t> held{0};
  };
  FakeSource(Counters* counters, size_t capacity) : counters_(counters), capacity_(capacity) {}

  void* Alloc(size_t bytes) override {
    if (capacity_ != 0 && counters_->held + bytes > capacity_) return nullptr;
    void* ptr = std::aligned_alloc(CachingAllocator::kMinBlockSize, bytes);
    if (ptr == nullptr) return nullptr;
    ++counters_->allocs;
    counters_->held += bytes;
    return ptr;
  }
  void Free(void* ptr, size_t bytes) override {
    std::free(ptr);
    ++counters_->frees;
    counters_->held -= bytes;
  }
  MemoryKind kind() const override { return MemoryKind::kDevice; }
  const char* Name() const override { return "fake"; }

 private:
  Counters* counters_;
  size_t capacity_;
};

// A stream whose progress the test sets by hand.
class FakeStream : public Stream {
 public:
  uint64_t LastPosted() const override { return posted_; }
  uint64_t LastCompleted() const override { return completed_; }
  void Drain() override { completed_.store(posted_.load()); }
  bool BlockUntil(uint64_t ticket, std::chrono::microseconds) override { return Passed(ticket); }
  void Complete(uint64_t ticket) { completed_.store(ticket); }

 protected:
  uint64_t DoPost(std::function<void()> work, WorkKind) override {
    (void)work;
    return ++posted_;
  }
  void DoWait(const Event&) override {}
  void DoOnCompleted(uint64_t, std::function<void()>) override {}

 private:
  std::atomic<uint64_t> posted_{0};
  std::atomic<uint64_t> completed_{0};
};

class CachingAllocatorTest : public ::testing::Test {
 protected:
  explicit CachingAllocatorTest(size_t capacity = 0)
      : allocator_("test", std::make_unique<FakeSource>(&source_, capacity)) {}

  FakeSource::Counters source_;
  CachingAllocator allocator_;
};

TEST_F(CachingAllocatorTest, ReportsNameAndKind) {
  EXPECT_STREQ(allocator_.Name(), "test");
  EXPECT_EQ(allocator_.memory_kind(), MemoryKind::kDevice);
}

TEST_F(CachingAllocatorTest, ReusesFreedBlockWithoutCallingSource) {
  void* a = allocator_.Allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(source_.allocs, 1);
  allocator_.Deallocate(a, 1000);
  for (int i = 0; i < 100; ++i) {
    void* b = allocator_.Allocate(1000);
    EXPECT_EQ(b, a);
    allocator_.Deallocate(b, 1000);
  }
  // Many small blocks fit one 2 MiB segment.
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) blocks.push_back(allocator_.Allocate(16 * kKiB));
  EXPECT_EQ(source_.allocs, 1);
  for (void* p : blocks) allocator_.Deallocate(p, 16 * kKiB);
  EXPECT_EQ(source_.frees, 0);
}

// Note [Capture sink]: blocks freed on a capturing thread stay out of the
// cache until the sink goes; other threads' frees, and frees after the
// scope, are not affected.
TEST_F(CachingAllocatorTest, CaptureSinkKeepsBlocksFreedDuringACapture) {
  void* before = allocator_.Allocate(1000);
  auto sink = std::make_unique<CaptureSink>(&allocator_);
  void* workspace = nullptr;
  {
    CaptureSinkScope scope(sink.get());
    workspace = allocator_.Allocate(1000);
    allocator_.Deallocate(workspace, 1000);
    void* next = allocator_.Allocate(1000);
    EXPECT_NE(next, workspace);  // not reused: the graph would write it again
    std::thread other([&] { allocator_.Deallocate(before, 1000); });  // another thread's free is a free
    other.join();
    allocator_.Deallocate(next, 1000);
  }
  EXPECT_EQ(sink->num_blocks(), 2u);
  void* after = allocator_.Allocate(1000);
  EXPECT_EQ(after, before);  // the other thread's block came back to the cache
  void* again = allocator_.Allocate(1000);
  EXPECT_NE(again, workspace);
  allocator_.Deallocate(after, 1000);
  allocator_.Deallocate(again, 1000);
  sink.reset();  // the graph is gone: its blocks return
  std::set<void*> reused;
  for (int i = 0; i < 4; ++i) reused.insert(allocator_.Allocate(1000));
  EXPECT_TRUE(reused.count(workspace));
}

TEST_F(CachingAllocatorTest, SplitsAndMergesNeighbours) {
  void* a = allocator_.Allocate(256 * kKiB);
  void* b = allocator_.Allocate(256 * kKiB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  // Both carved from one segment, back to back.
  EXPECT_EQ(static_cast<char*>(b), static_cast<char*>(a) + 256 * kKiB);
  allocator_.Deallocate(a, 256 * kKiB);
  allocator_.Deallocate(b, 256 * kKiB);
  // The two halves and the rest merged back into the whole segment.
  void* whole = allocator_.Allocate(CachingAllocator::kSmallSize);
  EXPECT_EQ(whole, a);
  EXPECT_EQ(source_.allocs, 1);
  allocator_.Deallocate(whole, CachingAllocator::kSmallSize);
  allocator_.EmptyCache();
  EXPECT_EQ(source_.frees, 1);  // merged into one free segment again
}

TEST_F(CachingAllocatorTest, BestFitPrefersTheSmallestHole) {
  void* a = allocator_.Allocate(64 * kKiB);
  void* sep1 = allocator_.Allocate(512);
  void* b = allocator_.Allocate(8 * kKiB);
  void* sep2 = allocator_.Allocate(512);
  allocator_.Deallocate(a, 64 * kKiB);
  allocator_.Deallocate(b, 8 * kKiB);
  EXPECT_EQ(allocator_.Allocate(4 * kKiB), b);
  EXPECT_EQ(allocator_.Allocate(32 * kKiB), a);
  (void)sep1;
  (void)sep2;
}

TEST_F(CachingAllocatorTest, RoundsSizesAndServesZeroBytes) {
  void* z = allocator_.Allocate(0);
  ASSERT_NE(z, nullptr);
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 512u);
  void* one = allocator_.Allocate(1);
  EXPECT_EQ(static_cast<char*>(one), static_cast<char*>(z) + 512);
  void* odd = allocator_.Allocate(513);
  EXPECT_EQ(static_cast<char*>(odd), static_cast<char*>(one) + 512);
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 512u + 512u + 1024u);
  std::memset(z, 0xab, 512);  // the whole rounded block is usable
  allocator_.Deallocate(z, 0);
  allocator_.Deallocate(one, 1);
  allocator_.Deallocate(odd, 513);
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 0u);
  EXPECT_EQ(allocator_.Allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(allocator_.Allocate(SIZE_MAX - 100), nullptr);
}

TEST_F(CachingAllocatorTest, KeepsStats) {
  void* a = allocator_.Allocate(1000);  // 1024
  void* b = allocator_.Allocate(3000);  // 3072
  Allocator::Stats s = allocator_.GetStats();
  EXPECT_EQ(s.bytes_in_use, 4096u);
  EXPECT_EQ(s.peak_bytes_in_use, 4096u);
  EXPECT_EQ(s.bytes_reserved, CachingAllocator::kSmallBuffer);
  EXPECT_EQ(s.num_allocs, 2u);
  EXPECT_EQ(s.limit_bytes, 0u);
  allocator_.Deallocate(a, 1000);
  s = allocator_.GetStats();
  EXPECT_EQ(s.bytes_in_use, 3072u);
  EXPECT_EQ(s.peak_bytes_in_use, 4096u);
  EXPECT_EQ(s.bytes_reserved, CachingAllocator::kSmallBuffer);  // cached
  allocator_.ResetPeak();
  EXPECT_EQ(allocator_.GetStats().peak_bytes_in_use, 3072u);
  void* big = allocator_.Allocate(12 * kMiB);
  s = allocator_.GetStats();
  EXPECT_EQ(s.bytes_in_use, 3072u + 12 * kMiB);
  EXPECT_EQ(s.bytes_reserved, CachingAllocator::kSmallBuffer + 12 * kMiB);
  EXPECT_EQ(s.num_allocs, 3u);
  allocator_.Deallocate(b, 3000);
  allocator_.Deallocate(big, 12 * kMiB);
  allocator_.EmptyCache();
  s = allocator_.GetStats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  EXPECT_EQ(s.bytes_reserved, 0u);
  EXPECT_EQ(s.peak_bytes_in_use, 3072u + 12 * kMiB);
}

TEST_F(CachingAllocatorTest, LimitCapsReservedBytes) {
  allocator_.SetLimit(3 * kMiB);
  EXPECT_EQ(allocator_.GetStats().limit_bytes, 3 * kMiB);
  // A 20 MiB segment would pass the limit: a segment of the request's size.
  void* a = allocator_.Allocate(1536 * kKiB);
  void* b = allocator_.Allocate(1536 * kKiB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 3 * kMiB);
  EXPECT_EQ(allocator_.Allocate(1), nullptr);
  EXPECT_EQ(allocator_.Allocate(4 * kMiB), nullptr);
  // Freed but cached: still reserved, so the allocator empties its cache.
  allocator_.Deallocate(a, 1536 * kKiB);
  void* c = allocator_.Allocate(1);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(source_.frees, 1);
  EXPECT_LE(allocator_.GetStats().bytes_reserved, 3 * kMiB);
  allocator_.Deallocate(b, 1536 * kKiB);
  allocator_.Deallocate(c, 1);
  allocator_.EmptyCache();
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 0u);
  allocator_.SetLimit(0);
  void* d = allocator_.Allocate(4 * kMiB);
  EXPECT_NE(d, nullptr);
  allocator_.Deallocate(d, 4 * kMiB);
}

class CachingAllocatorSmallSourceTest : public CachingAllocatorTest {
 protected:
  CachingAllocatorSmallSourceTest() : CachingAllocatorTest(24 * kMiB) {}
};

TEST_F(CachingAllocatorSmallSourceTest, SourceFailureEmptiesCacheAndRetries) {
  void* a = allocator_.Allocate(2 * kMiB);  // a 20 MiB segment
  ASSERT_NE(a, nullptr);
  allocator_.Deallocate(a, 2 * kMiB);
  // 22 MiB does not fit the cached 20 MiB, and the source has 4 MiB left
  // until the cached segment goes back.
  void* b = allocator_.Allocate(22 * kMiB);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(source_.frees, 1);
  EXPECT_EQ(allocator_.Allocate(16 * kMiB), nullptr);
  // 1.5 MiB: the source refuses a 20 MiB segment but gives one of 1.5 MiB.
  void* c = allocator_.Allocate(1536 * kKiB);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 22 * kMiB + 1536 * kKiB);
  allocator_.Deallocate(b, 22 * kMiB);
  allocator_.Deallocate(c, 0);
}

TEST_F(CachingAllocatorTest, EmptyCacheReturnsOnlyFreeSegments) {
  void* small = allocator_.Allocate(4 * kKiB);
  // Fill the first small segment so the next block opens a second one.
  std::vector<void*> fill;
  for (int i = 0; i < 3; ++i) fill.push_back(allocator_.Allocate(kMiB - 8 * kKiB));
  EXPECT_EQ(source_.allocs, 2);
  void* small_free = fill.back();  // alone in the second segment
  void* large = allocator_.Allocate(30 * kMiB);
  EXPECT_EQ(source_.allocs, 3);
  allocator_.Deallocate(small_free, 0);
  allocator_.Deallocate(large, 30 * kMiB);
  allocator_.EmptyCache();
  EXPECT_EQ(source_.frees, 2);  // the second small segment and the large one
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, CachingAllocator::kSmallBuffer);
  allocator_.Deallocate(small, 4 * kKiB);
  allocator_.Deallocate(fill[0], 0);
  allocator_.Deallocate(fill[1], 0);
  allocator_.EmptyCache();
  EXPECT_EQ(source_.frees, 3);
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 0u);
  EXPECT_EQ(source_.held, 0u);
}

TEST_F(CachingAllocatorTest, PoolsArePerStream) {
  FakeStream a;
  FakeStream b;
  void* pa = allocator_.Allocate(4 * kKiB, &a);
  allocator_.Deallocate(pa, 4 * kKiB);
  void* pb = allocator_.Allocate(4 * kKiB, &b);
  EXPECT_NE(pb, pa);
  EXPECT_EQ(source_.allocs, 2);  // stream B got a segment of its own
  void* host = allocator_.Allocate(4 * kKiB, nullptr);
  EXPECT_NE(host, pa);
  EXPECT_EQ(source_.allocs, 3);  // the null stream is a stream too
  EXPECT_EQ(allocator_.Allocate(4 * kKiB, &a), pa);
  allocator_.Deallocate(host, 0);
  EXPECT_EQ(allocator_.Allocate(100, nullptr), host);
}

TEST_F(CachingAllocatorTest, SameStreamReusesAtOnce) {
  FakeStream a;
  a.Post([] {});
  a.Post([] {});  // queued, not finished
  void* p = allocator_.Allocate(4 * kKiB, &a);
  allocator_.RecordStream(p, &a);  // its own stream: no fence
  allocator_.Deallocate(p, 4 * kKiB);
  EXPECT_EQ(allocator_.Allocate(4 * kKiB, &a), p);
}

TEST_F(CachingAllocatorTest, RecordedStreamFencesReuse) {
  FakeStream a;
  FakeStream b;
  void* p = allocator_.Allocate(4 * kKiB, &a);
  allocator_.RecordStream(p, &b);
  b.Post([] {});
  b.Post([] {});  // ticket 2: the last work on B when p is freed
  allocator_.Deallocate(p, 4 * kKiB);
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 0u);
  b.Post([] {});  // later work does not delay the fence
  // Held out of every pool, its own stream's included, until B passes 2.
  void* q = allocator_.Allocate(4 * kKiB, &a);
  EXPECT_NE(q, p);
  void* r = allocator_.Allocate(4 * kKiB, &b);
  EXPECT_NE(r, p);
  b.Complete(1);
  EXPECT_NE(allocator_.Allocate(4 * kKiB, &a), p);
  // B finishes ticket 2 (not 3): p is back in A's pool.
  b.Complete(2);
  void* again = allocator_.Allocate(4 * kKiB, &a);
  EXPECT_EQ(again, p);
  allocator_.Deallocate(q, 0);
  allocator_.Deallocate(r, 0);
  allocator_.Deallocate(again, 0);
}

// A fence already passed at the free costs nothing; the ticket is the one
// posted when the block was freed, not when it was recorded.
TEST_F(CachingAllocatorTest, FenceTakesTicketAtFree) {
  FakeStream a;
  FakeStream b;
  void* p = allocator_.Allocate(4 * kKiB, &a);
  allocator_.RecordStream(p, &b);
  allocator_.Deallocate(p, 4 * kKiB);  // B has posted nothing
  EXPECT_EQ(allocator_.Allocate(4 * kKiB, &a), p);
  allocator_.RecordStream(p, &b);
  b.Post([] {});
  b.Drain();
  b.Post([] {});  // ticket 2, unfinished, posted after the record
  allocator_.Deallocate(p, 4 * kKiB);
  EXPECT_NE(allocator_.Allocate(4 * kKiB, &a), p);
  b.Drain();
  EXPECT_EQ(allocator_.Allocate(4 * kKiB, &a), p);
}

TEST_F(CachingAllocatorTest, PendingBlockFreedByEmptyCacheOnceFencePassed) {
  FakeStream a;
  FakeStream b;
  void* p = allocator_.Allocate(4 * kKiB, &a);
  allocator_.RecordStream(p, &b);
  b.Post([] {});
  allocator_.Deallocate(p, 4 * kKiB);
  allocator_.EmptyCache();
  EXPECT_EQ(source_.frees, 0);
  b.Drain();
  allocator_.EmptyCache();
  EXPECT_EQ(source_.frees, 1);
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 0u);
}

TEST_F(CachingAllocatorTest, IgnoresUnknownPointers) {
  int on_stack = 0;
  allocator_.Deallocate(&on_stack, sizeof(on_stack));
  allocator_.Deallocate(nullptr, 0);
  FakeStream stream;
  allocator_.RecordStream(&on_stack, &stream);
  void* p = allocator_.Allocate(100);
  allocator_.Deallocate(p, 100);
  allocator_.Deallocate(p, 100);  // twice: the second is unknown
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 0u);
}

TEST_F(CachingAllocatorTest, LargeAllocations) {
  // Below 10 MiB: shared 20 MiB segments.
  void* a = allocator_.Allocate(3 * kMiB);
  void* b = allocator_.Allocate(3 * kMiB);
  EXPECT_EQ(source_.allocs, 1);
  EXPECT_EQ(static_cast<char*>(b), static_cast<char*>(a) + 3 * kMiB);
  // From 10 MiB (and more than the 14 MiB left there): a segment of its
  // own, rounded to 2 MiB.
  void* c = allocator_.Allocate(15 * kMiB + 1);
  EXPECT_EQ(source_.allocs, 2);
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 20 * kMiB + 16 * kMiB);
  std::memset(c, 1, 15 * kMiB + 1);
  allocator_.Deallocate(c, 0);
  // A slightly bigger request fits the rounded segment.
  void* d = allocator_.Allocate(16 * kMiB);
  EXPECT_EQ(d, c);
  EXPECT_EQ(source_.allocs, 2);
  // A rest of at most 1 MiB is not split off a large block.
  allocator_.Deallocate(d, 0);
  void* e = allocator_.Allocate(15 * kMiB + 512 * kKiB);
  EXPECT_EQ(e, c);
  EXPECT_EQ(allocator_.GetStats().bytes_in_use, 6 * kMiB + 16 * kMiB);
  // Large requests never take small-pool blocks, nor small ones large.
  void* s = allocator_.Allocate(kMiB);
  EXPECT_EQ(source_.allocs, 3);
  void* big = allocator_.Allocate(256 * kMiB);
  ASSERT_NE(big, nullptr);
  EXPECT_EQ(source_.allocs, 4);
  for (void* p : {a, b, e, s, big}) allocator_.Deallocate(p, 0);
  allocator_.EmptyCache();
  EXPECT_EQ(source_.held, 0u);
}

TEST_F(CachingAllocatorTest, DestructorReturnsEverySegment) {
  FakeSource::Counters counters;
  {
    CachingAllocator allocator("leaky", std::make_unique<FakeSource>(&counters, 0));
    FakeStream b;
    allocator.Allocate(100);
    allocator.Allocate(40 * kMiB);
    allocator.Allocate(100, &b);
    void* other = allocator.Allocate(200, &b);
    FakeStream c;
    allocator.RecordStream(other, &c);
    c.Post([] {});
    allocator.Deallocate(other, 200);
  }
  EXPECT_EQ(counters.allocs, counters.frees);
  EXPECT_EQ(counters.held, 0u);
}

TEST_F(CachingAllocatorTest, ManyThreads) {
  constexpr int kThreads = 4;
  constexpr int kSteps = 10000;
  FakeStream streams[2];
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(1234 + t);
      std::vector<std::pair<void*, size_t>> live;
      for (int i = 0; i < kSteps; ++i) {
        if (live.size() < 64 && (live.empty() || rng() % 2 == 0)) {
          // Mostly small, now and then large.
          const size_t bytes = rng() % 16 == 0 ? rng() % (12 * kMiB) : rng() % (64 * kKiB);
          Stream* stream = (rng() % 3 == 0) ? nullptr : &streams[t % 2];
          void* p = allocator_.Allocate(bytes, stream);
          if (p == nullptr) {
            ++failures;
            continue;
          }
          if (bytes > 0) static_cast<char*>(p)[bytes - 1] = 1;
          if (rng() % 8 == 0) allocator_.RecordStream(p, &streams[(t + 1) % 2]);
          live.emplace_back(p, bytes);
        } else {
          const size_t k = rng() % live.size();
          allocator_.Deallocate(live[k].first, live[k].second);
          live[k] = live.back();
          live.pop_back();
        }
        if (i % 1000 == 0) {
          streams[t % 2].Post([] {});
          if (t == 0) allocator_.EmptyCache();
        }
        if (i % 100 == 0) streams[t % 2].Drain();
      }
      for (auto& [p, bytes] : live) allocator_.Deallocate(p, bytes);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  Allocator::Stats s = allocator_.GetStats();
  EXPECT_EQ(s.bytes_in_use, 0u);
  for (auto& stream : streams) stream.Drain();
  allocator_.EmptyCache();
  EXPECT_EQ(allocator_.GetStats().bytes_reserved, 0u);
  EXPECT_EQ(source_.held, 0u);
}

}  // namespace
}  // namespace ember
