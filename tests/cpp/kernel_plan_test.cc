// Tests Note [Kernel plans]: the shape functions that work out a plan leave
// it in the slot they are given (and only for known shapes), and the
// kernels follow the plan they receive rather than working it out again.
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "devices/cpu/cpu_device.h"
#include "ops/kernel_plan.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// Runs `fn` on `shapes` (float32) with `attrs`, a plan slot if `plan`
// (a graph node's, reused, unless `reused` is false: an eager call's).
Status RunShapeFn(ShapeFn fn, std::vector<Shape> shapes, const AttrList& attrs, std::unique_ptr<KernelPlan>* plan,
                  Shape* out = nullptr, bool reused = true) {
  OpDef def;
  def.name = "test_op";
  std::vector<DType> dtypes(shapes.size(), DType::kFloat32);
  Shape outputs[1];
  ShapeContext ctx(def, shapes.data(), dtypes.data(), static_cast<int>(shapes.size()), attrs, outputs);
  ctx.set_plan_slot(plan, reused);
  Status s = fn(ctx);
  if (out != nullptr) *out = outputs[0];
  return s;
}

TEST(KernelPlan, BroadcastShapeFunctionLeavesTheBroadcastPlan) {
  std::unique_ptr<KernelPlan> plan;
  ASSERT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{8, 4, 5}, Shape{5}}, {}, &plan).ok());
  ASSERT_NE(plan, nullptr);
  const BroadcastPlan* p = plan->Get<BroadcastPlan>();
  ASSERT_NE(p, nullptr);
  const BroadcastPlan want = MakeBroadcastPlan(Shape{8, 4, 5}, Shape{5}, Shape{8, 4, 5});
  EXPECT_EQ(p->kind, want.kind);
  EXPECT_EQ(p->dims, want.dims);
  EXPECT_EQ(p->lhs_strides, want.lhs_strides);
  EXPECT_EQ(p->rhs_strides, want.rhs_strides);
  EXPECT_EQ(plan->Get<ReducePlan>(), nullptr);
}

TEST(KernelPlan, NoPlanWithoutASlotOrForUnknownShapes) {
  // No slot: nothing to write (and nothing crashes).
  EXPECT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{3}, Shape{3}}, {}, nullptr).ok());
  std::unique_ptr<KernelPlan> plan;
  ASSERT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{kUnknown, 3}, Shape{3}}, {}, &plan).ok());
  EXPECT_EQ(plan, nullptr);
  // Flat cases (same shapes, a scalar side) need no plan: kernels tell
  // them from the element counts.
  ASSERT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{2, 3}, Shape{2, 3}}, {}, &plan).ok());
  ASSERT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{}, Shape{2, 3}}, {}, &plan).ok());
  EXPECT_EQ(plan, nullptr);
  // An eager call's kernel makes its own: cheaper than carrying it.
  ASSERT_TRUE(RunShapeFn(&shape_fns::BroadcastBinary, {Shape{8, 4, 5}, Shape{5}}, {}, &plan, nullptr, false).ok());
  EXPECT_EQ(plan, nullptr);
}

TEST(KernelPlan, ReduceShapeFunctionLeavesTheReducePlan) {
  std::unique_ptr<KernelPlan> plan;
  AttrList attrs{AttrValue(std::vector<int64_t>{1}), AttrValue(false)};
  Shape out;
  ASSERT_TRUE(RunShapeFn(&shape_fns::Reduce, {Shape{2, 3, 4}}, attrs, &plan, &out).ok());
  EXPECT_EQ(out, (Shape{2, 4}));
  ASSERT_NE(plan, nullptr);
  const ReducePlan* p = plan->Get<ReducePlan>();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->outer, 2);
  EXPECT_EQ(p->reduced, 3);
  EXPECT_EQ(p->inner, 4);
  EXPECT_FALSE(p->transpose);
}

TEST(KernelPlan, ConvShapeFunctionLeavesTheWindow) {
  std::unique_ptr<KernelPlan> plan;
  // strides, padding, data_format, dilations, explicit_paddings
  AttrList attrs{AttrValue(std::vector<int64_t>{2}), AttrValue(std::string("SAME")), AttrValue(std::string("NHWC")),
                 AttrValue(), AttrValue()};
  Shape out;
  ASSERT_TRUE(RunShapeFn(&shape_fns::Conv2d, {Shape{1, 7, 7, 3}, Shape{3, 3, 3, 8}}, attrs, &plan, &out).ok());
  EXPECT_EQ(out, (Shape{1, 4, 4, 8}));
  ASSERT_NE(plan, nullptr);
  const shape_fns::Window2D* w = plan->Get<shape_fns::Window2D>();
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->out_h, 4);
  EXPECT_EQ(w->out_w, 4);
  EXPECT_EQ(w->stride_h, 2);
  EXPECT_EQ(w->pad_top + w->pad_bottom, 2);
  EXPECT_FALSE(w->nchw);
}

// The add kernel given a plan that says "lhs is a scalar" for two [4]
// operands computes lhs[0] + rhs[i]: it followed the plan instead of
// making its own (which would give lhs[i] + rhs[i]).
TEST(KernelPlan, TheKernelFollowsThePlanItIsGiven) {
  KernelRegistry registry;
  RegisterCpuElementwiseKernels(registry);
  const DType f32 = DType::kFloat32;
  KernelFactory factory = registry.Find(OpId::kAdd, kCpuDeviceType, PackTypeKey(&f32, 1));
  ASSERT_NE(factory, nullptr);
  OpDef def;
  def.name = "add";
  AttrList attrs;
  CpuDevice device(0, 1);
  std::unique_ptr<OpKernel> kernel = factory(KernelInit{def, &device, attrs, &f32});
  auto make = [](std::vector<float> values) {
    Tensor t(DType::kFloat32, Shape{4}, Buffer::Allocate(HostAllocator(), 16));
    for (int i = 0; i < 4; ++i) t.data<float>()[i] = values[i];
    return t;
  };
  std::vector<Tensor> inputs{make({1, 2, 3, 4}), make({10, 20, 30, 40})};
  std::vector<Tensor> outputs{make({0, 0, 0, 0})};
  KernelPlan plan;
  plan.Set(MakeBroadcastPlan(Shape{}, Shape{4}, Shape{4}));
  KernelContext ctx(def, &device, attrs, &inputs, &outputs, nullptr, &plan);
  ASSERT_TRUE(kernel->Compute(ctx).ok());
  EXPECT_EQ(std::vector<float>(outputs[0].data<float>(), outputs[0].data<float>() + 4),
            (std::vector<float>{11, 21, 31, 41}));
  // Without a plan it makes its own.
  KernelContext plain(def, &device, attrs, &inputs, &outputs);
  ASSERT_TRUE(kernel->Compute(plain).ok());
  EXPECT_EQ(std::vector<float>(outputs[0].data<float>(), outputs[0].data<float>() + 4),
            (std::vector<float>{11, 22, 33, 44}));
}

}  // namespace
}  // namespace ember
