// Tests Philox4x32-10 (kernels/common/philox.h) against the Random123
// known-answer vectors, the float conversions, and that the stateless random
// kernels give the same bits on any number of intra-op threads.
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "kernels/common/philox.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

using philox::Counter;
using philox::Key;

// Known-answer vectors for philox4x32 with 10 rounds, from Random123's
// kat_vectors (Salmon et al.): counter, key -> output.
TEST(PhiloxTest, KnownAnswerZeros) {
  EXPECT_EQ(philox::Philox4x32({0, 0, 0, 0}, {0, 0}),
            (Counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
}

TEST(PhiloxTest, KnownAnswerOnes) {
  EXPECT_EQ(philox::Philox4x32({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                               {0xffffffff, 0xffffffff}),
            (Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

TEST(PhiloxTest, KnownAnswerPi) {
  EXPECT_EQ(philox::Philox4x32({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                               {0xa4093822, 0x299f31d0}),
            (Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

// Note [Random streams]: seed[0] is the key, seed[1] the counter's upper
// half, the block index its lower half.
TEST(PhiloxTest, StreamLayout) {
  const int64_t s0 = 0x299f31d0a4093822, s1 = 0x0370734413198a2e;
  const uint64_t block = 0x85a308d3243f6a88;
  EXPECT_EQ(philox::Stream(s0, s1).Block(block),
            (Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
  EXPECT_EQ(philox::Stream(-1, -1).Block(~uint64_t{0}),
            (Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
}

TEST(PhiloxTest, UnitFloatCoversZeroToBelowOne) {
  EXPECT_EQ(philox::UnitFloat(0), 0.0f);
  EXPECT_EQ(philox::UnitFloat(0x1ff), 0.0f);  // the low 9 bits are dropped
  EXPECT_EQ(philox::UnitFloat(0x200), std::ldexp(1.0f, -23));
  EXPECT_EQ(philox::UnitFloat(0xffffffff), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(philox::UnitDouble(0), 0.0);
  EXPECT_EQ(philox::UnitDouble(0x1000), std::ldexp(1.0, -52));
  EXPECT_EQ(philox::UnitDouble(~uint64_t{0}), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(philox::Join(0x89abcdef, 0x01234567), 0x0123456789abcdefull);
}

// --- The kernels --------------------------------------------------------------

const KernelRegistry& Registry() {
  static const KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterCpuRandomKernels(*r);
    return r;
  }();
  return *registry;
}

// The seed is input 0 (an int64 or int32 tensor of shape [seed.size()]).
struct Seed {
  std::vector<int64_t> values;
  DType dtype = DType::kInt64;
};

Tensor SeedTensor(const Seed& seed) {
  const int64_t n = static_cast<int64_t>(seed.values.size());
  Tensor t(seed.dtype, Shape({n}),
           Buffer::Allocate(HostAllocator(), static_cast<size_t>(n) * DTypeSize(seed.dtype)));
  for (int64_t i = 0; i < n; ++i) {
    if (seed.dtype == DType::kInt32) t.data<int32_t>()[i] = static_cast<int32_t>(seed.values[i]);
    else t.data<int64_t>()[i] = seed.values[i];
  }
  return t;
}

Status RunRandom(OpId op, DType dtype, const Seed& seed, const AttrList& attrs, int64_t n,
                 Device* device, std::vector<char>* bytes) {
  OpDef def;
  def.id = op;
  def.name = "test_op";
  const DType bindings[2] = {dtype, seed.dtype};
  KernelFactory factory = Registry().Find(op, kCpuDeviceType, PackTypeKey(bindings, 2));
  if (factory == nullptr) return NotFound("no kernel");
  std::unique_ptr<OpKernel> kernel = factory(KernelInit{def, device, attrs, bindings});
  const size_t size = static_cast<size_t>(n) * DTypeSize(dtype);
  std::vector<Tensor> inputs{SeedTensor(seed)};
  std::vector<Tensor> outputs{Tensor(dtype, Shape({n}), Buffer::Allocate(HostAllocator(), size))};
  KernelContext ctx(def, device, attrs, &inputs, &outputs);
  EMBER_RETURN_IF_ERROR(kernel->Compute(ctx));
  const char* data = static_cast<const char*>(outputs[0].raw_data());
  bytes->assign(data, data + size);
  return Status::OK();
}

struct RandomCase {
  OpId op;
  DType dtype;
  AttrList attrs;
};

const Seed kSeed{{12345, -678}};

std::vector<RandomCase> Cases(int64_t n) {
  const std::vector<int64_t> shape{n};
  std::vector<RandomCase> cases;
  for (DType t : {DType::kFloat32, DType::kFloat64}) {
    cases.push_back({OpId::kStatelessRandomUniform, t,
                     {AttrValue(shape), AttrValue(-2.0), AttrValue(3.0), AttrValue(t)}});
    cases.push_back({OpId::kStatelessRandomNormal, t,
                     {AttrValue(shape), AttrValue(1.0), AttrValue(2.0), AttrValue(t)}});
    cases.push_back({OpId::kStatelessTruncatedNormal, t,
                     {AttrValue(shape), AttrValue(0.0), AttrValue(1.0), AttrValue(t)}});
  }
  for (DType t : {DType::kInt32, DType::kInt64}) {
    cases.push_back({OpId::kStatelessRandomUniformInt, t,
                     {AttrValue(shape), AttrValue(int64_t{-5}), AttrValue(int64_t{1000003}),
                      AttrValue(t)}});
  }
  return cases;
}

TEST(StatelessRandomKernelTest, SameBitsOnAnyThreadCount) {
  const int64_t n = 100003;  // not a multiple of a block, large enough to split
  static CpuDevice* one = new CpuDevice(0, 1);
  static CpuDevice* three = new CpuDevice(0, 3);
  for (const RandomCase& c : Cases(n)) {
    std::vector<char> a, b, inline_run;
    ASSERT_TRUE(RunRandom(c.op, c.dtype, kSeed, c.attrs, n, one, &a).ok());
    ASSERT_TRUE(RunRandom(c.op, c.dtype, kSeed, c.attrs, n, three, &b).ok());
    ASSERT_TRUE(RunRandom(c.op, c.dtype, kSeed, c.attrs, n, nullptr, &inline_run).ok());
    EXPECT_EQ(a, b) << "op " << static_cast<int>(c.op) << " " << DTypeName(c.dtype);
    EXPECT_EQ(a, inline_run) << "op " << static_cast<int>(c.op) << " " << DTypeName(c.dtype);
  }
}

TEST(StatelessRandomKernelTest, PrefixIsIndependentOfLength) {
  // Element i depends only on (seed, i): a shorter output is a prefix.
  static CpuDevice* device = new CpuDevice(0, 2);
  for (const RandomCase& c : Cases(1001)) {
    RandomCase shorter = c;
    shorter.attrs[0] = AttrValue(std::vector<int64_t>{7});
    std::vector<char> full, prefix;
    ASSERT_TRUE(RunRandom(c.op, c.dtype, kSeed, c.attrs, 1001, device, &full).ok());
    ASSERT_TRUE(RunRandom(shorter.op, shorter.dtype, kSeed, shorter.attrs, 7, device, &prefix).ok());
    EXPECT_EQ(std::vector<char>(full.begin(), full.begin() + prefix.size()), prefix);
  }
}

TEST(StatelessRandomKernelTest, SeedDtypesAgree) {
  // An int32 seed is sign-extended: the same values as an int64 seed.
  const Seed narrow{{12345, -678}, DType::kInt32};
  for (const RandomCase& c : Cases(99)) {
    std::vector<char> wide_bits, narrow_bits;
    ASSERT_TRUE(RunRandom(c.op, c.dtype, kSeed, c.attrs, 99, nullptr, &wide_bits).ok());
    ASSERT_TRUE(RunRandom(c.op, c.dtype, narrow, c.attrs, 99, nullptr, &narrow_bits).ok());
    EXPECT_EQ(wide_bits, narrow_bits) << "op " << static_cast<int>(c.op);
  }
}

TEST(StatelessRandomKernelTest, BadInputsAreErrorsNotCrashes) {
  std::vector<char> out;
  const std::vector<int64_t> shape{4};
  // The shape function rejects a bad seed shape first; the kernel must not
  // read past a short seed either.
  const AttrList uniform{AttrValue(shape), AttrValue(0.0), AttrValue(1.0), AttrValue(DType::kFloat32)};
  Status s = RunRandom(OpId::kStatelessRandomUniform, DType::kFloat32, Seed{{1}}, uniform, 4, nullptr,
                       &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("seed"), std::string::npos) << s.ToString();

  const AttrList empty_range{AttrValue(shape), AttrValue(int64_t{3}), AttrValue(int64_t{3}),
                             AttrValue(DType::kInt32)};
  s = RunRandom(OpId::kStatelessRandomUniformInt, DType::kInt32, kSeed, empty_range, 4, nullptr, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("minval < maxval"), std::string::npos) << s.ToString();

  const AttrList wide{AttrValue(shape), AttrValue(int64_t{0}), AttrValue(int64_t{1} << 40),
                      AttrValue(DType::kInt32)};
  s = RunRandom(OpId::kStatelessRandomUniformInt, DType::kInt32, kSeed, wide, 4, nullptr, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("int32"), std::string::npos) << s.ToString();
}

TEST(StatelessRandomKernelTest, FullInt64RangeDoesNotOverflow) {
  const AttrList attrs{AttrValue(std::vector<int64_t>{1000}),
                       AttrValue(std::numeric_limits<int64_t>::min()),
                       AttrValue(std::numeric_limits<int64_t>::max()), AttrValue(DType::kInt64)};
  std::vector<char> out;
  ASSERT_TRUE(RunRandom(OpId::kStatelessRandomUniformInt, DType::kInt64, Seed{{3, 4}}, attrs, 1000, nullptr, &out).ok());
  std::vector<int64_t> values(1000);
  std::memcpy(values.data(), out.data(), out.size());
  int negative = 0;
  for (int64_t v : values) {
    EXPECT_LT(v, std::numeric_limits<int64_t>::max());
    negative += v < 0;
  }
  EXPECT_GT(negative, 400);  // about half
  EXPECT_LT(negative, 600);
}

}  // namespace
}  // namespace ember
