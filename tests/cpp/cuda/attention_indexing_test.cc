// Tests MakeAttentionMaskIndex (Note [GPU attention]) without a GPU: for
// masks of many shapes broadcast to the scores, each score row's mask
// entries read through MaskRowOffset and stride_k, as the row kernel reads
// them, are the entries broadcasting picks by multi-index.
#include "kernels/cuda/attention_indexing.h"

#include <gtest/gtest.h>

#include <vector>

namespace ember::cuda {
namespace {

// The mask entry broadcasting gives score element `flat` (row-major over
// `scores`), by multi-index.
int64_t Broadcast(const std::vector<int64_t>& mask, const std::vector<int64_t>& scores, int64_t flat) {
  std::vector<int64_t> index(scores.size());
  for (int d = static_cast<int>(scores.size()) - 1; d >= 0; --d) {
    index[d] = flat % scores[d];
    flat /= scores[d];
  }
  int64_t offset = 0, stride = 1;
  for (int i = static_cast<int>(mask.size()) - 1; i >= 0; --i) {
    const int d = i + static_cast<int>(scores.size() - mask.size());
    if (mask[i] != 1) offset += index[d] * stride;
    stride *= mask[i];
  }
  return offset;
}

TEST(AttentionIndexingTest, EveryRowReadsTheBroadcastMask) {
  const std::vector<int64_t> scores = {2, 3, 4, 5};  // [batch, heads, Lq, Lk]
  const std::vector<std::vector<int64_t>> masks = {
      {},           {5},          {4, 5},       {1, 5},       {4, 1},    {3, 1, 1},    {3, 4, 5},
      {2, 1, 4, 5}, {2, 3, 1, 5}, {1, 1, 1, 1}, {2, 3, 4, 5}, {1, 3, 4, 1}, {1, 2, 3, 4, 5}};
  for (const auto& mask : masks) {
    AttentionMaskIndex index;
    ASSERT_TRUE(MakeAttentionMaskIndex(Shape(mask), Shape(scores), &index).ok());
    const int64_t lk = scores.back();
    for (int64_t row = 0; row < 2 * 3 * 4; ++row) {
      for (int64_t j = 0; j < lk; ++j) {
        EXPECT_EQ(MaskRowOffset(index, row) + j * index.stride_k, Broadcast(mask, scores, row * lk + j))
            << "mask " << Shape(mask).ToString() << " row " << row << " column " << j;
      }
    }
  }
}

TEST(AttentionIndexingTest, TooManyBatchDimsIsUnimplemented) {
  const Shape scores({1, 1, 1, 1, 1, 1, 1, 2, 2});
  AttentionMaskIndex index;
  const Status s = MakeAttentionMaskIndex(Shape({2, 2}), scores, &index);
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  EXPECT_NE(s.message().find("at most 6 batch dims, got 7"), std::string::npos);
}

}  // namespace
}  // namespace ember::cuda
