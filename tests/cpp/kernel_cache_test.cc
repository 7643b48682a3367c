// Tests KernelCache: hits, misses, attribute keys and LRU eviction.
#include "runtime/kernel_cache.h"
#include "ops/op_ids.gen.h"

#include <gtest/gtest.h>

#include <thread>

#include "devices/cpu/cpu_device.h"

namespace ember {
namespace {

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    InitCpuDevice();
    device_ = DeviceManager::Global().cpu();
  }
  std::shared_ptr<const OpKernel> Lookup(KernelCache& cache, OpId id, DType t, const AttrList& attrs) {
    const OpDef& op = GetOpDef(id);
    Status s;
    auto k = cache.Lookup(op, device_, PackTypeKey(&t, 1), &t, attrs, &s);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return k;
  }
  Device* device_ = nullptr;
};

TEST_F(KernelCacheTest, RepeatedLookupHits) {
  KernelCache cache(16);
  auto a = Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  auto b = Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(a.get(), b.get());
  auto st = cache.GetStats();
  EXPECT_EQ(st.misses, 1u);
  EXPECT_EQ(st.hits, 1u);
}

TEST_F(KernelCacheTest, DTypeAndAttrsArePartOfTheKey) {
  KernelCache cache(16);
  auto f32 = Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  auto f64 = Lookup(cache, OpId::kAdd, DType::kFloat64, {});
  EXPECT_NE(f32.get(), f64.get());
  AttrList no_t{AttrValue(false), AttrValue(false)};
  AttrList t_b{AttrValue(false), AttrValue(true)};
  auto m1 = Lookup(cache, OpId::kMatmul, DType::kFloat32, no_t);
  auto m2 = Lookup(cache, OpId::kMatmul, DType::kFloat32, t_b);
  EXPECT_NE(m1.get(), m2.get());
  EXPECT_EQ(cache.GetStats().misses, 4u);
}

TEST_F(KernelCacheTest, EvictsLeastRecentlyUsed) {
  KernelCache cache(2);
  Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  Lookup(cache, OpId::kSubtract, DType::kFloat32, {});
  Lookup(cache, OpId::kAdd, DType::kFloat32, {});       // add is now most recent
  Lookup(cache, OpId::kMultiply, DType::kFloat32, {});  // evicts subtract
  auto st = cache.GetStats();
  EXPECT_EQ(st.size, 2u);
  EXPECT_EQ(st.evictions, 1u);
  Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(cache.GetStats().hits, 2u);
  Lookup(cache, OpId::kSubtract, DType::kFloat32, {});
  EXPECT_EQ(cache.GetStats().misses, 4u);
}

// Note [Kernel cache front]: the per-thread front answers repeated lookups
// but never outlives what the cache holds, and never mixes up two caches.
TEST_F(KernelCacheTest, FrontNeverReturnsADroppedKernel) {
  KernelCache cache(16);
  auto a = Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(Lookup(cache, OpId::kAdd, DType::kFloat32, {}).get(), a.get());
  EXPECT_EQ(cache.GetStats().hits, 1u);
  cache.Clear();
  Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(cache.GetStats().misses, 1u);  // rebuilt, not served by the front
  EXPECT_EQ(cache.GetStats().hits, 0u);

  KernelCache other(16);
  auto b = Lookup(other, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(other.GetStats().misses, 1u);  // the first cache's front entry is not the other's
  EXPECT_NE(a.get(), b.get());

  // Attrs are compared in full on the front too.
  AttrList no_t{AttrValue(false), AttrValue(false)};
  AttrList t_b{AttrValue(false), AttrValue(true)};
  auto m1 = Lookup(cache, OpId::kMatmul, DType::kFloat32, no_t);
  auto m2 = Lookup(cache, OpId::kMatmul, DType::kFloat32, t_b);
  EXPECT_NE(m1.get(), m2.get());
  EXPECT_EQ(Lookup(cache, OpId::kMatmul, DType::kFloat32, no_t).get(), m1.get());
  EXPECT_EQ(Lookup(cache, OpId::kMatmul, DType::kFloat32, t_b).get(), m2.get());

  // Another thread has its own front; its hits count in the same cache.
  const uint64_t hits = cache.GetStats().hits;
  std::thread([&] {
    EXPECT_EQ(Lookup(cache, OpId::kMatmul, DType::kFloat32, no_t).get(), m1.get());
    EXPECT_EQ(Lookup(cache, OpId::kMatmul, DType::kFloat32, no_t).get(), m1.get());
  }).join();
  EXPECT_EQ(cache.GetStats().hits, hits + 2);
}

TEST_F(KernelCacheTest, EvictionInvalidatesTheFront) {
  KernelCache cache(4);
  auto add = Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  Lookup(cache, OpId::kSubtract, DType::kFloat32, {});
  Lookup(cache, OpId::kMultiply, DType::kFloat32, {});
  Lookup(cache, OpId::kMaximum, DType::kFloat32, {});
  Lookup(cache, OpId::kMinimum, DType::kFloat32, {});  // evicts add, the least recent
  EXPECT_EQ(cache.GetStats().evictions, 1u);
  const uint64_t misses = cache.GetStats().misses;
  Lookup(cache, OpId::kAdd, DType::kFloat32, {});
  EXPECT_EQ(cache.GetStats().misses, misses + 1);
}

TEST_F(KernelCacheTest, MissingKernelIsNotFound) {
  KernelCache cache(4);
  const OpDef& op = GetOpDef(OpId::kExp);
  DType t = DType::kBool;
  Status s;
  EXPECT_EQ(cache.Lookup(op, device_, PackTypeKey(&t, 1), &t, {}, &s), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ember
