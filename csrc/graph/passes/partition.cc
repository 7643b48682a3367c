// This file implements InsertTransfers and PartitionByDevice.
#include <algorithm>
#include <map>
#include <tuple>

#include "core/device.h"
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
