// This file implements RewriteGraph, the one place passes renumber nodes.
#include <map>

#include "graph/passes/passes.h"

namespace ember {

void RewriteGraph(Graph& graph, const std::vector<bool>& keep,
                  const std::vector<std::pair<Endpoint, Endpoint>>& replace) {
  std::map<std::pair<int, int>, Endpoint> redirect;
  for (const auto& [from, to] : replace) redirect[{from.node, from.output}] = to;
  auto resolve = [&](Endpoint e) {
    for (auto it = redirect.find({e.node, e.output}); it != redirect.end();
         it = redirect.find({e.node, e.output})) {
      e = it->second;
    }
    return e;
  };
  std::vector<int> new_id(graph.num_nodes(), -1);
  // Arguments first (constant folding appends some), then the kept ops in
  // their order, so ids stay a topological order.
  std::vector<const Node*> order;
  for (const Node& n : graph.nodes()) {
    if (n.is_arg()) order.push_back(&n);
  }
  for (int id : graph.TopologicalOrder()) {
    const Node& n = graph.node(id);
    if (!n.is_arg() && keep[n.id]) order.push_back(&n);
  }
  for (const Node& n : graph.nodes()) new_id[n.id] = -1;
  int next = 0;
  for (const Node* n : order) new_id[n->id] = next++;
  std::vector<Node> nodes;
  for (const Node* old_ptr : order) {
    const Node& old = *old_ptr;
    Node node = old;
    node.id = new_id[old.id];
    for (Endpoint& in : node.inputs) {
      in = resolve(in);
      in.node = new_id[in.node];
    }
    std::vector<int> control;
    for (int c : node.control_inputs) {
      if (new_id[c] >= 0) control.push_back(new_id[c]);
    }
    node.control_inputs = std::move(control);
    nodes.push_back(std::move(node));
  }
  std::vector<Endpoint> outputs;
  for (Endpoint e : graph.outputs()) {
    e = resolve(e);
    e.node = new_id[e.node];
    outputs.push_back(e);
  }
  graph.Reset(std::move(nodes), graph.num_args(), std::move(outputs));
}

}  // namespace ember
