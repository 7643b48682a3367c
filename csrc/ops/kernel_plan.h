// This file declares KernelPlan: what a shape function works out about one
// call that the call's kernel needs as well.
#pragma once

#include <memory>
#include <utility>
#include <variant>

#include "ops/op_def.h"
#include "ops/plans/broadcast_plan.h"
#include "ops/plans/reduce_plan.h"
#include "ops/shape_fns/nn.h"

namespace ember {

// Note [Kernel plans]
// A shape function often computes more than the output shapes: how the
// operands of a broadcast map onto the output (BroadcastPlan), which dims
// a reduction folds ([outer, reduced, inner], ReducePlan), a convolution's
// window and padding (Window2D). Its kernel needs the same facts, on any
// device. So the shape function stores them here when the runtime gives
// it a slot (LeavePlan, only when every shape is known) and the kernel
// reads them (KernelContext::plan<P>()) instead of working them out again.
// Plans are made for graph nodes only: a graph computes each node's plan
// once, when its executor is built, and every call with the traced shapes
// reuses it. An eager launch carries only a null pointer; measured on the
// CPU op database, carrying a plan per eager call (a heap allocation) cost
// 2-5% on the ops that got one, more than the kernel making it again. A
// kernel run without a plan (an eager call, a unit test, a graph whose call
// has other shapes than traced) computes its own: plans are pure functions of shapes
// and attributes, so both ways give the same result. Plans are
// device-independent: a CUDA kernel's host side reads the same structs.
class KernelPlan {
 public:
  template <typename P>
  void Set(P plan) {
    value_ = std::move(plan);
  }
  // The plan if it is a P, else null.
  template <typename P>
  const P* Get() const {
    return std::get_if<P>(&value_);
  }

 private:
  std::variant<std::monostate, BroadcastPlan, ReducePlan, shape_fns::Window2D> value_;
};

// For shape functions: true if the caller keeps the plan for many runs (a
// graph node's). Only then does a plan pay: for one eager call, carrying it
// (a heap allocation) costs more than the kernel making it again.
inline bool WantsReusedPlan(const ShapeContext& ctx) { return ctx.plan_slot() != nullptr && ctx.plan_reused(); }

// For shape functions: leaves `plan` for the kernel, if the caller keeps one.
template <typename P>
void LeavePlan(const ShapeContext& ctx, P plan) {
  std::unique_ptr<KernelPlan>* slot = ctx.plan_slot();
  if (slot == nullptr) return;
  if (*slot == nullptr) *slot = std::make_unique<KernelPlan>();
  (*slot)->Set(std::move(plan));
}

}  // namespace ember
