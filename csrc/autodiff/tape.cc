// This file implements Tape (Note [Gradient tape]).
#include "autodiff/tape.h"

namespace ember {

bool IsDifferentiableDType(DType dtype) {
  const DTypeKind kind = KindOf(dtype);
  return kind == DTypeKind::kFloat || kind == DTypeKind::kComplex;
}

void Tape::Watch(const RefPtr<TensorHandle>& handle) {
  if (!watched_.insert(handle.get()).second) return;
  watched_refs_.push_back(handle);
  handle->MarkSaved();
}

void Tape::Observe(const OpCall& call, const std::vector<RefPtr<TensorHandle>>& outputs) {
  if (!recording_ || CurrentOpCallInterceptor() != context_) return;
  if (call.op->grad == OpDef::Grad::kNotDifferentiable) return;
  bool reads_watched = false;
  for (const auto& in : call.inputs) reads_watched = reads_watched || IsWatched(in.get());
  if (!reads_watched) return;

  Keep(Entry{call.op, -1, *call.attrs, call.arg_starts, call.inputs, outputs});
}

void Tape::RecordCustom(std::vector<RefPtr<TensorHandle>> inputs, std::vector<RefPtr<TensorHandle>> outputs,
                        int64_t custom_id) {
  if (!recording_) return;
  bool reads_watched = false;
  for (const auto& in : inputs) reads_watched = reads_watched || IsWatched(in.get());
  if (!reads_watched) return;
  Keep(Entry{nullptr, custom_id, {}, {}, std::move(inputs), std::move(outputs)});
}

void Tape::Keep(Entry entry) {
  for (const auto& in : entry.inputs) in->MarkSaved();
  for (const auto& out : entry.outputs) {
    out->MarkSaved();
    // The entry holds the reference that keeps the key alive.
    if (IsDifferentiableDType(out->dtype())) watched_.insert(out.get());
  }
  entries_.push_back(std::move(entry));
}

void Tape::Reset() {
  entries_.clear();
  watched_.clear();
  watched_refs_.clear();
}

}  // namespace ember
