// This file implements the cond and while_loop ops (shape functions and
// kernels that run traced branch / body graphs, docs/functions.md) and the
// CPU kernel of transfer.
#include <algorithm>

#include "core/device.h"
#include "graph/executor.h"
#include "graph/function_library.h"
#include "ops/op_kernel.h"
#include "ops/shape_fns/shape_fns.h"
#include "runtime/context.h"

namespace ember {
namespace {

// Attrs: then_function, else_function, num_then_args.
class CondKernel final : public OpKernel {
 public:
  explicit CondKernel(const KernelInit& init) : num_then_args_(init.attrs[2].as_int()) {
    status_ = FindFunctionForCall(init.attrs[0].as_int(), &then_);
    if (status_.ok()) status_ = FindFunctionForCall(init.attrs[1].as_int(), &else_);
  }

  // Note [Bounded graphs]: the larger branch's.
  int64_t BoundedGraphWork() const override {
    if (!status_.ok()) return 0;
    const int64_t a = then_->bounded_work(), b = else_->bounded_work();
    return a < 0 || b < 0 ? -1 : std::max(a, b);
  }

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(status_);
    const bool pred = *ctx.input(0).data<bool>();
    std::vector<Tensor> args;
    const int first = pred ? 1 : 1 + static_cast<int>(num_then_args_);
    const int last = pred ? 1 + static_cast<int>(num_then_args_) : ctx.num_inputs();
    for (int i = first; i < last; ++i) args.push_back(ctx.input(i));
    std::vector<Tensor> results;
    EMBER_RETURN_IF_ERROR(RunGraphFunction(pred ? *then_ : *else_, args, &results, ctx.device(), ctx.device()));
    if (static_cast<int>(results.size()) != ctx.num_outputs()) return Internal("cond branch output count mismatch");
    for (size_t i = 0; i < results.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(results[i]));
    return Status::OK();
  }

 private:
  int64_t num_then_args_;
  Status status_;
  std::shared_ptr<const GraphFunction> then_, else_;
};

// Attrs: cond_function, body_function, num_loop_vars, num_cond_args,
// maximum_iterations.
class WhileKernel final : public OpKernel {
 public:
  explicit WhileKernel(const KernelInit& init)
      : num_vars_(init.attrs[2].as_int()), num_cond_args_(init.attrs[3].as_int()),
        max_iterations_(init.attrs[4].as_int()) {
    status_ = FindFunctionForCall(init.attrs[0].as_int(), &cond_);
    if (status_.ok()) status_ = FindFunctionForCall(init.attrs[1].as_int(), &body_);
    // The body's first arguments are the loop variables; their traced shapes
    // say which dims may change.
    for (int i = 0; status_.ok() && i < num_vars_; ++i) {
      const int node = FindArgNode(body_->graph(), i);
      if (node < 0) status_ = InvalidArgument("the loop body has no argument " + std::to_string(i));
      else allowed_.push_back(body_->graph().node(node).outputs[0].shape);
    }
  }

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(status_);
    std::vector<Tensor> vars;
    for (int i = 0; i < num_vars_; ++i) vars.push_back(ctx.input(i));
    std::vector<Tensor> cond_args(vars), body_args(vars);
    for (int i = num_vars_; i < num_vars_ + num_cond_args_; ++i) cond_args.push_back(ctx.input(i));
    for (int i = num_vars_ + num_cond_args_; i < ctx.num_inputs(); ++i) body_args.push_back(ctx.input(i));
    for (int64_t iteration = 0; max_iterations_ < 0 || iteration < max_iterations_; ++iteration) {
      // Note [Cancellation]: a KeyboardInterrupt in the issuing thread stops the loop.
      if (CancellationRequested()) {
        return Cancelled("cancelled by a KeyboardInterrupt after " + std::to_string(iteration) + " iterations");
      }
      for (int i = 0; i < num_vars_; ++i) cond_args[i] = vars[i];
      std::vector<Tensor> keep_going;
      // Read on the host: the predicate comes back to host memory.
      EMBER_RETURN_IF_ERROR(RunGraphFunction(*cond_, cond_args, &keep_going, ctx.device(), DeviceManager::Global().cpu()));
      // The shape function checked that cond returns one bool scalar.
      if (keep_going.size() != 1 || keep_going[0].shape().rank() != 0) return Internal("bad while_loop cond result");
      if (!*keep_going[0].data<bool>()) break;
      for (int i = 0; i < num_vars_; ++i) body_args[i] = std::move(vars[i]);
      EMBER_RETURN_IF_ERROR(RunGraphFunction(*body_, body_args, &vars, ctx.device(), nullptr));
      if (static_cast<int>(vars.size()) != num_vars_) return Internal("bad while_loop body result");
      for (int i = 0; i < num_vars_; ++i) {
        const Shape& allowed = allowed_[i];
        if (!allowed.IsCompatibleWith(vars[i].shape())) {
          return InvalidArgument("loop variable " + std::to_string(i) + " has shape " + vars[i].shape().ToString() +
                                 " after iteration " + std::to_string(iteration + 1) +
                                 ", which its shape invariant " + allowed.ToString() + " does not allow");
        }
      }
    }
    // The body leaves its results where its nodes ran (a GPU under a device
    // scope); the loop's outputs are the loop's device's (Note [Strict
    // device memory]), so the last values come back once, not per iteration.
    for (int i = 0; i < num_vars_; ++i) {
      EMBER_RETURN_IF_ERROR(MoveToDevice(ctx.device(), &vars[i]));
      ctx.set_output(i, std::move(vars[i]));
    }
    return Status::OK();
  }

 private:
  int num_vars_;
  int num_cond_args_;
  int64_t max_iterations_;
  Status status_;
  std::shared_ptr<const GraphFunction> cond_, body_;
  std::vector<Shape> allowed_;  // per loop variable
};

// transfer onto a CPU device: every source so far is host memory, which a
// CPU kernel reads in place (Note [Host-memory devices]).
class HostTransferKernel final : public OpKernel {
 public:
  explicit HostTransferKernel(const KernelInit&) {}
  Status Compute(KernelContext& ctx) const override {
    ctx.set_output(0, ctx.input(0));
    return Status::OK();
  }
};

}  // namespace

namespace shape_fns {

// Both branches must give each output the same dtype and shape (known when
// traced with these argument shapes).
Status Cond(ShapeContext& ctx) {
  if (ctx.input_shape(0).rank() != 0) return InvalidArgument("pred must be a scalar, got shape " + ctx.input_shape(0).ToString());
  std::shared_ptr<const GraphFunction> then_fn, else_fn;
  EMBER_RETURN_IF_ERROR(FindFunctionForCall(ctx.attr(0).as_int(), &then_fn));
  EMBER_RETURN_IF_ERROR(FindFunctionForCall(ctx.attr(1).as_int(), &else_fn));
  const int num_then = static_cast<int>(ctx.attr(2).as_int());
  if (num_then < 0 || num_then > ctx.num_inputs() - 1) return InvalidArgument("num_then_args out of range");
  std::vector<Shape> then_shapes, else_shapes;
  EMBER_RETURN_IF_ERROR(InferCallShapes(then_fn->graph(), ctx, InputRange(1, 1 + num_then), &then_shapes));
  EMBER_RETURN_IF_ERROR(InferCallShapes(else_fn->graph(), ctx, InputRange(1 + num_then, ctx.num_inputs()),
                                        &else_shapes));
  const Graph& tg = then_fn->graph();
  const Graph& eg = else_fn->graph();
  if (then_shapes.size() != else_shapes.size()) {
    return InvalidArgument("true_fn returns " + std::to_string(then_shapes.size()) + " tensors, false_fn " +
                           std::to_string(else_shapes.size()));
  }
  ctx.set_num_outputs(static_cast<int>(then_shapes.size()));
  for (size_t i = 0; i < then_shapes.size(); ++i) {
    const DType td = tg.info(tg.outputs()[i]).dtype, ed = eg.info(eg.outputs()[i]).dtype;
    if (td != ed || !(then_shapes[i] == else_shapes[i])) {
      return InvalidArgument("output " + std::to_string(i) + " is " + DTypeName(td) + then_shapes[i].ToString() +
                             " in true_fn but " + DTypeName(ed) + else_shapes[i].ToString() +
                             " in false_fn; both branches must agree");
    }
    ctx.set_output_shape(static_cast<int>(i), then_shapes[i]);
    ctx.set_output_dtype(static_cast<int>(i), td);
  }
  return Status::OK();
}

// cond returns one bool scalar; body takes the loop variables as its first
// arguments and returns them, with the same dtypes.
Status CheckLoopFunctions(const Graph& cond, const Graph& body, int num_vars) {
  if (cond.outputs().size() != 1 || cond.info(cond.outputs()[0]).dtype != DType::kBool ||
      cond.info(cond.outputs()[0]).shape.rank() != 0) {
    return InvalidArgument("the cond function must return one scalar bool tensor");
  }
  if (static_cast<int>(body.outputs().size()) != num_vars) {
    return InvalidArgument("the body function returns " + std::to_string(body.outputs().size()) + " tensors for " +
                           std::to_string(num_vars) + " loop variables");
  }
  for (int i = 0; i < num_vars; ++i) {
    const int arg = FindArgNode(body, i);
    if (arg < 0 || body.node(arg).outputs[0].dtype != body.info(body.outputs()[i]).dtype) {
      return InvalidArgument("loop variable " + std::to_string(i) + " changes dtype in the body function");
    }
  }
  return Status::OK();
}

// The loop variables keep their dtypes. A dim keeps its size when one run
// of the body, on these shapes, keeps it; otherwise (a shape invariant let
// it change) it is known only at run time.
Status WhileLoop(ShapeContext& ctx) {
  std::shared_ptr<const GraphFunction> cond_fn, body_fn;
  EMBER_RETURN_IF_ERROR(FindFunctionForCall(ctx.attr(0).as_int(), &cond_fn));
  EMBER_RETURN_IF_ERROR(FindFunctionForCall(ctx.attr(1).as_int(), &body_fn));
  const int num_vars = static_cast<int>(ctx.attr(2).as_int());
  const int num_cond = static_cast<int>(ctx.attr(3).as_int());
  if (num_vars < 0 || num_cond < 0 || num_vars + num_cond > ctx.num_inputs()) {
    return InvalidArgument("num_loop_vars / num_cond_args out of range");
  }
  // cond's and body's arguments: the loop variables first, then their own.
  const Graph& body = body_fn->graph();
  if (body.num_args() != ctx.num_inputs() - num_cond || cond_fn->graph().num_args() != num_vars + num_cond) {
    return InvalidArgument("argument counts do not match the cond and body functions");
  }
  EMBER_RETURN_IF_ERROR(CheckLoopFunctions(cond_fn->graph(), body, num_vars));
  for (int i = 0; i < num_vars; ++i) {
    const ValueInfo& allowed = body.node(FindArgNode(body, i)).outputs[0];
    if (ctx.input_dtype(i) != allowed.dtype || !allowed.shape.IsCompatibleWith(ctx.input_shape(i))) {
      return InvalidArgument("loop variable " + std::to_string(i) + " is " + DTypeName(ctx.input_dtype(i)) +
                             ctx.input_shape(i).ToString() + " but the body was traced for " +
                             DTypeName(allowed.dtype) + allowed.shape.ToString());
    }
  }
  std::vector<int> body_inputs = InputRange(0, num_vars);
  for (int i = num_vars + num_cond; i < ctx.num_inputs(); ++i) body_inputs.push_back(i);
  std::vector<Shape> after_one;
  EMBER_RETURN_IF_ERROR(InferCallShapes(body, ctx, body_inputs, &after_one));
  ctx.set_num_outputs(num_vars);
  for (int i = 0; i < num_vars; ++i) {
    Shape out = ctx.input_shape(i);
    for (int d = 0; d < out.rank(); ++d) {
      if (after_one[i].rank() != out.rank() || after_one[i].dim(d) != out.dim(d)) out.set_dim(d, Shape::kUnknownDim);
    }
    ctx.set_output_shape(i, std::move(out));
    ctx.set_output_dtype(i, ctx.input_dtype(i));
  }
  return Status::OK();
}

}  // namespace shape_fns

// Declared in devices/cpu/cpu_device.h, like RegisterCpuFunctionKernels.
void RegisterCpuControlFlowKernels(KernelRegistry& registry);
EMBER_STARTUP_CODE void RegisterCpuControlFlowKernels(KernelRegistry& registry) {
  registry.Register("cond", kCpuDeviceType, {}, &MakeKernel<CondKernel>);
  registry.Register("while_loop", kCpuDeviceType, {}, &MakeKernel<WhileKernel>);
  for (int d = 0; d < kNumDTypes; ++d) {
    registry.Register("transfer", kCpuDeviceType, {static_cast<DType>(d)}, &MakeKernel<HostTransferKernel>);
  }
}

}  // namespace ember
