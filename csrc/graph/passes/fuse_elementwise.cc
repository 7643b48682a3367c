// This file implements FuseElementwise: groups of element-wise nodes become
// one fused_elementwise node (Note [Element-wise fusion]).
#include <algorithm>
#include <map>

#include "core/device.h"
#include "graph/passes/passes.h"
#include "ops/fused_program.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

// Note [Fusion groups]
// Nodes are visited in topological order; a fusible node joins the groups
// of its fusible producers when they agree on device, dtype and shape, so a
// group computes one shape and every argument it reads has that shape, one
// element, or is a channel vector of it. A merge must not create a cycle:
// if some node outside the group depends on the group and feeds it, the
// fused node would wait for itself. Ids are a topological order, so that search only walks nodes
// whose id is above the group's lowest. A shape with unknown dims is only
// shared when every full-size argument is one and the same value (its
// "source"): two unknown dims may differ at run time, where the unfused
// ops would broadcast.
class Fuser {
 public:
  explicit Fuser(Graph& g) : g_(g), n_(g.num_nodes()), group_(n_, -1), source_(n_), visit_(n_, 0) {}

  void Run() {
    FindControlSources();
    for (int id = 0; id < n_; ++id) {
      if (Fusible(id)) Place(id);
    }
    Rewrite();
  }

 private:
  struct Group {
    std::vector<int> members;
    DType dtype;
    Shape shape;
    std::string device;
    Endpoint source;  // for shapes with unknown dims
  };

  void FindControlSources() {
    control_source_.assign(n_, false);
    for (const Node& node : g_.nodes()) {
      for (int c : node.control_inputs) control_source_[c] = true;
    }
  }

  bool DeviceCanFuse(const std::string& name, DType dtype) {
    auto key = std::make_pair(name, dtype);
    auto it = can_fuse_.find(key);
    if (it != can_fuse_.end()) return it->second;
    Device* device = nullptr;
    bool ok = DeviceManager::Global().Find(name, &device).ok() &&
              KernelRegistry::Global().Find(OpId::kFusedElementwise, device->type(), PackTypeKey(&dtype, 1)) !=
                  nullptr;
    return can_fuse_[key] = ok;
  }

  // A run-time argument broadcast from one element into `shape`.
  static bool OneElement(const Shape& s, const Shape& shape) {
    return s.IsFullyKnown() && s.NumElements() == 1 && s.rank() <= shape.rank();
  }

  bool Fusible(int id) {
    const Node& node = g_.node(id);
    if (node.is_arg() || node.outputs.size() != 1 || !node.control_inputs.empty() || control_source_[id]) return false;
    const FusedOpInfo* info = FindFusedOp(node.op->name);
    if (info == nullptr || static_cast<int>(node.inputs.size()) != info->arity) return false;
    if ((info->param == FusedParam::kNone) != node.attrs.empty()) return false;
    const DType dtype = node.outputs[0].dtype;
    if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return false;
    if (!DeviceCanFuse(node.device, dtype)) return false;
    const Shape& shape = node.outputs[0].shape;
    Endpoint source;
    bool have_source = false;
    for (const Endpoint& in : node.inputs) {
      const ValueInfo& v = g_.info(in);
      if (v.dtype != dtype) return false;
      if (OneElement(v.shape, shape) && !(v.shape == shape)) continue;
      if (IsChannelVector(v.shape, shape)) continue;  // a scale, shift or bias along the last dim
      if (!(v.shape == shape)) return false;
      const Endpoint from = group_[in.node] >= 0 ? source_[in.node] : in;
      if (have_source && !(from == source)) source = Endpoint{-2, 0};  // two different full-size values
      if (!have_source) source = from;
      have_source = true;
    }
    if (!shape.IsFullyKnown() && (!have_source || source.node == -2)) return false;
    source_[id] = shape.IsFullyKnown() ? Endpoint{} : source;
    return true;
  }

  bool Compatible(const Group& group, int id) const {
    const Node& node = g_.node(id);
    return group.device == node.device && group.dtype == node.outputs[0].dtype &&
           group.shape == node.outputs[0].shape && (group.shape.IsFullyKnown() || group.source == source_[id]);
  }

  // True if `from` (outside the set) depends on a node for which in_set is
  // true; only nodes with id >= min_id can.
  template <typename InSet>
  bool DependsOn(int from, int min_id, const InSet& in_set) {
    ++stamp_;
    std::vector<int> stack{from};
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (id < min_id || visit_[id] == stamp_) continue;
      visit_[id] = stamp_;
      if (in_set(id)) return true;
      for (const Endpoint& in : g_.node(id).inputs) stack.push_back(in.node);
      for (int c : g_.node(id).control_inputs) stack.push_back(c);
    }
    return false;
  }

  // True if adding node `id` and the groups `merged` into one set makes no
  // path leave the set and come back.
  bool Acyclic(int id, const std::vector<int>& merged) {
    auto in_set = [&](int x) {
      return x == id || (group_[x] >= 0 && std::find(merged.begin(), merged.end(), group_[x]) != merged.end());
    };
    int min_id = id;
    std::vector<int> members{id};
    for (int gi : merged) {
      min_id = std::min(min_id, groups_[gi].members.front());
      // With one group, its own members' inputs were checked when they
      // joined and cannot depend on the later node `id`.
      if (merged.size() > 1) members.insert(members.end(), groups_[gi].members.begin(), groups_[gi].members.end());
    }
    for (int m : members) {
      for (const Endpoint& in : g_.node(m).inputs) {
        if (!in_set(in.node) && DependsOn(in.node, min_id, in_set)) return false;
      }
    }
    return true;
  }

  void Place(int id) {
    std::vector<int> candidates;
    for (const Endpoint& in : g_.node(id).inputs) {
      const int gi = group_[in.node];
      if (gi >= 0 && Compatible(groups_[gi], id) &&
          std::find(candidates.begin(), candidates.end(), gi) == candidates.end()) {
        candidates.push_back(gi);
      }
    }
    if (!candidates.empty() && Acyclic(id, candidates)) return Join(id, candidates);
    for (int gi : candidates) {
      if (Acyclic(id, {gi})) return Join(id, {gi});
    }
    const Node& node = g_.node(id);
    group_[id] = static_cast<int>(groups_.size());
    groups_.push_back(Group{{id}, node.outputs[0].dtype, node.outputs[0].shape, node.device, source_[id]});
  }

  void Join(int id, const std::vector<int>& merged) {
    Group& into = groups_[merged[0]];
    for (size_t i = 1; i < merged.size(); ++i) {
      for (int m : groups_[merged[i]].members) {
        group_[m] = merged[0];
        into.members.push_back(m);
      }
      groups_[merged[i]].members.clear();
    }
    group_[id] = merged[0];
    into.members.push_back(id);
    // Kept in id order (a topological order) for Rewrite; one group's
    // members all precede `id` already.
    if (merged.size() > 1) std::sort(into.members.begin(), into.members.end());
  }

  // One fused node per group of two or more; the members' uses are
  // redirected to its outputs and the members dropped.
  void Rewrite() {
    std::vector<bool> used_outside(n_, false);
    for (const Node& node : g_.nodes()) {
      for (const Endpoint& in : node.inputs) {
        if (group_[in.node] >= 0 && group_[in.node] != group_[node.id]) used_outside[in.node] = true;
      }
    }
    for (const Endpoint& e : g_.outputs()) used_outside[e.node] = true;
    std::vector<std::pair<Endpoint, Endpoint>> replace;
    std::vector<int> dropped;
    for (const Group& group : groups_) {
      if (group.members.size() < 2) continue;
      FusedProgram program;
      Node fused;
      std::map<std::pair<int, int>, int> arg_of;
      std::map<int, int> instruction_of;
      std::vector<int> outputs;
      for (int m : group.members) {
        const Node& node = g_.node(m);
        const FusedOpInfo& info = *FindFusedOp(node.op->name);
        FusedInstruction ins;
        ins.op = info.op;
        if (info.param == FusedParam::kFloat) ins.param = node.attrs[0].as_float();
        if (info.param == FusedParam::kBool) ins.param = node.attrs[0].as_bool() ? 1 : 0;
        int operands[2] = {0, 0};
        for (size_t i = 0; i < node.inputs.size(); ++i) {
          const Endpoint in = node.inputs[i];
          if (group_[in.node] == group_[m]) {
            operands[i] = instruction_of.at(in.node);
            continue;
          }
          auto [it, added] = arg_of.emplace(std::make_pair(in.node, in.output), static_cast<int>(fused.inputs.size()));
          if (added) fused.inputs.push_back(in);
          operands[i] = FusedArg(it->second);
        }
        ins.a = operands[0];
        ins.b = operands[1];
        instruction_of[m] = static_cast<int>(program.code.size());
        program.code.push_back(ins);
        if (used_outside[m]) outputs.push_back(m);
      }
      fused.op = &GetOpDef(OpId::kFusedElementwise);
      fused.bindings[0] = group.dtype;
      fused.list_sizes = {static_cast<int>(fused.inputs.size())};
      std::vector<int64_t> output_numbers;
      for (int m : outputs) output_numbers.push_back(instruction_of.at(m));
      fused.attrs = {AttrValue(program.ToText()), AttrValue(std::move(output_numbers))};
      fused.outputs.assign(outputs.size(), ValueInfo{group.dtype, group.shape});
      fused.device = group.device;
      fused.location = g_.node(group.members.back()).location;
      const int fused_id = g_.AddNode(std::move(fused));
      for (size_t o = 0; o < outputs.size(); ++o) {
        replace.push_back({Endpoint{outputs[o], 0}, Endpoint{fused_id, static_cast<int>(o)}});
      }
      dropped.insert(dropped.end(), group.members.begin(), group.members.end());
    }
    if (dropped.empty()) return;
    std::vector<bool> keep(g_.num_nodes(), true);
    for (int m : dropped) keep[m] = false;
    RewriteGraph(g_, keep, replace);  // re-sorts: a fused node follows all its arguments
  }

  Graph& g_;
  const int n_;
  std::vector<int> group_;       // node -> group index, or -1
  std::vector<Endpoint> source_;  // node -> its full-size source (unknown shapes)
  std::vector<Group> groups_;
  std::vector<bool> control_source_;
  std::vector<int> visit_;
  int stamp_ = 0;
  std::map<std::pair<std::string, DType>, bool> can_fuse_;
};

}  // namespace

Status FuseElementwise(FunctionBody& body) {
  Fuser(body.graph).Run();
  return Status::OK();
}

}  // namespace ember
