// This file implements InsertTransfers and PartitionByDevice.
#include <algorithm>
#include <map>
#include <tuple>

#include "core/device.h"
#include "graph/executor.h"
#include "graph/passes/passes.h"
#include "ops/op_ids.gen.h"

namespace ember {

namespace {

// Where input `i` of `node` must live: the node's device, or host memory
// for an input its kernel reads on the host on a device whose memory the
// host cannot read (Note [Host-memory inputs]).
// A metadata input (Note [Metadata inputs]) stays where it is made: empty.
std::string InputDevice(const Node& node, size_t i) {
  if (i < 32 && ((node.op->metadata_inputs >> i) & 1u) != 0) return std::string();
  if (i >= 32 || ((node.op->host_memory_inputs >> i) & 1u) == 0) return node.device;
  Device* device = nullptr;
  if (!DeviceManager::Global().Find(node.device, &device).ok() || device->host_memory()) return node.device;
  return DeviceManager::Global().cpu()->name();
}

// Note [Constants on their device]
// A constant captured on one device and read on another (a Python scalar
// or NumPy array, captured on the host, in a function on a GPU) is copied
// there once, here, as TensorFlow places a graph's constants on their
// consumer's device: a transfer node would copy it again on every call,
// and a graph with transfers cannot replay as a CUDA graph (Note [Graph
// replay]). Captured tensors never change, so the copy stays right; it is
// a new constant argument, held as long as the function. If the copy
// fails (the device is out of memory) the transfer node stays.
bool CopyConstant(FunctionBody& body, Endpoint in, const std::string& device_name, int* arg_node) {
  const Node& n = body.graph.node(in.node);
  if (!n.is_arg() || n.arg_index >= static_cast<int>(body.constants.size())) return false;
  const ValueInfo info = n.outputs[0];  // AddArg below moves the nodes
  TensorHandle* constant = body.constants[n.arg_index].get();
  Device* device = nullptr;
  if (constant == nullptr || !DeviceManager::Global().Find(device_name, &device).ok()) return false;
  if (!constant->Await().ok()) return false;  // the call reports its error
  Tensor value = constant->tensor();
  if (!MoveToDevice(device, &value).ok()) return false;
  *arg_node = body.graph.AddArg(info, device_name);
  body.constants.resize(body.graph.num_args());
  body.constants.back() = TensorHandle::CreateReady(std::move(value), device);
  return true;
}

}  // namespace

Status InsertTransfers(FunctionBody& body) {
  Graph& g = body.graph;
  const OpDef& transfer = GetOpDef(OpId::kTransfer);
  // One transfer per (value, destination device), shared by its consumers there.
  std::map<std::tuple<int, int, std::string>, int> made;
  const int num_nodes = g.num_nodes();
  for (int id = 0; id < num_nodes; ++id) {
    if (g.node(id).is_arg()) continue;
    for (size_t i = 0; i < g.node(id).inputs.size(); ++i) {
      const Endpoint in = g.node(id).inputs[i];
      const std::string device = InputDevice(g.node(id), i);
      if (device.empty() || g.node(in.node).device == device) continue;
      auto key = std::make_tuple(in.node, in.output, device);
      auto it = made.find(key);
      int constant = -1;
      if (it == made.end() && CopyConstant(body, in, device, &constant)) it = made.emplace(key, constant).first;
      if (it == made.end()) {
        Node node;
        node.op = &transfer;
        node.bindings[0] = g.info(in).dtype;
        node.inputs = {in};
        node.outputs = {g.info(in)};
        node.device = device;
        node.location = g.node(id).location;
        it = made.emplace(key, g.AddNode(std::move(node))).first;
      }
      g.mutable_node(id).inputs[i] = Endpoint{it->second, 0};
    }
  }
  // Re-sort: the new nodes must precede their consumers.
  RewriteGraph(g, std::vector<bool>(g.num_nodes(), true), {});
  return Status::OK();
}

std::vector<DevicePartition> PartitionByDevice(const Graph& g) {
  std::vector<DevicePartition> parts;
  for (const Node& node : g.nodes()) {
    if (node.is_arg()) continue;
    auto it = std::find_if(parts.begin(), parts.end(), [&](const DevicePartition& p) { return p.device == node.device; });
    if (it == parts.end()) it = parts.insert(parts.end(), DevicePartition{node.device, {}});
    it->nodes.push_back(node.id);
  }
  return parts;
}

}  // namespace ember
