// This file implements MakeEinsumGpuPlan (Note [GPU einsum]).
#include "kernels/cuda/einsum_plan.h"

#include <algorithm>
#include <string>

#include "core/checked_math.h"

namespace ember::cuda {
namespace {

using shape_fns::ConcatLabels;
using shape_fns::EinsumSpec;

// A row-major array in one of the plan's buffers; dim d carries label
// labels[d] (labels may repeat in an input).
struct Operand {
  int buffer = 0;
  std::vector<int> labels;
  std::vector<int64_t> dims;
};

class Planner {
 public:
  Planner(const EinsumSpec& spec, EinsumGpuPlan* plan) : spec_(spec), plan_(plan) {}

  // The elements of an array over `labels`. An intermediate may be larger
  // than every input and the output (Note [Shape limits]): past int64_t
  // it records the error that MakeEinsumGpuPlan returns, and gives 0.
  int64_t Product(const std::vector<int>& labels) {
    int64_t n = 1;
    for (int l : labels) {
      if (!CheckedMul(n, spec_.sizes[l], &n)) {
        status_ = ResourceExhausted("einsum: an intermediate of the equation has more elements than fit in int64");
        return 0;
      }
    }
    return n;
  }
  const Status& status() const { return status_; }

  // `in` already is `kept` in that order, with nothing to sum or broadcast.
  bool IsLaidOut(const Operand& in, const std::vector<int>& kept) const {
    if (in.labels != kept) return false;
    for (size_t d = 0; d < kept.size(); ++d) {
      if (in.dims[d] != spec_.sizes[kept[d]]) return false;
    }
    return true;
  }

  int NewScratch(int64_t elements) {
    plan_->scratch_elements.push_back(elements);
    return plan_->num_inputs + static_cast<int>(plan_->scratch_elements.size()) - 1;
  }

  // `in` as `kept` with `summed` summed, in a new scratch buffer or (with
  // `to_output`) the output; `in` itself when it already is that and need
  // not be copied.
  Status Arranged(const Operand& in, const std::vector<int>& kept, const std::vector<int>& summed, bool to_output,
                  Operand* out) {
    if (!to_output && summed.empty() && IsLaidOut(in, kept)) {
      *out = in;
      return Status::OK();
    }
    if (kept.size() > static_cast<size_t>(kMaxReduceDims) || summed.size() > static_cast<size_t>(kMaxReduceDims)) {
      return Unimplemented("einsum on a GPU rearranges at most " + std::to_string(kMaxReduceDims) +
                           " labels at once, this equation needs " + std::to_string(std::max(kept.size(), summed.size())));
    }
    std::vector<int64_t> label_stride(spec_.sizes.size(), 0);
    int64_t stride = 1;
    for (int d = static_cast<int>(in.dims.size()) - 1; d >= 0; --d) {
      if (in.dims[d] != 1) label_stride[in.labels[d]] += stride;  // size 1: broadcast, stride 0
      stride *= in.dims[d];
    }
    EinsumStep step;
    step.kind = EinsumStep::Kind::kArrange;
    step.src = in.buffer;
    ReduceIndexing& ix = step.arrange;
    ix.kept_rank = static_cast<int>(kept.size());
    ix.reduced_rank = static_cast<int>(summed.size());
    for (size_t i = 0; i < kept.size(); ++i) {
      ix.kept_dims[i] = spec_.sizes[kept[i]];
      ix.kept_strides[i] = label_stride[kept[i]];
    }
    for (size_t i = 0; i < summed.size(); ++i) {
      ix.reduced_dims[i] = spec_.sizes[summed[i]];
      ix.reduced_strides[i] = label_stride[summed[i]];
    }
    ix.num_outputs = Product(kept);
    ix.num_reduced = Product(summed);
    out->labels = kept;
    out->dims.clear();
    for (int l : kept) out->dims.push_back(spec_.sizes[l]);
    out->buffer = to_output ? EinsumGpuPlan::kOutput : NewScratch(ix.num_outputs);
    step.dst = out->buffer;
    if (ix.num_outputs > 0) plan_->steps.push_back(step);
    return Status::OK();
  }

  // a and b contracted; `later` marks the labels the output or a later
  // operand needs; `last`: the final pair, which may write the output.
  Status Contract(const Operand& a, const Operand& b, const std::vector<bool>& later, bool last, Operand* c) {
    const shape_fns::EinsumPairLabels p = shape_fns::SplitEinsumPair(a.labels, b.labels, later, spec_.num_labels());
    Operand lhs, rhs;
    EMBER_RETURN_IF_ERROR(Arranged(a, ConcatLabels(ConcatLabels(p.batch, p.a_free), p.contracted), p.a_sum, false, &lhs));
    EMBER_RETURN_IF_ERROR(Arranged(b, ConcatLabels(ConcatLabels(p.batch, p.contracted), p.b_free), p.b_sum, false, &rhs));
    EinsumStep step;
    step.batch = Product(p.batch);
    step.m = Product(p.a_free);
    step.k = Product(p.contracted);
    step.n = Product(p.b_free);
    c->labels = ConcatLabels(ConcatLabels(p.batch, p.a_free), p.b_free);
    c->dims.clear();
    for (int l : c->labels) c->dims.push_back(spec_.sizes[l]);
    const int64_t elements = Product(c->labels);
    c->buffer = last && c->labels == spec_.output ? EinsumGpuPlan::kOutput : NewScratch(elements);
    if (elements == 0) return Status::OK();
    step.dst = c->buffer;
    if (step.k == 0) {  // an empty sum is 0
      step.kind = EinsumStep::Kind::kZero;
      step.elements = elements;
    } else {
      step.kind = EinsumStep::Kind::kGemm;
      step.src = lhs.buffer;
      step.src2 = rhs.buffer;
    }
    plan_->steps.push_back(step);
    return Status::OK();
  }

 private:
  const EinsumSpec& spec_;
  EinsumGpuPlan* plan_;
  Status status_;
};

}  // namespace

Status MakeEinsumGpuPlan(const EinsumSpec& spec, const std::vector<Shape>& inputs, EinsumGpuPlan* plan) {
  *plan = EinsumGpuPlan();
  const int n = static_cast<int>(inputs.size());
  plan->num_inputs = n;
  Planner planner(spec, plan);
  const std::vector<std::vector<bool>> needed = shape_fns::EinsumLaterLabels(spec);  // per operand
  auto input = [&](int i) {
    Operand op;
    op.buffer = i;
    op.labels = spec.inputs[i];
    op.dims = inputs[i].ToVector();
    return op;
  };
  Operand acc = input(0);
  for (int i = 1; i < n; ++i) {
    Operand c;
    EMBER_RETURN_IF_ERROR(planner.Contract(acc, input(i), needed[i], i == n - 1, &c));
    acc = std::move(c);
  }
  if (acc.buffer != EinsumGpuPlan::kOutput) {
    Operand out;
    EMBER_RETURN_IF_ERROR(planner.Arranged(
        acc, spec.output, shape_fns::EinsumLabelsOutside(acc.labels, spec.output, spec.num_labels()),
        /*to_output=*/true, &out));
  }
  return planner.status();
}

}  // namespace ember::cuda
