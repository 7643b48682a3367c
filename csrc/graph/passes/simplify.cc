// This file implements SimplifyArithmetic.
#include <cstring>

#include "graph/passes/passes.h"
#include "ops/op_ids.gen.h"

namespace ember {
namespace {

// True if every element of `t` equals `value` (0 or 1). Half types are
// compared by bit pattern, so this file needs no Eigen.
bool AllEqual(const Tensor& t, int value) {
  const int64_t n = t.NumElements();
  auto all = [n](auto pred) {
    for (int64_t i = 0; i < n; ++i) {
      if (!pred(i)) return false;
    }
    return n > 0;
  };
  switch (t.dtype()) {
    case DType::kFloat32: return all([&](int64_t i) { return t.data<float>()[i] == value; });
    case DType::kFloat64: return all([&](int64_t i) { return t.data<double>()[i] == value; });
    case DType::kInt32: return all([&](int64_t i) { return t.data<int32_t>()[i] == value; });
    case DType::kInt64: return all([&](int64_t i) { return t.data<int64_t>()[i] == value; });
    case DType::kInt8: return all([&](int64_t i) { return t.data<int8_t>()[i] == value; });
    case DType::kInt16: return all([&](int64_t i) { return t.data<int16_t>()[i] == value; });
    case DType::kUInt8: return all([&](int64_t i) { return t.data<uint8_t>()[i] == value; });
    case DType::kFloat16:
    case DType::kBFloat16: {
      const uint16_t one = t.dtype() == DType::kFloat16 ? 0x3C00 : 0x3F80;
      const auto* bits = static_cast<const uint16_t*>(t.raw_data());
      return all([&](int64_t i) { return value == 1 ? bits[i] == one : (bits[i] & 0x7FFF) == 0; });
    }
    case DType::kComplex64: {
      const auto* f = static_cast<const float*>(t.raw_data());
      return all([&](int64_t i) { return f[2 * i] == value && f[2 * i + 1] == 0; });
    }
    case DType::kBool: return false;
  }
  return false;
}

class Simplifier {
 public:
  explicit Simplifier(FunctionBody& body) : body_(body), g_(body.graph) {}

  void Run() {
    std::vector<bool> keep(g_.num_nodes(), true);
    for (const Node& node : g_.nodes()) {
      if (node.is_arg()) continue;
      Endpoint same;
      if (Forwards(node, &same)) {
        replace_.push_back({Endpoint{node.id, 0}, same});
        keep[node.id] = false;
      }
    }
    RewriteGraph(g_, keep, replace_);
  }

 private:
  // The endpoint a use of `e` really reads, after earlier replacements.
  Endpoint Resolve(Endpoint e) const {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [from, to] : replace_) {
        if (from == e) {
          e = to;
          changed = true;
        }
      }
    }
    return e;
  }

  bool IsConstant(Endpoint e, int value) const {
    const Node& n = g_.node(e.node);
    if (!n.is_arg() || n.arg_index >= static_cast<int>(body_.constants.size())) return false;
    TensorHandle* h = body_.constants[n.arg_index].get();
    if (h == nullptr || !h->Await().ok() || !h->device()->host_memory()) return false;
    return AllEqual(h->tensor(), value);
  }

  // True if node's only output always equals input `x` (same dtype and shape).
  bool Returns(const Node& node, Endpoint x, Endpoint* out) const {
    const ValueInfo& want = node.outputs[0];
    const ValueInfo& have = g_.info(x);
    if (want.dtype != have.dtype || !(want.shape == have.shape) || !want.shape.IsFullyKnown()) return false;
    *out = x;
    return true;
  }

  bool Forwards(const Node& node, Endpoint* out) const {
    const OpId op = node.op->id;
    if (op == OpId::kIdentity) return Returns(node, Resolve(node.inputs[0]), out);
    if (op == OpId::kTranspose) return CancelsTranspose(node, out);
    if (node.inputs.size() != 2 || node.outputs.size() != 1) return false;
    const Endpoint a = Resolve(node.inputs[0]), b = Resolve(node.inputs[1]);
    switch (op) {
      case OpId::kAdd:
        if (IsConstant(b, 0)) return Returns(node, a, out);
        return IsConstant(a, 0) && Returns(node, b, out);
      case OpId::kMultiply:
        if (IsConstant(b, 1)) return Returns(node, a, out);
        return IsConstant(a, 1) && Returns(node, b, out);
      case OpId::kSubtract:
        return IsConstant(b, 0) && Returns(node, a, out);
      case OpId::kDivide:
      case OpId::kTruediv:
        return IsConstant(b, 1) && Returns(node, a, out);
      default:
        return false;
    }
  }

  // transpose(transpose(x, p), q) is x when q undoes p.
  bool CancelsTranspose(const Node& node, Endpoint* out) const {
    const Endpoint inner_e = Resolve(node.inputs[0]);
    const Node& inner = g_.node(inner_e.node);
    if (inner.is_arg() || inner.op->id != OpId::kTranspose) return false;
    const Endpoint x = Resolve(inner.inputs[0]);
    const int rank = g_.info(x).shape.rank();
    auto perm_of = [rank](const Node& t) {
      std::vector<int64_t> p;
      if (t.attrs[0].is_none()) {
        for (int i = rank - 1; i >= 0; --i) p.push_back(i);  // the default reverses the dims
      } else {
        p = t.attrs[0].as_int_list();
      }
      return p;
    };
    const std::vector<int64_t> p = perm_of(inner), q = perm_of(node);
    if (static_cast<int>(p.size()) != rank || static_cast<int>(q.size()) != rank) return false;
    for (int i = 0; i < rank; ++i) {
      if (p[q[i]] != i) return false;
    }
    return Returns(node, x, out);
  }

  FunctionBody& body_;
  Graph& g_;
  std::vector<std::pair<Endpoint, Endpoint>> replace_;
};

}  // namespace

Status SimplifyArithmetic(FunctionBody& body) {
  Simplifier(body).Run();
  return Status::OK();
}

}  // namespace ember
