// This file tests Graph::FromText on malformed input and ValidateGraph
// (Note [Graph validation]).
#include <gtest/gtest.h>

#include <string>

#include "devices/cpu/cpu_device.h"
#include "graph/graph.h"

namespace ember {
namespace {

// negative of a float32[2, 3] argument, then transpose.
const char kGood[] =
    "ember.graph 1\n"
    "arg 0 0 float32[2,3] cpu:0\n"
    "node 1 negative 0:0 - - float32 - float32[2,3] cpu:0 %\n"
    "node 2 transpose 1:0 - - float32 n float32[3,2] cpu:0 %\n"
    "return 2:0\n";

class GraphTextTest : public ::testing::Test {
 protected:
  void SetUp() override { InitCpuDevice(); }

  // The good text with `from` replaced by `to`; expects InvalidArgument
  // whose message contains `want`.
  void ExpectError(const std::string& from, const std::string& to, const std::string& want) {
    std::string text = kGood;
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    Graph g;
    Status s = Graph::FromText(text, &g);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find(want), std::string::npos) << s.message();
  }
};

TEST_F(GraphTextTest, GoodTextReadsValidatesAndRoundTrips) {
  Graph g;
  ASSERT_TRUE(Graph::FromText(kGood, &g).ok());
  EXPECT_TRUE(ValidateGraph(g).ok());
  EXPECT_EQ(g.ToText(), kGood);
}

TEST_F(GraphTextTest, OutputShapesMustMatchTheShapeFunction) {
  ExpectError("float32[3,2]", "float32[3,1]", "line 4: transpose: output 0 is recorded as float32[3, 1]");
  ExpectError("float32 - float32[2,3]", "float32 - float64[2,3]", "output 0");
}

TEST_F(GraphTextTest, NumbersAreChecked) {
  ExpectError("node 1", "node 99999999999999999999", "line 3");
  ExpectError("1:0", "1:99999999999999999999", "bad endpoint");
  ExpectError("[2,3] cpu", "[2,-3] cpu", "negative dimension");
  ExpectError("[2,3] cpu", "[4611686018427387904,4] cpu", "too many elements");
  ExpectError("cpu:0\nnode 1", "cpu:99999999999999999999\nnode 1", "device");
}

TEST_F(GraphTextTest, ReferencesAreChecked) {
  ExpectError("1:0 -", "5:0 -", "names no earlier node");
  ExpectError("1:0 -", "1:1 -", "names no output");
  ExpectError("return 2:0", "return 2:1", "names no output");
  ExpectError("negative", "no_such_op", "unknown op");
  ExpectError("negative 0:0", "negative 0:0,0:0", "expected 1 inputs");
  ExpectError("float32 n", "float32 b1", "attribute 'perm'");
  ExpectError("arg 0 0", "arg 0 1", "argument");
  ExpectError("cpu:0 %\nnode 2", "cpu:0 a%4\nnode 2", "bad location");
}

TEST_F(GraphTextTest, ValidateGraphRejectsACycle) {
  Graph g;
  ASSERT_TRUE(Graph::FromText(kGood, &g).ok());
  g.mutable_node(1).control_inputs.push_back(2);
  EXPECT_NE(ValidateGraph(g).message().find("cycle"), std::string::npos);
}

}  // namespace
}  // namespace ember
