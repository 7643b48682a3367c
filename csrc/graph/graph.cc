// This file implements Graph construction, ordering and pretty-printing.
#include "graph/graph.h"

#include <functional>
#include <queue>
#include <sstream>

namespace ember {

std::string Node::name() const { return is_arg() ? "arg" + std::to_string(arg_index) : op->name; }

int Graph::AddArg(ValueInfo info, std::string device) {
  Node node;
  node.arg_index = num_args_++;
  node.outputs.push_back(std::move(info));
  node.device = std::move(device);
  return AddNode(std::move(node));
}

int Graph::AddNode(Node node) {
  node.id = num_nodes();
  nodes_.push_back(std::move(node));
  return nodes_.back().id;
}

void Graph::Reset(std::vector<Node> nodes, int num_args, std::vector<Endpoint> outputs) {
  nodes_ = std::move(nodes);
  num_args_ = num_args;
  outputs_ = std::move(outputs);
}

std::vector<int> Graph::TopologicalOrder() const {
  // Kahn's algorithm, taking the lowest ready id first so trace order is kept.
  const int n = num_nodes();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (const Node& node : nodes_) {
    for (const Endpoint& in : node.inputs) {
      ++pending[node.id];
      consumers[in.node].push_back(node.id);
    }
    for (int c : node.control_inputs) {
      ++pending[node.id];
      consumers[c].push_back(node.id);
    }
  }
  std::vector<int> order;
  order.reserve(n);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(i);
  }
  while (!ready.empty()) {
    const int id = ready.top();
    ready.pop();
    order.push_back(id);
    for (int c : consumers[id]) {
      if (--pending[c] == 0) ready.push(c);
    }
  }
  return order;  // shorter than n only if there is a cycle
}

namespace {

std::string ValueString(const ValueInfo& v) { return std::string(DTypeName(v.dtype)) + v.shape.ToString(); }

}  // namespace

std::string Graph::Pretty() const {
  std::ostringstream out;
  for (const Node& node : nodes_) {
    out << "%" << node.id << " = ";
    if (node.is_arg()) {
      out << "arg " << node.arg_index;
    } else {
      out << node.op->name << "(";
      for (size_t i = 0; i < node.inputs.size(); ++i) {
        out << (i ? ", " : "") << "%" << node.inputs[i].node;
        if (nodes_[node.inputs[i].node].outputs.size() > 1) out << ":" << node.inputs[i].output;
      }
      out << ")";
      if (!node.attrs.empty()) {
        out << " {";
        for (size_t i = 0; i < node.attrs.size(); ++i) {
          out << (i ? ", " : "") << node.op->attrs[i].name << "=" << node.attrs[i].ToString();
        }
        out << "}";
      }
      if (!node.control_inputs.empty()) {
        out << " after(";
        for (size_t i = 0; i < node.control_inputs.size(); ++i) {
          out << (i ? ", " : "") << "%" << node.control_inputs[i];
        }
        out << ")";
      }
    }
    out << " : ";
    for (size_t i = 0; i < node.outputs.size(); ++i) out << (i ? ", " : "") << ValueString(node.outputs[i]);
    if (!node.device.empty()) out << " @" << node.device;
    if (!node.location.empty()) out << "  # " << node.location;
    out << "\n";
  }
  out << "return (";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    out << (i ? ", " : "") << "%" << outputs_[i].node;
    if (nodes_[outputs_[i].node].outputs.size() > 1) out << ":" << outputs_[i].output;
  }
  out << ")\n";
  return out.str();
}

}  // namespace ember
