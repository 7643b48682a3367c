// This file implements FuseMatmulEpilogues: a dense layer's matmul (b one
// matrix, a a matrix or a batch of them), the bias added to it and the
// activation after become one fused_matmul node on devices with memory of
// their own (Note [Matmul epilogues]).
#include <map>
#include <string>

#include "core/device.h"
#include "graph/passes/passes.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

// Note [Where matmul epilogues are fused]
// On a GPU the epilogue saves a kernel launch and a pass over the product,
// and cuBLASLt applies it as each tile is written. On the CPU, element-wise
// fusion already adds the bias and applies the activation in one
// vectorized pass, together with whatever element-wise ops follow; moving
// the first two into the GEMM would cut them off from the rest. So only
// devices with memory of their own (GPUs, the simulated accelerator) fuse,
// and only where the device has a fused_matmul kernel for the dtype.
class EpilogueFuser {
 public:
  explicit EpilogueFuser(Graph& g) : g_(g), uses_(g.num_nodes(), 0), control_(g.num_nodes(), false) {
    for (const Node& node : g_.nodes()) {
      for (const Endpoint& in : node.inputs) ++uses_[in.node];
      for (int c : node.control_inputs) control_[c] = true;
    }
    for (const Endpoint& e : g_.outputs()) ++uses_[e.node];
    consumer_.assign(g_.num_nodes(), -1);
    for (const Node& node : g_.nodes()) {
      for (const Endpoint& in : node.inputs) consumer_[in.node] = node.id;
    }
  }

  void Run() {
    std::vector<std::pair<Endpoint, Endpoint>> replace;
    std::vector<bool> keep(g_.num_nodes(), true);
    const int n = g_.num_nodes();
    for (int id = 0; id < n; ++id) {
      const Node& mm = g_.node(id);
      if (mm.is_arg() || mm.op->id != OpId::kMatmul || !Plain(id) || !DeviceCanFuse(mm.device, mm.bindings[0])) {
        continue;
      }
      // b one matrix; a a matrix, or untransposed a batch of them (a dense
      // layer over [batch, ..., features]).
      const Shape& a = g_.info(mm.inputs[0]).shape;
      const Shape& b = g_.info(mm.inputs[1]).shape;
      const bool transpose_a = mm.attrs[0].as_bool();
      if (b.rank() != 2 || a.rank() < 2 || (transpose_a && a.rank() != 2)) continue;
      const int64_t k = a.dim(transpose_a ? 0 : a.rank() - 1);
      if (k == Shape::kUnknownDim || k == 0) continue;
      const int add = consumer_[id];
      Endpoint bias;
      if (uses_[id] != 1 || add < 0 || !Plain(add) || !IsBiasOf(add, id, &bias)) continue;
      int last = add;
      std::string activation = "none";
      const int act = consumer_[add];
      if (uses_[add] == 1 && act >= 0 && Plain(act) && g_.node(act).device == mm.device) {
        const Node& a_node = g_.node(act);
        if (a_node.op->id == OpId::kRelu) activation = "relu";
        if (a_node.op->id == OpId::kGelu && a_node.attrs[0].as_bool()) activation = "gelu_approximate";
        if (activation != "none") last = act;
      }
      Node fused;
      fused.op = &GetOpDef(OpId::kFusedMatmul);
      fused.bindings[0] = mm.bindings[0];
      fused.inputs = {mm.inputs[0], mm.inputs[1], bias};
      fused.attrs = {mm.attrs[0], mm.attrs[1], AttrValue(activation)};
      fused.outputs = g_.node(last).outputs;
      fused.device = mm.device;
      fused.location = g_.node(last).location;
      const int fused_id = g_.AddNode(std::move(fused));
      keep.push_back(true);
      replace.push_back({Endpoint{last, 0}, Endpoint{fused_id, 0}});
      keep[id] = keep[add] = keep[last] = false;
    }
    if (!replace.empty()) RewriteGraph(g_, keep, replace);
  }

 private:
  // One output, no control edges either way.
  bool Plain(int id) const {
    const Node& node = g_.node(id);
    return !node.is_arg() && node.outputs.size() == 1 && node.control_inputs.empty() && !control_[id];
  }

  // Whether node `add` adds a vector along the last dim to matmul `mm`'s
  // product (bias_add in the default channels-last format, or add), on
  // the same device, giving the product's dtype and shape.
  bool IsBiasOf(int add, int mm, Endpoint* bias) const {
    const Node& node = g_.node(add);
    const Node& product = g_.node(mm);
    if (node.device != product.device || node.inputs.size() != 2) return false;
    if (!(node.outputs[0].shape == product.outputs[0].shape) || node.outputs[0].dtype != product.outputs[0].dtype) {
      return false;
    }
    int other;
    if (node.op->id == OpId::kBiasAdd) {
      // The channel dim is the last: in either data_format for a matrix,
      // in the channels-last ones for a batch.
      if (node.inputs[0].node != mm) return false;
      if (product.outputs[0].shape.rank() > 2 && !node.attrs.empty() && !node.attrs[0].is_none() &&
          node.attrs[0].as_string().rfind("NC", 0) == 0) {
        return false;
      }
      other = 1;
    } else if (node.op->id == OpId::kAdd) {
      if (node.inputs[0].node == mm && node.inputs[1].node != mm) {
        other = 1;
      } else if (node.inputs[1].node == mm && node.inputs[0].node != mm) {
        other = 0;
      } else {
        return false;
      }
    } else {
      return false;
    }
    const ValueInfo& v = g_.info(node.inputs[other]);
    const Shape& shape = product.outputs[0].shape;
    const int64_t columns = shape.dim(shape.rank() - 1);
    if (v.dtype != product.outputs[0].dtype || v.shape.rank() != 1 || columns == Shape::kUnknownDim ||
        v.shape.dim(0) != columns) {
      return false;
    }
    *bias = node.inputs[other];
    return true;
  }

  bool DeviceCanFuse(const std::string& name, DType dtype) {
    auto key = std::make_pair(name, dtype);
    auto it = can_fuse_.find(key);
    if (it != can_fuse_.end()) return it->second;
    Device* device = nullptr;
    const bool ok = DeviceManager::Global().Find(name, &device).ok() && !device->host_memory() &&
                    KernelRegistry::Global().Find(OpId::kFusedMatmul, device->type(), PackTypeKey(&dtype, 1)) !=
                        nullptr;
    return can_fuse_[key] = ok;
  }

  Graph& g_;
  std::vector<int> uses_;
  std::vector<bool> control_;
  std::vector<int> consumer_;  // a node reading each node's output (the only one where uses_ is 1)
  std::map<std::pair<std::string, DType>, bool> can_fuse_;
};

}  // namespace

Status FuseMatmulEpilogues(FunctionBody& body) {
  EpilogueFuser(body.graph).Run();
  return Status::OK();
}

}  // namespace ember
