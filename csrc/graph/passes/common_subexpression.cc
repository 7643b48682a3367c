// This file implements EliminateCommonSubexpressions.
#include <unordered_map>

#include "graph/graph_function.h"
#include "graph/passes/passes.h"

namespace ember {
namespace {

bool SameCall(const Node& a, const Node& b) {
  if (a.op != b.op || a.inputs.size() != b.inputs.size() || a.list_sizes != b.list_sizes ||
      a.control_inputs != b.control_inputs || a.device != b.device || !(a.attrs == b.attrs)) {
    return false;
  }
  for (size_t i = 0; i < a.op->type_vars.size(); ++i) {
    if (a.bindings[i] != b.bindings[i]) return false;
  }
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    if (!(a.inputs[i] == b.inputs[i])) return false;
  }
  return true;
}

size_t CallHash(const Node& n) {
  size_t h = static_cast<size_t>(n.op->id) * 1000003u ^ HashAttrs(n.attrs);
  for (const Endpoint& e : n.inputs) h = h * 31 + static_cast<size_t>(e.node) * 7 + static_cast<size_t>(e.output);
  return h;
}

}  // namespace

// Nodes are visited in order with inputs already rewritten to their
// representatives, so chains of duplicates collapse in one pass. Every op
// is a pure function of its inputs and attrs (random ops take their seed
// as an input), so equal calls compute equal values.
Status EliminateCommonSubexpressions(FunctionBody& body) {
  Graph& g = body.graph;
  std::vector<int> rep(g.num_nodes());
  std::unordered_multimap<size_t, int> seen;
  std::vector<bool> keep(g.num_nodes(), true);
  std::vector<std::pair<Endpoint, Endpoint>> replace;
  for (int id = 0; id < g.num_nodes(); ++id) {
    rep[id] = id;
    Node& node = g.mutable_node(id);
    for (Endpoint& in : node.inputs) in.node = rep[in.node];
    for (int& c : node.control_inputs) c = rep[c];
    if (node.is_arg() || HasEffect(node)) continue;  // two prints print twice
    const size_t h = CallHash(node);
    auto [first, last] = seen.equal_range(h);
    for (auto it = first; it != last; ++it) {
      if (SameCall(g.node(it->second), node)) {
        rep[id] = it->second;
        break;
      }
    }
    if (rep[id] != id) {
      keep[id] = false;
      for (size_t o = 0; o < node.outputs.size(); ++o) {
        replace.push_back({Endpoint{id, static_cast<int>(o)}, Endpoint{rep[id], static_cast<int>(o)}});
      }
    } else {
      seen.emplace(h, id);
    }
  }
  RewriteGraph(g, keep, replace);
  return Status::OK();
}

}  // namespace ember
