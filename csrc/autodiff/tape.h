// This file declares Tape, the recording half of ember.GradientTape.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include "core/attr_value.h"
#include "ops/op_def.h"
#include "runtime/op_call.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Gradient tape]
// A Tape is an OpCallObserver (Note [Op-call record]): while it is pushed
// on a thread, Execute shows it every op call of that thread once the
// outputs exist. It keeps the calls that lead from a watched value to new
// values: an op with a watched input (a tensor given to Watch, or an
// output of an op kept before) is kept, with its inputs, outputs and
// attributes, and its floating and complex outputs become watched. Calls
// of ops declared not differentiable are not kept, and integer and bool
// outputs are never watched, so no gradient flows through them
// (TensorFlow's rule).
//
// Kept values are marked saved (TensorHandle::MarkSaved): the backward pass
// reads them, so buffer donation must never overwrite them.
//
// A tape sees only the calls made in the context it was created in: a
// tape created eagerly ignores the ops of a function being traced (it
// sees the function's call instead), and a tape created inside a trace
// records that trace's symbolic ops, so the backward pass becomes part
// of the graph. The backward pass itself (walking the kept calls in
// reverse and calling each op's gradient function) is Python:
// python/ember/autodiff/_tape.py.
//
// One thread uses a tape at a time (ember.GradientTape is thread-local,
// as in TensorFlow).
class Tape final : public OpCallObserver {
 public:
  struct Entry {
    const OpDef* op;  // null for a custom_gradient call
    int64_t custom_id = -1;  // the custom_gradient call's id, else -1
    AttrList attrs;
    std::vector<int> arg_starts;  // Note [List arguments]; empty without lists
    std::vector<RefPtr<TensorHandle>> inputs;
    std::vector<RefPtr<TensorHandle>> outputs;
  };

  Tape() : context_(CurrentOpCallInterceptor()) {}

  // Later ops that read `handle` are recorded. Integer and bool values may
  // be watched (TensorFlow allows it); their gradient is None.
  void Watch(const RefPtr<TensorHandle>& handle);
  bool IsWatched(const TensorHandle* handle) const { return watched_.count(handle) != 0; }

  void Observe(const OpCall& call, const std::vector<RefPtr<TensorHandle>>& outputs) override;

  // Records a call of an @ember.custom_gradient function: `outputs` were
  // computed from `inputs` with recording paused, and Python keeps the
  // gradient function under `custom_id`. Kept only if an input is watched.
  void RecordCustom(std::vector<RefPtr<TensorHandle>> inputs, std::vector<RefPtr<TensorHandle>> outputs,
                    int64_t custom_id);

  // Recorded calls, in the order they were made.
  const std::vector<Entry>& entries() const { return entries_; }
  // Forgets every call and watched value (GradientTape.reset).
  void Reset();

  // Paused by GradientTape.stop_recording.
  bool recording() const { return recording_; }
  void set_recording(bool on) { recording_ = on; }

 private:
  void Keep(Entry entry);

  OpCallInterceptor* const context_;  // the trace it was created in, or null
  bool recording_ = true;
  std::unordered_set<const TensorHandle*> watched_;
  std::vector<RefPtr<TensorHandle>> watched_refs_;  // keeps watched_ keys alive
  std::vector<Entry> entries_;
};

// True for dtypes a gradient flows through: floating and complex.
bool IsDifferentiableDType(DType dtype);

}  // namespace ember
