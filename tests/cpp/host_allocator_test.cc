// Tests the host allocator's cache of large blocks (Note [Host allocator]):
// reuse by size class, alignment, stats, EmptyCache, small blocks uncached,
// and many threads at once.
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/allocator.h"

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

TEST(HostAllocatorTest, OtherSizeClassesDoNotShareBlocks) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  void* big = a->Allocate(8 * kMiB);
  a->Deallocate(big, 8 * kMiB);
  void* other = a->Allocate(5 * kMiB);  // class 5 MiB: the cached 8 MiB block stays
  EXPECT_NE(other, big);
  EXPECT_GE(Cached(a), 8 * kMiB);
  a->Deallocate(other, 5 * kMiB);
  a->EmptyCache();
}

TEST(HostAllocatorTest, SmallBlocksAreNotCachedAndStatsBalance) {
  Allocator* a = HostAllocator();
  a->EmptyCache();
  const Allocator::Stats before = a->GetStats();
  std::vector<void*> blocks;
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{64}, size_t{4096}, kMiB / 2}) {
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
