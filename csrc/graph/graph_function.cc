// This file implements GraphFunction.
#include "graph/graph_function.h"

#include <limits>
#include <string_view>

#include "graph/function_library.h"
#include "ops/op_ids.gen.h"

namespace ember {
namespace {

int64_t SaturatingAdd(int64_t a, int64_t b) {
  return a > std::numeric_limits<int64_t>::max() - b ? std::numeric_limits<int64_t>::max() : a + b;
}

}  // namespace

bool IsFunctionAttr(const char* name) {
  const std::string_view n(name);
  constexpr std::string_view kSuffix = "_function";
  return n == "function" || (n.size() > kSuffix.size() && n.substr(n.size() - kSuffix.size()) == kSuffix);
}

bool HasEffect(const Node& node) {
  if (node.is_arg()) return false;
  if (node.op->is_stateful) return true;
  for (size_t i = 0; i < node.op->attrs.size() && i < node.attrs.size(); ++i) {
    const AttrDef& def = node.op->attrs[i];
    if (!IsFunctionAttr(def.name) || def.type != AttrType::kInt || node.attrs[i].is_none()) continue;
    const std::shared_ptr<const GraphFunction> callee = FindGraphFunction(node.attrs[i].as_int());
    if (callee != nullptr && callee->has_effect()) return true;
  }
  return false;
}

int64_t BoundedWork(const Node& node) {
  if (node.is_arg()) return 0;
  if (node.op->id == OpId::kWhileLoop || node.op->waits_for_peers) return -1;  // Note [Ops that wait for peers]
  int64_t work = 0;
  for (const ValueInfo& out : node.outputs) {
    if (!out.shape.IsFullyKnown()) return -1;
    work = SaturatingAdd(work, out.shape.NumElements());
  }
  for (size_t i = 0; i < node.op->attrs.size() && i < node.attrs.size(); ++i) {
    const AttrDef& def = node.op->attrs[i];
    if (!IsFunctionAttr(def.name) || def.type != AttrType::kInt || node.attrs[i].is_none()) continue;
    const std::shared_ptr<const GraphFunction> callee = FindGraphFunction(node.attrs[i].as_int());
    if (callee == nullptr || callee->bounded_work() < 0) return -1;
    work = SaturatingAdd(work, callee->bounded_work());
  }
  return work;
}

GraphFunction::GraphFunction(Graph graph) : graph_(std::move(graph)) {
  for (const Node& node : graph_.nodes()) {
    if (node.is_arg()) continue;
    has_effect_ = has_effect_ || HasEffect(node);
    const int64_t work = BoundedWork(node);
    bounded_work_ = bounded_work_ < 0 || work < 0 ? -1 : SaturatingAdd(bounded_work_, work);
    for (size_t i = 0; i < node.op->attrs.size() && i < node.attrs.size(); ++i) {
      const AttrDef& def = node.op->attrs[i];
      if (!IsFunctionAttr(def.name) || def.type != AttrType::kInt || node.attrs[i].is_none()) continue;
      if (auto callee = FindGraphFunction(node.attrs[i].as_int())) callees_.push_back(std::move(callee));
    }
  }
}

Status GraphFunction::GetExecutor(const GraphExecutor** out) const {
  std::call_once(once_, [this] { init_status_ = GraphExecutor::Create(graph_, &executor_); });
  *out = executor_.get();
  return init_status_;
}

}  // namespace ember
