// Tests ForElements (Note [Grid-stride launches]): the grid of a CUDA
// element-wise kernel, computed on the host, needs no GPU.
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "kernels/cuda/launch_config.h"

namespace ember::cuda {
namespace {

TEST(CudaLaunchConfig, CoversSmallInputsWithJustEnoughBlocks) {
  LaunchConfig c = ForElements(1, 256, 1, 1024);
  EXPECT_EQ(c.blocks, 1);
  EXPECT_EQ(c.threads, 256);
  c = ForElements(257, 256, 1, 1024);
  EXPECT_EQ(c.blocks, 2);
  c = ForElements(512, 256, 2, 1024);
  EXPECT_EQ(c.blocks, 1);
  c = ForElements(513, 256, 2, 1024);
  EXPECT_EQ(c.blocks, 2);
}

TEST(CudaLaunchConfig, CapsLargeInputsAtTheDevicesLimit) {
  const LaunchConfig c = ForElements(int64_t{1} << 40, 256, 4, 132 * 8);
  EXPECT_EQ(c.blocks, 132 * 8);  // the grid strides over the rest
  // The largest element count does not overflow the block arithmetic.
  const LaunchConfig big = ForElements(std::numeric_limits<int64_t>::max(), 1024, 8, int64_t{1} << 31);
  EXPECT_EQ(big.blocks, int64_t{1} << 31);
}

TEST(CudaLaunchConfig, LaunchesNothingForNothing) {
  EXPECT_EQ(ForElements(0, 256, 1, 1024).blocks, 0);
  EXPECT_EQ(ForElements(-5, 256, 1, 1024).blocks, 0);
  EXPECT_EQ(ForElements(10, 0, 1, 1024).blocks, 0);
  EXPECT_EQ(ForElements(10, 256, 1, 0).blocks, 0);
}

}  // namespace
}  // namespace ember::cuda
