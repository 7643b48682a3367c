// This file implements ValidateNode and ValidateGraph: the checks that make
// a graph from outside the tracer (graph text) as safe to run as a traced
// one (Note [Graph validation]).
#include <algorithm>

#include "core/device.h"
#include "graph/graph.h"

namespace ember {
namespace {

// Note [Graph validation]
// The executor trusts a graph: it indexes values by endpoint, sizes output
// buffers from the node's recorded shapes when they are fully known, and
// reads attrs with their declared types. The tracer guarantees all of that
// because every node went through Execute. A graph read from text has not,
// so before it runs each node is checked as Execute would check the call
// (arity, attr types, type bindings, input dtypes) and its recorded output
// dtypes and shapes must equal what its shape function computes from its
// recorded inputs: a smaller recorded shape would let a kernel write past
// its buffer. Then the graph as a whole: argument indices, outputs, no
// cycles.

Status CheckInputLayout(const OpDef& op, const Node& node, std::vector<int>* arg_starts) {
  const int num_inputs = static_cast<int>(node.inputs.size());
  arg_starts->clear();
  if (!op.has_list_input()) {
    if (!node.list_sizes.empty()) return InvalidArgument("op has no list input but list sizes are given");
    if (num_inputs != static_cast<int>(op.inputs.size())) {
      return InvalidArgument("expected " + std::to_string(op.inputs.size()) + " inputs, got " +
                             std::to_string(num_inputs));
    }
    return Status::OK();
  }
  if (node.list_sizes.size() != op.inputs.size()) {
    return InvalidArgument("expected " + std::to_string(op.inputs.size()) + " list sizes, got " +
                           std::to_string(node.list_sizes.size()));
  }
  arg_starts->push_back(0);
  for (size_t a = 0; a < op.inputs.size(); ++a) {
    const int size = node.list_sizes[a];
    if (op.inputs[a].is_list ? size < 0 : size != 1) {
      return InvalidArgument(std::string("bad list size ") + std::to_string(size) + " for argument '" +
                             op.inputs[a].name + "'");
    }
    if (size > num_inputs - arg_starts->back()) break;  // reported below, without overflow
    arg_starts->push_back(arg_starts->back() + size);
  }
  if (arg_starts->size() != op.inputs.size() + 1 || arg_starts->back() != num_inputs) {
    return InvalidArgument("list sizes do not add up to the " + std::to_string(num_inputs) + " inputs");
  }
  return Status::OK();
}

Status CheckAttrs(const OpDef& op, const AttrList& attrs) {
  if (attrs.size() != op.attrs.size()) {
    return InvalidArgument("expected " + std::to_string(op.attrs.size()) + " attributes, got " +
                           std::to_string(attrs.size()));
  }
  for (size_t i = 0; i < attrs.size(); ++i) {
    const AttrDef& def = op.attrs[i];
    // Value types are checked where values are made (the text parser reads
    // each attr as its declared type; Execute's callers are generated).
    if (attrs[i].is_none() && !def.optional) {
      return InvalidArgument(std::string("attribute '") + def.name + "' may not be None");
    }
  }
  return Status::OK();
}

Status CheckBindings(const OpDef& op, const Node& node) {
  for (size_t v = 0; v < op.type_vars.size(); ++v) {
    const TypeVarDef& var = op.type_vars[v];
    const DType bound = node.bindings[v];
    if (static_cast<int>(bound) < 0 || static_cast<int>(bound) >= kNumDTypes || !var.allowed.Contains(bound)) {
      return InvalidArgument(std::string("type variable ") + var.name + " may not be " + DTypeName(bound));
    }
    if (var.bound_by_attr >= 0) {
      const AttrValue& a = node.attrs[var.bound_by_attr];
      if (!a.is_none() && a.as_dtype() != bound) {
        return InvalidArgument(std::string("type variable ") + var.name + " is " + DTypeName(bound) +
                               " but its attribute says " + DTypeName(a.as_dtype()));
      }
    }
  }
  return Status::OK();
}

// The argument a flat input index belongs to (Note [List arguments]).
const ArgDef& InputArg(const OpDef& op, const std::vector<int>& arg_starts, int flat) {
  if (arg_starts.empty()) return op.inputs[flat];
  size_t a = 0;
  while (arg_starts[a + 1] <= flat) ++a;
  return op.inputs[a];
}

// The dtype an argument of fixed or bound type has; false for list(any).
bool BoundDType(const ArgDef& arg, const Node& node, DType* out) {
  if (arg.type_var == kAnyDTypeVar) return false;
  *out = ArgDType(arg, node.bindings.data());
  return true;
}

Status CheckInputDTypes(const Graph& g, const OpDef& op, const Node& node, const std::vector<int>& arg_starts) {
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const ArgDef& arg = InputArg(op, arg_starts, static_cast<int>(i));
    DType want;
    const DType have = g.info(node.inputs[i]).dtype;
    if (BoundDType(arg, node, &want) && have != want) {
      return InvalidArgument("input " + std::to_string(i) + " (argument '" + arg.name + "') must be " +
                             DTypeName(want) + ", got " + DTypeName(have));
    }
  }
  return Status::OK();
}

Status CheckEndpoint(const Graph& g, const Endpoint& e, const std::string& what) {
  if (e.node < 0 || e.node >= g.num_nodes() || e.output < 0 ||
      e.output >= static_cast<int>(g.node(e.node).outputs.size())) {
    return InvalidArgument(what + " " + std::to_string(e.node) + ":" + std::to_string(e.output) +
                           " names no node output");
  }
  return Status::OK();
}

Status CheckDevice(const std::string& name) {
  // DeviceManager::Find reads the index with stoi; keep it in range.
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && name.size() - colon - 1 > 9) {
    return InvalidArgument("device index out of range in '" + name + "'");
  }
  Device* device = nullptr;
  return DeviceManager::Global().Find(name, &device);
}

// Runs the node's shape function on its recorded input shapes, as the
// executor does for a call (InferGraphShapes).
Status ComputeOutputs(const Graph& g, const OpDef& op, const Node& node, const std::vector<int>& arg_starts,
                      std::vector<Shape>* shapes, std::vector<DType>* dtypes) {
  std::vector<Shape> in_shapes;
  std::vector<DType> in_dtypes;
  for (const Endpoint& in : node.inputs) {
    in_shapes.push_back(g.info(in).shape);
    in_dtypes.push_back(g.info(in).dtype);
  }
  shapes->assign(op.outputs.size(), Shape());
  std::vector<DType> any_dtypes(op.outputs.size(), DType::kFloat32);
  ShapeContext ctx(op, in_shapes.data(), in_dtypes.data(), static_cast<int>(in_shapes.size()), node.attrs, shapes,
                   arg_starts.empty() ? nullptr : arg_starts.data());
  ctx.set_output_dtypes(&any_dtypes);
  EMBER_RETURN_IF_ERROR(op.shape_fn(ctx));
  if (!op.has_list_output() && shapes->size() != op.outputs.size()) {
    return InvalidArgument("shape function changed the number of outputs");
  }
  dtypes->clear();
  for (size_t i = 0; i < shapes->size(); ++i) {
    const ArgDef& arg = op.outputs[std::min(i, op.outputs.size() - 1)];
    DType d;
    dtypes->push_back(BoundDType(arg, node, &d) ? d : any_dtypes[i]);
  }
  return Status::OK();
}

Status CheckOutputs(const Node& node, const std::vector<ValueInfo>& computed) {
  if (computed.size() != node.outputs.size()) {
    return InvalidArgument("op gives " + std::to_string(computed.size()) + " outputs, the node records " +
                           std::to_string(node.outputs.size()));
  }
  for (size_t i = 0; i < computed.size(); ++i) {
    const ValueInfo& have = node.outputs[i];
    const ValueInfo& want = computed[i];
    if (have.dtype != want.dtype || have.shape != want.shape) {
      return InvalidArgument("output " + std::to_string(i) + " is recorded as " + DTypeName(have.dtype) +
                             have.shape.ToString() + " but the op gives " + DTypeName(want.dtype) +
                             want.shape.ToString());
    }
  }
  return Status::OK();
}

Status CheckNodeValues(const Node& node) {
  for (const ValueInfo& v : node.outputs) EMBER_RETURN_IF_ERROR(CheckValueInfo(v));
  return Status::OK();
}

}  // namespace

Status CheckValueInfo(const ValueInfo& v) {
  if (static_cast<int>(v.dtype) < 0 || static_cast<int>(v.dtype) >= kNumDTypes) return InvalidArgument("bad dtype");
  if (v.shape.rank() > kMaxGraphRank) {
    return InvalidArgument("rank " + std::to_string(v.shape.rank()) + " exceeds " + std::to_string(kMaxGraphRank));
  }
  // Buffers are sized elements * dtype size; that must fit an int64.
  int64_t bytes = static_cast<int64_t>(DTypeSize(v.dtype));
  for (int64_t d : v.shape) {
    if (d < Shape::kUnknownDim) return InvalidArgument("negative dimension " + std::to_string(d));
    if (d >= 0 && __builtin_mul_overflow(bytes, d, &bytes)) {
      return InvalidArgument("shape " + v.shape.ToString() + " has too many elements");
    }
  }
  return Status::OK();
}

Status InferNodeOutputs(const Graph& g, int id, std::vector<ValueInfo>* out) {
  if (id < 0 || id >= g.num_nodes() || g.node(id).is_arg()) return InvalidArgument("no op node " + std::to_string(id));
  const Node& node = g.node(id);
  const OpDef& op = *node.op;
  for (const Endpoint& in : node.inputs) EMBER_RETURN_IF_ERROR(CheckEndpoint(g, in, "input"));
  std::vector<int> arg_starts;
  EMBER_RETURN_IF_ERROR(CheckInputLayout(op, node, &arg_starts));
  EMBER_RETURN_IF_ERROR(CheckAttrs(op, node.attrs));
  EMBER_RETURN_IF_ERROR(CheckBindings(op, node));
  EMBER_RETURN_IF_ERROR(CheckInputDTypes(g, op, node, arg_starts));
  std::vector<Shape> shapes;
  std::vector<DType> dtypes;
  EMBER_RETURN_IF_ERROR(ComputeOutputs(g, op, node, arg_starts, &shapes, &dtypes));
  out->clear();
  for (size_t i = 0; i < shapes.size(); ++i) {
    out->push_back(ValueInfo{dtypes[i], std::move(shapes[i])});
    // A shape function must not produce what no buffer can hold.
    EMBER_RETURN_IF_ERROR(CheckValueInfo(out->back()));
  }
  return Status::OK();
}

Status ValidateNode(const Graph& g, int id) {
  if (id < 0 || id >= g.num_nodes()) return InvalidArgument("no node " + std::to_string(id));
  const Node& node = g.node(id);
  if (node.id != id) return InvalidArgument("node ids must equal their positions");
  EMBER_RETURN_IF_ERROR(CheckNodeValues(node));
  if (node.is_arg()) {
    if (node.outputs.size() != 1) return InvalidArgument("an argument has exactly one output");
    if (node.arg_index < 0 || node.arg_index >= g.num_args()) {
      return InvalidArgument("argument index " + std::to_string(node.arg_index) + " out of range");
    }
    return node.device.empty() ? Status::OK() : CheckDevice(node.device);
  }
  for (int c : node.control_inputs) {
    if (c < 0 || c >= g.num_nodes() || c == id) return InvalidArgument("bad control input " + std::to_string(c));
  }
  EMBER_RETURN_IF_ERROR(CheckDevice(node.device));
  std::vector<ValueInfo> computed;
  EMBER_RETURN_IF_ERROR(InferNodeOutputs(g, id, &computed));
  return CheckOutputs(node, computed);
}

int FindArgNode(const Graph& g, int index) {
  for (const Node& node : g.nodes()) {
    if (node.is_arg() && node.arg_index == index) return node.id;
  }
  return -1;
}

Status ValidateGraph(const Graph& g) {
  std::vector<bool> seen(g.num_args(), false);
  int args = 0;
  for (int id = 0; id < g.num_nodes(); ++id) {
    const Node& node = g.node(id);
    Status s = ValidateNode(g, id);
    if (!s.ok()) return s.WithPrefix("node %" + std::to_string(id) + " (" + (node.op ? node.op->name : "arg") + "): ");
    if (!node.is_arg()) continue;
    if (seen[node.arg_index]) return InvalidArgument("argument " + std::to_string(node.arg_index) + " appears twice");
    seen[node.arg_index] = true;
    ++args;
  }
  if (args != g.num_args()) {
    return InvalidArgument("the graph declares " + std::to_string(g.num_args()) + " arguments but has " +
                           std::to_string(args));
  }
  for (const Endpoint& e : g.outputs()) EMBER_RETURN_IF_ERROR(CheckEndpoint(g, e, "graph output"));
  if (static_cast<int>(g.TopologicalOrder().size()) != g.num_nodes()) return InvalidArgument("the graph has a cycle");
  return Status::OK();
}

}  // namespace ember
