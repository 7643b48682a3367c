// Tests the host allocator's cache of large blocks (Note [Host allocator]):
// reuse by size class and by a class up to twice as large, alignment, stats,
// EmptyCache giving memory back, small blocks uncached, and many threads.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/allocator.h"
#include "core/ref_counted.h"

namespace ember {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

size_t Cached(Allocator* a) {
  const Allocator::Stats s = a->GetStats();
  return s.bytes_reserved - s.bytes_in_use;
}

TEST(HostAllocatorTest, LargeBlockIsReusedForTheSameSizeClass) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  void* first = a->Allocate(3 * kMiB + 17);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % kHostAlignment, 0u);
  std::memset(first, 1, 3 * kMiB + 17);
  a->Deallocate(first, 3 * kMiB + 17);
  EXPECT_GE(Cached(a), 3 * kMiB);
  // 3 MiB + 100 rounds to the same class (2-4 MiB steps by 512 KiB).
  void* second = a->Allocate(3 * kMiB + 100);
  EXPECT_EQ(second, first);
  EXPECT_EQ(Cached(a), 0u);
  a->Deallocate(second, 3 * kMiB + 100);
  a->EmptyCache();
  EXPECT_EQ(Cached(a), 0u);
}

TEST(HostAllocatorTest, BlocksMoreThanTwiceTheRequestAreNotShared) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  void* big = a->Allocate(8 * kMiB);
  a->Deallocate(big, 8 * kMiB);
  void* other = a->Allocate(3 * kMiB);  // class 3 MiB: the cached 8 MiB block stays
  EXPECT_NE(other, big);
  EXPECT_GE(Cached(a), 8 * kMiB);
  a->Deallocate(other, 3 * kMiB);
  a->EmptyCache();
}

TEST(HostAllocatorTest, ARequestTakesACachedBlockUpToTwiceItsSize) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  void* four = a->Allocate(4 * kMiB);
  a->Deallocate(four, 4 * kMiB);
  // 3 MiB takes the cached 4 MiB block (at most twice its class) ...
  void* three = a->Allocate(3 * kMiB);
  EXPECT_EQ(three, four);
  EXPECT_EQ(Cached(a), 0u);
  std::memset(three, 7, 3 * kMiB);
  // ... and its free returns the whole 4 MiB block, which a 4 MiB request
  // then gets back.
  a->Deallocate(three, 3 * kMiB);
  EXPECT_EQ(Cached(a), 4 * kMiB);
  void* again = a->Allocate(4 * kMiB);
  EXPECT_EQ(again, four);
  a->Deallocate(again, 4 * kMiB);
  // 1.5 MiB does not take it (4 MiB is more than twice its size).
  void* small = a->Allocate(3 * kMiB / 2);
  EXPECT_NE(small, four);
  EXPECT_EQ(Cached(a), 4 * kMiB);
  a->Deallocate(small, 3 * kMiB / 2);
  a->EmptyCache();
  EXPECT_EQ(Cached(a), 0u);
}

// Resident set in bytes (/proc/self/statm's second field, in pages).
size_t ResidentBytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  unsigned long total = 0, resident = 0;
  const int read = std::fscanf(f, "%lu %lu", &total, &resident);
  std::fclose(f);
  return read == 2 ? resident * 4096 : 0;
}

TEST(HostAllocatorTest, EmptyCacheGivesLargeBlocksBackToTheSystem) {
  // Blocks are mapped, not taken from a malloc arena that keeps them
  // resident after free (Note [Host allocator]). A big malloc'd array
  // freed first raises glibc's mmap threshold, as NumPy's arrays do.
  std::free(std::malloc(32 * kMiB));
  Allocator* a = HostAllocator();
  a->EmptyCache();
  std::vector<std::pair<void*, size_t>> blocks;
  for (size_t mib : {3, 5, 7, 9}) {
    void* p = a->Allocate(mib * kMiB);
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, mib * kMiB);
    blocks.emplace_back(p, mib * kMiB);
  }
  const size_t touched = ResidentBytes();
  if (touched == 0) GTEST_SKIP() << "no /proc/self/statm";
  for (const auto& [p, bytes] : blocks) a->Deallocate(p, bytes);
  EXPECT_GE(Cached(a), 24 * kMiB);
  a->EmptyCache();
  EXPECT_LE(ResidentBytes() + 20 * kMiB, touched);
}

TEST(HostAllocatorTest, PastTheMappedBlockCapBlocksComeFromMalloc) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  SetHostMappedBlockLimitForTesting(3);
  const size_t in_use = a->GetStats().bytes_in_use;
  std::vector<unsigned char*> blocks;
  for (int i = 0; i < 8; ++i) {
    auto* p = static_cast<unsigned char*>(a->Allocate(kMiB));
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHostAlignment, 0u);
    std::memset(p, i, kMiB);
    blocks.push_back(p);
  }
  for (int i = 0; i < 8; ++i) EXPECT_EQ(blocks[i][kMiB - 1], static_cast<unsigned char>(i));
  for (unsigned char* p : blocks) a->Deallocate(p, kMiB);
  // Only the three mapped blocks are cached; the malloc'd ones were freed.
  EXPECT_EQ(Cached(a), 3 * kMiB);
  EXPECT_EQ(a->GetStats().bytes_in_use, in_use);
  a->EmptyCache();
  SetHostMappedBlockLimitForTesting(16384);
  EXPECT_EQ(Cached(a), 0u);
}

TEST(HostAllocatorTest, SmallBlocksAreNotCachedAndStatsBalance) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  const Allocator::Stats before = a->GetStats();
  std::vector<void*> blocks;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{64}, size_t{4096}, kMiB / 32}) {
    void* p = a->Allocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHostAlignment, 0u);
    a->Deallocate(p, bytes);
  }
  const Allocator::Stats after = a->GetStats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.bytes_reserved, before.bytes_reserved);
  EXPECT_EQ(after.num_allocs, before.num_allocs + 5);
}

// Note [Inline buffers]: a small buffer's record and data share a block;
// the data stays aligned, only it counts as in use, and dropping the last
// reference gives the block back (stats balance over many rounds, on this
// thread and another).
TEST(HostAllocatorTest, SmallBuffersHoldRecordAndDataInOneBlock) {
  Allocator* a = HostAllocator();
  const Allocator::Stats before = a->GetStats();
  for (size_t bytes : {size_t{0}, size_t{4}, size_t{64}, size_t{192}}) {
    RefPtr<Buffer> b = Buffer::Allocate(a, bytes);
    ASSERT_TRUE(b);
    EXPECT_EQ(static_cast<char*>(b->data()), reinterpret_cast<char*>(b.get()) + Buffer::kInlineHeader) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b->data()) % kHostAlignment, 0u);
    std::memset(b->data(), 7, bytes);
    EXPECT_EQ(a->GetStats().bytes_in_use, before.bytes_in_use + bytes);
  }
  // Past the small blocks, the data has a block of its own.
  RefPtr<Buffer> big = Buffer::Allocate(a, 193);
  ASSERT_TRUE(big);
  EXPECT_NE(static_cast<char*>(big->data()), reinterpret_cast<char*>(big.get()) + Buffer::kInlineHeader);
  big = nullptr;
  std::thread other([a] {
    for (int i = 0; i < 1000; ++i) {
      RefPtr<Buffer> b = Buffer::Allocate(a, 4 * (i % 48));
      ASSERT_TRUE(b);
      RefPtr<Buffer> shared = b;  // two owners: the last one frees
    }
  });
  other.join();
  const Allocator::Stats after = a->GetStats();
  EXPECT_EQ(after.bytes_in_use, before.bytes_in_use);
  EXPECT_EQ(after.num_allocs, before.num_allocs + 1005);
}

TEST(HostAllocatorTest, ThreadsAllocateAndFreeLargeBlocks) {
  Allocator* a = HostAllocator();
  const size_t in_use = a->GetStats().bytes_in_use;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([a, t] {
      for (int i = 0; i < 200; ++i) {
        const size_t bytes = (1 + (i + t) % 5) * kMiB + static_cast<size_t>(i);
        auto* p = static_cast<unsigned char*>(a->Allocate(bytes));
        ASSERT_NE(p, nullptr);
        p[0] = static_cast<unsigned char>(t);
        p[bytes - 1] = static_cast<unsigned char>(i);
        EXPECT_EQ(p[0], static_cast<unsigned char>(t));  // no other thread holds this block
        a->Deallocate(p, bytes);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(a->GetStats().bytes_in_use, in_use);
  a->EmptyCache();
  EXPECT_EQ(Cached(a), 0u);
}

}  // namespace
}  // namespace ember
