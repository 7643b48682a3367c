// This file implements the call_function op: the function library, its
// shape function and its kernel, the instantiated graph (docs/functions.md).
#include <algorithm>
#include <iterator>
#include <mutex>
#include <unordered_map>

#include "core/device.h"
#include "graph/function_library.h"
#include "ops/op_kernel.h"
#include "ops/shape_fns/shape_fns.h"

namespace ember {
namespace {

// Note [Function lifetime]: graphs name the functions they call by id (an
// int attr), and an op may run after the Python objects of the functions
// it calls are gone (async mode). So the library only maps ids to weak
// references; a GraphFunction owns the functions its nodes call
// (GraphFunction::callees_), the Python object owns the outermost one, and
// entries whose function died are swept as the library grows.
struct Library {
  std::mutex mu;
  int64_t next_id = 1;
  size_t sweep_at = 64;  // sweep expired entries when the map reaches this size
  std::unordered_map<int64_t, std::weak_ptr<const GraphFunction>> functions;
};

Library& GetLibrary() {
  static Library* library = new Library();  // leaked: kernels may outlive static destruction
  return *library;
}

// The kernel of one function: its executor, instantiated once per kernel
// cache entry (that is, once per function and device).
class CallFunctionKernel final : public OpKernel {
 public:
  explicit CallFunctionKernel(const KernelInit& init) {
    status_ = FindFunctionForCall(init.attrs[0].as_int(), &fn_);
  }

  int64_t BoundedGraphWork() const override { return status_.ok() ? fn_->bounded_work() : 0; }

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(status_);
    std::vector<Tensor> args;
    args.reserve(ctx.num_inputs());
    for (int i = 0; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
    std::vector<Tensor> results;
    EMBER_RETURN_IF_ERROR(RunGraphFunction(*fn_, args, &results, ctx.device(), ctx.device()));
    if (static_cast<int>(results.size()) != ctx.num_outputs()) return Internal("function output count mismatch");
    for (size_t i = 0; i < results.size(); ++i) ctx.set_output(static_cast<int>(i), std::move(results[i]));
    return Status::OK();
  }

 private:
  Status status_;
  std::shared_ptr<const GraphFunction> fn_;
};

}  // namespace

int64_t RegisterGraphFunction(const std::shared_ptr<const GraphFunction>& fn) {
  Library& lib = GetLibrary();
  std::lock_guard<std::mutex> lock(lib.mu);
  if (lib.functions.size() >= lib.sweep_at) {
    for (auto it = lib.functions.begin(); it != lib.functions.end();) {
      it = it->second.expired() ? lib.functions.erase(it) : std::next(it);
    }
    lib.sweep_at = std::max<size_t>(64, 2 * lib.functions.size());
  }
  const int64_t id = lib.next_id++;
  lib.functions[id] = fn;
  return id;
}

std::shared_ptr<const GraphFunction> FindGraphFunction(int64_t id) {
  // Every call of a function looks it up here (its shape function); a
  // thread usually calls the same function again, so it remembers the last
  // one, weakly, as the library does: a function still dies with its
  // Python object (Note [Function lifetime]). Ids are never reused.
  thread_local int64_t last_id = 0;
  thread_local std::weak_ptr<const GraphFunction> last;
  if (id == last_id) {
    if (std::shared_ptr<const GraphFunction> fn = last.lock()) return fn;
  }
  Library& lib = GetLibrary();
  std::shared_ptr<const GraphFunction> fn;
  {
    std::lock_guard<std::mutex> lock(lib.mu);
    auto it = lib.functions.find(id);
    if (it != lib.functions.end()) fn = it->second.lock();
  }
  if (fn != nullptr) {
    last_id = id;
    last = fn;
  }
  return fn;
}

std::vector<int> InputRange(int first, int last) {
  std::vector<int> indices;
  for (int i = first; i < last; ++i) indices.push_back(i);
  return indices;
}

Status FindFunctionForCall(int64_t id, std::shared_ptr<const GraphFunction>* fn) {
  *fn = FindGraphFunction(id);
  if (*fn == nullptr) return InvalidArgument("no function with id " + std::to_string(id));
  return Status::OK();
}

Status RunGraphFunction(const GraphFunction& fn, const std::vector<Tensor>& args, std::vector<Tensor>* results,
                        Device* caller, Device* results_device) {
  const GraphExecutor* executor = nullptr;
  EMBER_RETURN_IF_ERROR(fn.GetExecutor(&executor));
  return executor->Run(args, results, caller, results_device);
}

Status InferCallShapes(const Graph& g, const ShapeContext& ctx, const std::vector<int>& inputs,
                       std::vector<Shape>* out) {
  const int num = static_cast<int>(inputs.size());
  if (num != g.num_args()) {
    return InvalidArgument("function expects " + std::to_string(g.num_args()) + " arguments, got " +
                           std::to_string(num));
  }
  bool traced = true;
  int seen = 0;
  for (const Node& node : g.nodes()) {
    if (seen == num) break;  // the arguments usually come first: skip the body
    if (!node.is_arg()) continue;
    ++seen;
    const int i = node.arg_index;
    const ValueInfo& want = node.outputs[0];
    const DType dtype = ctx.input_dtype(inputs[i]);
    if (dtype != want.dtype) {
      return TypeError("argument " + std::to_string(i) + " must be " + DTypeName(want.dtype) + ", got dtype " +
                       DTypeName(dtype));
    }
    const Shape& have = ctx.input_shape(inputs[i]);
    if (!want.shape.IsCompatibleWith(have)) {
      return InvalidArgument("argument " + std::to_string(i) + " must have shape " + want.shape.ToString() +
                             ", got " + have.ToString());
    }
    traced = traced && have == want.shape;
  }
  out->clear();
  if (!traced) {
    std::vector<Shape> arg_shapes(g.num_args());
    for (const Node& node : g.nodes()) {
      if (node.is_arg()) arg_shapes[node.arg_index] = ctx.input_shape(inputs[node.arg_index]);
    }
    return InferGraphShapes(g, arg_shapes, out);
  }
  for (const Endpoint& e : g.outputs()) out->push_back(g.info(e).shape);
  return Status::OK();
}

namespace shape_fns {

// The argument dtypes and shapes must fit the traced ones (unknown dims
// match anything); outputs keep their traced shapes when the arguments
// have the traced shapes, else come from the graph's shape functions.
Status CallFunction(ShapeContext& ctx) {
  std::shared_ptr<const GraphFunction> fn;
  EMBER_RETURN_IF_ERROR(FindFunctionForCall(ctx.attr(0).as_int(), &fn));
  const Graph& g = fn->graph();
  std::vector<Shape> out_shapes;
  EMBER_RETURN_IF_ERROR(InferCallShapes(g, ctx, InputRange(0, ctx.num_inputs()), &out_shapes));
  ctx.set_num_outputs(static_cast<int>(out_shapes.size()));
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    ctx.set_output_shape(static_cast<int>(i), std::move(out_shapes[i]));
    ctx.set_output_dtype(static_cast<int>(i), g.info(g.outputs()[i]).dtype);
  }
  return Status::OK();
}

}  // namespace shape_fns

// Declared in devices/cpu/cpu_device.h: the graph runs from the CPU
// device's executor (its nodes run on their own devices' kernels).
void RegisterCpuFunctionKernels(KernelRegistry& registry);
EMBER_STARTUP_CODE void RegisterCpuFunctionKernels(KernelRegistry& registry) {
  registry.Register("call_function", kCpuDeviceType, {}, &MakeKernel<CallFunctionKernel>);
}

}  // namespace ember
