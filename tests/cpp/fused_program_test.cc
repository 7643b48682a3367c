// Tests FusedProgram's text form (Note [Element-wise fusion]).
#include "ops/fused_program.h"

#include <gtest/gtest.h>

namespace ember {
namespace {

TEST(FusedProgram, TextRoundTrips) {
  const std::string text =
      "multiply(a0, a1); add(v0, a2); leaky_relu[0.20000000000000001](v1); gelu[1](v2); tanh(v3)";
  FusedProgram p;
  ASSERT_TRUE(FusedProgram::Parse(text, {4, 2}, &p).ok());
  EXPECT_EQ(p.num_args, 3);
  ASSERT_EQ(p.code.size(), 5u);
  EXPECT_EQ(p.code[0].op, FusedOp::kMultiply);
  EXPECT_EQ(p.code[1].a, 0);            // v0
  EXPECT_EQ(p.code[1].b, FusedArg(2));  // a2
  EXPECT_DOUBLE_EQ(p.code[2].param, 0.2);
  EXPECT_EQ(p.code[3].param, 1);
  EXPECT_EQ(p.outputs, (std::vector<int>{4, 2}));
  EXPECT_EQ(p.ToText(), text);
  EXPECT_DOUBLE_EQ(p.CyclesPerElement(), 1 + 1 + 1 + 30 + 20);
}

TEST(FusedProgram, TruedivReadsAsDivide) {
  ASSERT_NE(FindFusedOp("truediv"), nullptr);
  EXPECT_EQ(FindFusedOp("truediv")->op, FusedOp::kDivide);
  EXPECT_EQ(FindFusedOp("matmul"), nullptr);
}

TEST(FusedProgram, RejectsMalformedPrograms) {
  FusedProgram p;
  for (const char* bad : {"", "exp", "exp(a0", "exp(b0)", "exp(v0)", "add(a0)", "exp(a0, a1)", "leaky_relu(a0)",
                          "exp[1](a0)", "gelu[2](a0)", "silu[nan?](a0)", "exp(a0);; tanh(v0)", "exp(a-1)",
                          "exp(a1234567890)"}) {
    EXPECT_FALSE(FusedProgram::Parse(bad, {0}, &p).ok()) << bad;
  }
  EXPECT_FALSE(FusedProgram::Parse("exp(a0)", {}, &p).ok());
  EXPECT_FALSE(FusedProgram::Parse("exp(a0)", {1}, &p).ok());
  EXPECT_FALSE(FusedProgram::Parse("exp(a0)", {-1}, &p).ok());
}

}  // namespace
}  // namespace ember
