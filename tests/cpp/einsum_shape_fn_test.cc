// Tests the einsum equation parser (ops/shape_fns/einsum.h): output shapes,
// implicit outputs, '...' broadcasting, unknown dims and error messages.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ops/shape_fns/einsum.h"

namespace ember::shape_fns {
namespace {

constexpr int64_t kU = Shape::kUnknownDim;

// The output shape of `equation` over `shapes`, or the error message.
std::string OutputShape(const std::string& equation, std::vector<Shape> shapes) {
  EinsumSpec spec;
  Status s = ParseEinsum(equation, shapes.data(), static_cast<int>(shapes.size()), &spec);
  if (!s.ok()) return "error: " + s.message();
  Shape out;
  for (int label : spec.output) out.AddDim(spec.sizes[label]);
  return out.ToString();
}

TEST(EinsumShapeFnTest, ExplicitOutputs) {
  EXPECT_EQ(OutputShape("ij,jk->ik", {Shape{2, 3}, Shape{3, 4}}), "[2, 4]");
  EXPECT_EQ(OutputShape("bij,bjk->bki", {Shape{5, 2, 3}, Shape{5, 3, 4}}), "[5, 4, 2]");
  EXPECT_EQ(OutputShape("ii->i", {Shape{3, 3}}), "[3]");
  EXPECT_EQ(OutputShape("ij->", {Shape{3, 4}}), "[]");
  EXPECT_EQ(OutputShape(",i->i", {Shape{}, Shape{4}}), "[4]");
  EXPECT_EQ(OutputShape(" i j -> j ", {Shape{2, 3}}), "[3]");
}

TEST(EinsumShapeFnTest, ImplicitOutputIsSortedSingleLabels) {
  EXPECT_EQ(OutputShape("ba,ac", {Shape{2, 3}, Shape{3, 4}}), "[2, 4]");
  EXPECT_EQ(OutputShape("bA", {Shape{2, 3}}), "[3, 2]");  // uppercase first
  EXPECT_EQ(OutputShape("ii", {Shape{3, 3}}), "[]");
  EXPECT_EQ(OutputShape("...ij,...jk", {Shape{2, 1, 3, 4}, Shape{5, 4, 6}}), "[2, 5, 3, 6]");
}

TEST(EinsumShapeFnTest, EllipsisBroadcastsAndUnknownDims) {
  EXPECT_EQ(OutputShape("...i,...i->...", {Shape{1, 3}, Shape{4, 1, 3}}), "[4, 1]");
  EXPECT_EQ(OutputShape("i...j->...", {Shape{2, 7, 3}}), "[7]");
  EXPECT_EQ(OutputShape("ij,jk->ik", {Shape{kU, 3}, Shape{kU, 4}}), "[?, 4]");
  EXPECT_EQ(OutputShape("...i,...i->...i", {Shape{kU, 3}, Shape{5, 3}}), "[5, 3]");
}

TEST(EinsumShapeFnTest, Errors) {
  EXPECT_EQ(OutputShape("ij;jk", {Shape{2, 3}, Shape{3, 4}}),
            "error: invalid character ';' in term 'ij;jk'; expected letters, ',', '->' or '...'");
  EXPECT_EQ(OutputShape("ij,jk->ik", {Shape{2, 3}}), "error: equation 'ij,jk->ik' has 2 input terms but 1 inputs were given");
  EXPECT_EQ(OutputShape("ijk", {Shape{2, 3}}), "error: input 0 has shape [2, 3] (rank 2) but its term 'ijk' names 3 dims");
  EXPECT_EQ(OutputShape("ij,jk", {Shape{2, 3}, Shape{4, 5}}),
            "error: label 'j' has size 3 in one place but 4 in input 1 (shape [4, 5])");
  EXPECT_EQ(OutputShape("ij->ii", {Shape{2, 3}}), "error: output label 'i' appears more than once");
  EXPECT_EQ(OutputShape("ij->k", {Shape{2, 3}}), "error: output label 'k' does not appear in any input term of 'ij->k'");
  EXPECT_EQ(OutputShape("...j->j", {Shape{2, 3}}),
            "error: the output of '...j->j' needs '...': the inputs' '...' stand for 1 dims");
  EXPECT_EQ(OutputShape("ij", {}), "error: needs at least one input tensor");
}

}  // namespace
}  // namespace ember::shape_fns
