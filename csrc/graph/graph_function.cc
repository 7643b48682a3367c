// This file implements GraphFunction and CallGraphFunction.
#include "graph/graph_function.h"

#include "core/device.h"
#include "runtime/context.h"

namespace ember {

Status GraphFunction::GetExecutor(const GraphExecutor** out) const {
  std::call_once(once_, [this] { init_status_ = GraphExecutor::Create(graph_, &executor_); });
  *out = executor_.get();
  return init_status_;
}

namespace {

// Waits for the inputs, runs the graph, publishes the outputs.
class GraphLaunch final : public Task {
 public:
  GraphLaunch(std::shared_ptr<const GraphFunction> fn, std::vector<RefPtr<TensorHandle>> inputs,
              std::vector<RefPtr<TensorHandle>> outputs, bool async, bool traced_shapes)
      : fn_(std::move(fn)), inputs_(std::move(inputs)), outputs_(std::move(outputs)), async_(async),
        traced_shapes_(traced_shapes) {}

  void Run() override {
    std::vector<Tensor> args;
    args.reserve(inputs_.size());
    for (const auto& handle : inputs_) {
      Status s = handle->Await();
      if (!s.ok()) return Fail(s, /*kernel_error=*/false);
      args.push_back(handle->tensor());
    }
    inputs_.clear();  // the executor frees what it no longer needs
    const GraphExecutor* executor = nullptr;
    Status s = fn_->GetExecutor(&executor);
    std::vector<Tensor> results;
    if (s.ok()) s = executor->Run(args, &results, traced_shapes_);
    if (!s.ok()) return Fail(s, /*kernel_error=*/true);
    for (size_t i = 0; i < outputs_.size(); ++i) outputs_[i]->SetReady(std::move(results[i]));
  }

 private:
  void Fail(const Status& s, bool kernel_error) {
    if (kernel_error && async_) Context::Global().RecordAsyncError(s);
    for (auto& out : outputs_) out->SetError(s);
  }

  std::shared_ptr<const GraphFunction> fn_;
  std::vector<RefPtr<TensorHandle>> inputs_;
  std::vector<RefPtr<TensorHandle>> outputs_;
  bool async_;
  bool traced_shapes_;
};

bool Compatible(const Shape& traced, const Shape& actual) {
  if (traced.rank() != actual.rank()) return false;
  for (int i = 0; i < traced.rank(); ++i) {
    if (traced.dim(i) != Shape::kUnknownDim && traced.dim(i) != actual.dim(i)) return false;
  }
  return true;
}

}  // namespace

Status CallGraphFunction(std::shared_ptr<const GraphFunction> fn, std::vector<RefPtr<TensorHandle>> inputs,
                         ExecuteResult* result) {
  const Graph& g = fn->graph();
  if (static_cast<int>(inputs.size()) != g.num_args()) {
    return InvalidArgument("function expects " + std::to_string(g.num_args()) + " arguments, got " +
                           std::to_string(inputs.size()));
  }
  std::vector<Shape> arg_shapes(g.num_args());
  bool traced_shapes = true;
  Device* device = nullptr;
  for (const Node& node : g.nodes()) {
    if (!node.is_arg()) continue;
    const TensorHandle& in = *inputs[node.arg_index];
    const ValueInfo& want = node.outputs[0];
    const std::string arg = "argument " + std::to_string(node.arg_index);
    if (in.dtype() != want.dtype) {
      return TypeError(arg + " must be " + DTypeName(want.dtype) + ", got dtype " + DTypeName(in.dtype()));
    }
    if (!Compatible(want.shape, in.shape())) {
      return InvalidArgument(arg + " must have shape " + want.shape.ToString() + ", got " + in.shape().ToString());
    }
    arg_shapes[node.arg_index] = in.shape();
    traced_shapes = traced_shapes && want.shape == in.shape();
    if (device == nullptr) device = in.device();
  }
  std::vector<Shape> out_shapes;
  if (traced_shapes) {
    for (const Endpoint& e : g.outputs()) out_shapes.push_back(g.info(e).shape);
  }
  bool known = traced_shapes;
  for (const Shape& s : out_shapes) known = known && s.IsFullyKnown();
  if (!known) EMBER_RETURN_IF_ERROR(InferGraphShapes(g, arg_shapes, &out_shapes));
  if (device == nullptr) EMBER_RETURN_IF_ERROR(DeviceManager::Global().Find("cpu:0", &device));

  result->outputs.clear();
  for (size_t i = 0; i < out_shapes.size(); ++i) {
    result->outputs.push_back(TensorHandle::CreatePending(g.info(g.outputs()[i]).dtype, out_shapes[i], device));
  }
  const bool async = Context::Global().async();
  auto launch = std::make_unique<GraphLaunch>(std::move(fn), std::move(inputs), result->outputs, async,
                                              traced_shapes);
  if (async) {
    device->executor()->Enqueue(std::move(launch));
  } else {
    result->inline_task = std::move(launch);
  }
  return Status::OK();
}

}  // namespace ember
