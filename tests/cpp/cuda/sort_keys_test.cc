// Checks the GPU sort's keys and addressing on the host (Note [GPU sort
// keys]): the unsigned keys order every pair of values as the CPU kernels'
// comparisons do (NaN above every number, the two zeros equal, integers by
// value) in both directions, and a host model of the GPU sort (keys laid
// out column after column, a stable sort per column, the outputs put back
// through AxisOffset) gives the CPU's argsort by definition for every axis
// of several shapes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

#include "kernels/cuda/sort_body.h"

namespace ember::cuda {
namespace {

// The CPU kernels' orders (kernels/cpu/sort.cc), written out again.
template <typename T>
bool IsNaN(T x) {
  return x != x;
}
template <typename T>
bool CpuLess(T a, T b) { return a < b || (IsNaN(b) && !IsNaN(a)); }
template <typename T>
bool CpuGreater(T a, T b) { return a > b || (IsNaN(a) && !IsNaN(b)); }

template <typename T>
void ExpectKeysOrderAsTheCpu(const std::vector<T>& values) {
  for (bool descending : {false, true}) {
    for (T a : values) {
      for (T b : values) {
        const bool before = descending ? CpuGreater(a, b) : CpuLess(a, b);
        const bool after = descending ? CpuGreater(b, a) : CpuLess(b, a);
        const auto ka = OrderedKey(a, descending);
        const auto kb = OrderedKey(b, descending);
        EXPECT_EQ(ka < kb, before) << +a << " vs " << +b << " descending " << descending;
        EXPECT_EQ(ka == kb, !before && !after) << +a << " vs " << +b << " descending " << descending;
      }
    }
  }
}

template <typename T>
std::vector<T> FloatEdges() {
  using L = std::numeric_limits<T>;
  return {-L::infinity(), -L::max(),   T(-1.5),       -L::min(),   -L::denorm_min(), T(-0.0), T(0.0),
          L::denorm_min(), L::min(),   T(1),          T(1.5),      L::max(),         L::infinity(),
          L::quiet_NaN(),  -L::quiet_NaN(), T(3.25), T(-3.25)};
}

template <typename T>
std::vector<T> IntEdges() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {L::min(), static_cast<T>(L::min() + 1), T(0), T(1), static_cast<T>(L::max() - 1), L::max()};
  if constexpr (std::is_signed_v<T>) v.insert(v.end(), {T(-1), T(-2)});
  return v;
}

TEST(SortKeysTest, KeysOrderAsTheCpuComparisons) {
  ExpectKeysOrderAsTheCpu(FloatEdges<float>());
  ExpectKeysOrderAsTheCpu(FloatEdges<double>());
  ExpectKeysOrderAsTheCpu(IntEdges<int8_t>());
  ExpectKeysOrderAsTheCpu(IntEdges<int16_t>());
  ExpectKeysOrderAsTheCpu(IntEdges<int32_t>());
  ExpectKeysOrderAsTheCpu(IntEdges<int64_t>());
  ExpectKeysOrderAsTheCpu(IntEdges<uint8_t>());
}

TEST(SortKeysTest, KeysOrderRandomFloatsAsTheCpu) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> bits;
  std::vector<float> values;
  for (int i = 0; i < 300; ++i) {
    const uint32_t b = bits(rng);
    float x;
    std::memcpy(&x, &b, sizeof x);
    values.push_back(x);
  }
  ExpectKeysOrderAsTheCpu(values);
}

// The GPU's three steps on the host; returns what argsort writes.
template <typename T>
std::vector<int32_t> ModelGpuArgsort(const std::vector<T>& in, int64_t outer, int64_t len, int64_t inner,
                                     bool descending) {
  using K = SortKey<T>;
  const int64_t columns = outer * inner;
  std::vector<std::pair<K, int32_t>> pairs(columns * len);
  for (int64_t e = 0; e < columns * len; ++e) {
    pairs[e] = {OrderedKey(in[AxisOffset(e / len, e % len, len, inner)], descending), static_cast<int32_t>(e % len)};
  }
  for (int64_t c = 0; c < columns; ++c) {
    std::stable_sort(pairs.begin() + c * len, pairs.begin() + (c + 1) * len,
                     [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  std::vector<int32_t> out(in.size(), -1);
  for (int64_t e = 0; e < columns * len; ++e) out[AxisOffset(e / len, e % len, len, inner)] = pairs[e].second;
  return out;
}

// argsort by definition: each (o, i) column's indices, stably sorted by
// the CPU's comparison.
template <typename T>
std::vector<int32_t> ReferenceArgsort(const std::vector<T>& in, int64_t outer, int64_t len, int64_t inner,
                                      bool descending) {
  std::vector<int32_t> out(in.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t r) { return in[(o * len + r) * inner + i]; };
      std::vector<int32_t> order(len);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        return descending ? CpuGreater(at(a), at(b)) : CpuLess(at(a), at(b));
      });
      for (int64_t r = 0; r < len; ++r) out[(o * len + r) * inner + i] = order[r];
    }
  }
  return out;
}

template <typename T>
void ExpectModelMatchesReference(const std::vector<int64_t>& shape, std::mt19937& rng) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  std::uniform_int_distribution<int> pick(-4, 4);  // few distinct values: many ties
  std::vector<T> in(size);
  for (auto& x : in) {
    const int p = pick(rng);
    if constexpr (std::is_floating_point_v<T>) {
      x = p == 4 ? std::numeric_limits<T>::quiet_NaN() : p == 0 ? T(-0.0) : p == 1 ? T(0.0) : T(p) / 2;
    } else {
      x = static_cast<T>(p * 30);
    }
  }
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (d < axis) outer *= shape[d];
      if (d > axis) inner *= shape[d];
    }
    for (bool descending : {false, true}) {
      EXPECT_EQ(ModelGpuArgsort(in, outer, shape[axis], inner, descending),
                ReferenceArgsort(in, outer, shape[axis], inner, descending))
          << "axis " << axis << " descending " << descending;
    }
  }
}

TEST(SortKeysTest, ModelOfTheGpuSortIsTheCpuArgsortOnEveryAxis) {
  std::mt19937 rng(11);
  for (const auto& shape : std::vector<std::vector<int64_t>>{{7}, {3, 5}, {4, 1, 6}, {2, 3, 4, 5}, {1, 9}, {9, 1}}) {
    ExpectModelMatchesReference<float>(shape, rng);
    ExpectModelMatchesReference<double>(shape, rng);
    ExpectModelMatchesReference<int8_t>(shape, rng);
    ExpectModelMatchesReference<int64_t>(shape, rng);
  }
}

}  // namespace
}  // namespace ember::cuda
