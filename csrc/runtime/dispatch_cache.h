// This file declares the dispatch cache: per thread, what Execute's stages
// decided for the last eager call of each op, reused when the next call of
// that op has inputs with the same metadata.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/attr_value.h"
#include "ops/op_def.h"
#include "ops/op_kernel.h"
#include "runtime/op_call.h"
#include "runtime/tensor_handle.h"

namespace ember {

// Note [Dispatch cache]
// A program calls the same op on tensors of the same dtypes, shapes and
// device again and again (a training loop, an eager model's layers). For
// such a call, type binding, the shape function, placement and the kernel
// cache give the same answers as last time, and together they cost about
// a fifth of a small op's time. So each thread remembers, per op, the
// inputs' metadata (dtype, shape, device, shape-value mark) and attributes
// of its last plain eager call, with what the stages made of it: the bound
// dtypes, the device, the output dtypes and shapes, and the kernel. A call
// whose metadata match skips the stages and goes straight to the launch.
//
// The stages are functions of exactly that key, with these exceptions,
// which keep a call off the cache:
//  - what else placement reads: the thread's device scope, the set of
//    devices (only ever added to) and the kernels registered, which the
//    kernel cache's generation covers; each is part of the entry, and
//    placement logging turns the cache off so that every call is logged;
//  - calls the stages would change: inputs to cast (mixed dtypes), inputs
//    to copy to another device, inputs read on the host or only for their
//    metadata, variable inputs, list inputs, Python values to convert;
//  - calls someone else takes over or watches: tracing, the gradient tape;
//  - ops whose shape function leaves a kernel plan or sets output dtypes,
//    graph-running ops and collectives.
// The entry holds a reference to its kernel; the kernel cache's generation
// moves whenever that cache drops an entry, so a cached kernel is never
// one the cache has evicted or cleared.
//
// Note [Borrowed kernels]
// A launch for a cached call borrows the entry's kernel rather than
// copying its shared_ptr (two locked instructions per op, Note [Borrowed
// kernel inputs] in runtime/kernel_launch.cc). The entry must then keep
// the kernel until the launch ran or was moved to the heap, which copies
// it. A kernel can call back into Python and issue the same op on other
// shapes, whose store would replace the entry; so while launches borrow
// an entry (`running`, the thread's own count: entries are per thread) a
// store for that op leaves it alone and the nested call goes uncached.
struct DispatchEntry {
  static constexpr int kMaxInputs = 4;
  static constexpr int kMaxOutputs = 2;
  struct InputKey {
    DType dtype;
    bool shape_value;
    Device* device;
    Shape shape;
  };
  int num_inputs = 0;
  std::array<InputKey, kMaxInputs> inputs;
  AttrList attrs;
  Device* scope = nullptr;        // the thread's device scope when stored
  size_t num_devices = 0;         // DeviceManager's, when stored
  uint64_t kernel_generation = 0; // the kernel cache's, when stored
  // What the stages decided.
  std::array<DType, kMaxTypeVars> bindings{};
  Device* device = nullptr;
  int num_outputs = 0;
  std::array<DType, kMaxOutputs> output_dtypes{};
  std::array<Shape, kMaxOutputs> output_shapes;
  bool shape_value_outputs = false;
  std::shared_ptr<const OpKernel> kernel;
  mutable int running = 0;  // launches borrowing `kernel` now (Note [Borrowed kernels])
  std::atomic<uint64_t>* thread_hits = nullptr;  // Note [Dispatch hit counts]
};

// Note [Dispatch hit counts]
// A dispatch-cache hit counts as a kernel-cache hit (KernelCache::Stats).
// One shared counter cost a locked increment per op; each thread counts
// its own instead, with a plain load and store (only it writes), and the
// stats add the threads' counts up.
inline void CountDispatchHit(const DispatchEntry& entry) {
  std::atomic<uint64_t>& hits = *entry.thread_hits;
  hits.store(hits.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}
// Every thread's hits since the last reset, exited threads' included.
uint64_t DispatchHits();
void ResetDispatchHits();

// Marks `entry` borrowed for the scope's lifetime (Note [Borrowed kernels]).
class DispatchEntryInUse {
 public:
  explicit DispatchEntryInUse(const DispatchEntry* entry) : entry_(entry) { ++entry_->running; }
  ~DispatchEntryInUse() { --entry_->running; }
  DispatchEntryInUse(const DispatchEntryInUse&) = delete;
  DispatchEntryInUse& operator=(const DispatchEntryInUse&) = delete;

 private:
  const DispatchEntry* const entry_;
};

// The calling thread's entry for `op` if it matches this call, else null.
// Checks only the key; the caller checks tracing and observers.
const DispatchEntry* FindDispatchEntry(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
                                       const AttrList& attrs);

// Whether a call that went through every stage may be stored: `call` is
// its record just before the launch, `inputs` what the caller passed.
bool MayCacheDispatch(const OpCall& call, TensorHandle* const* inputs, int num_inputs);

// Stores the decisions for `call` as the thread's entry for its op.
// `kernel_generation`: the kernel cache's generation read before `kernel`
// was looked up.
void StoreDispatchEntry(const OpCall& call, TensorHandle* const* inputs, int num_inputs,
                        const std::shared_ptr<const OpKernel>& kernel, uint64_t kernel_generation,
                        bool shape_value_outputs);

}  // namespace ember
