// This file implements the dispatch cache (Note [Dispatch cache]).
#include "runtime/dispatch_cache.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "ops/op_ids.gen.h"
#include "runtime/context.h"
#include "runtime/kernel_run.h"

namespace ember {
namespace {

struct ThreadDispatchCache;

// Note [Dispatch hit counts]: the threads whose hits the stats add up.
struct HitRegistry {
  std::mutex mu;
  std::vector<ThreadDispatchCache*> threads;
  uint64_t exited = 0;  // hits of threads gone since the last reset
};

// Never destroyed: threads may exit after static destructors ran.
HitRegistry& Registry() {
  static HitRegistry* registry = new HitRegistry;
  return *registry;
}

// One slot per op, each allocated the first time the thread stores that op.
struct ThreadDispatchCache {
  std::vector<std::unique_ptr<DispatchEntry>> entries = std::vector<std::unique_ptr<DispatchEntry>>(kNumOps);
  std::atomic<uint64_t> hits{0};  // written by this thread only
  uint64_t hits_at_reset = 0;     // under the registry's lock

  ThreadDispatchCache() {
    HitRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.threads.push_back(this);
  }
  ~ThreadDispatchCache() {
    HitRegistry& r = Registry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.exited += hits.load(std::memory_order_relaxed) - hits_at_reset;
    r.threads.erase(std::find(r.threads.begin(), r.threads.end(), this));
  }
};

ThreadDispatchCache& ThisThread() {
  thread_local ThreadDispatchCache cache;
  return cache;
}

// Ops whose stages the key does not determine, or that never run as a
// plain launch (Note [Dispatch cache]).
bool OpMayBeCached(const OpDef& op) {
  return !op.has_list_input() && !op.has_list_output() && !op.has_any_dtype_output() &&
         op.host_memory_inputs == 0 && op.metadata_inputs == 0 && !op.waits_for_peers && !RunsOnHost(op) &&
         static_cast<int>(op.inputs.size()) <= DispatchEntry::kMaxInputs &&
         static_cast<int>(op.outputs.size()) <= DispatchEntry::kMaxOutputs;
}

}  // namespace

const DispatchEntry* FindDispatchEntry(const OpDef& op, TensorHandle* const* inputs, int num_inputs,
                                       const AttrList& attrs) {
  const DispatchEntry* e = ThisThread().entries[static_cast<int>(op.id)].get();
  if (e == nullptr || e->num_inputs != num_inputs) return nullptr;
  for (int i = 0; i < num_inputs; ++i) {
    const TensorHandle& in = *inputs[i];
    const DispatchEntry::InputKey& k = e->inputs[i];
    if (in.dtype() != k.dtype || in.device() != k.device || in.is_shape_value() != k.shape_value ||
        in.shape() != k.shape) {
      return nullptr;
    }
  }
  if (!(e->attrs == attrs)) return nullptr;
  Context& context = Context::Global();
  if (context.log_placement()) return nullptr;  // every placement is logged
  const KernelCache& kernels = context.kernel_cache();
  if (e->kernel_generation != kernels.generation() || !kernels.fronts_enabled()) return nullptr;
  if (e->scope != CurrentScopeDevice() || e->num_devices != DeviceManager::Global().devices().size()) {
    return nullptr;
  }
  return e;
}

bool MayCacheDispatch(const OpCall& call, TensorHandle* const* inputs, int num_inputs) {
  const OpDef& op = *call.op;
  if (!OpMayBeCached(op) || call.plan != nullptr || call.output_shapes.size() != op.outputs.size()) return false;
  if (static_cast<int>(call.inputs.size()) != num_inputs) return false;
  // No input was cast or copied: the launch reads the caller's handles.
  for (int i = 0; i < num_inputs; ++i) {
    if (call.inputs[i].get() != inputs[i]) return false;
  }
  return !Context::Global().log_placement();
}

void StoreDispatchEntry(const OpCall& call, TensorHandle* const* inputs, int num_inputs,
                        const std::shared_ptr<const OpKernel>& kernel, uint64_t kernel_generation,
                        bool shape_value_outputs) {
  const OpDef& op = *call.op;
  std::unique_ptr<DispatchEntry>& slot = ThisThread().entries[static_cast<int>(op.id)];
  if (slot == nullptr) slot = std::make_unique<DispatchEntry>();
  if (slot->running > 0) return;  // Note [Borrowed kernels]: an outer launch borrows its kernel
  DispatchEntry& e = *slot;
  e.num_inputs = num_inputs;
  for (int i = 0; i < num_inputs; ++i) {
    const TensorHandle& in = *inputs[i];
    e.inputs[i] = {in.dtype(), in.is_shape_value(), in.device(), in.shape()};
  }
  e.attrs = *call.attrs;
  e.scope = CurrentScopeDevice();
  e.num_devices = DeviceManager::Global().devices().size();
  e.kernel_generation = kernel_generation;
  e.bindings = call.bindings;
  e.device = call.device;
  e.num_outputs = static_cast<int>(call.output_shapes.size());
  for (int i = 0; i < e.num_outputs; ++i) {
    e.output_dtypes[i] = call.output_dtype(i);
    e.output_shapes[i] = call.output_shapes[i];
  }
  e.shape_value_outputs = shape_value_outputs;
  e.kernel = kernel;
  e.thread_hits = &ThisThread().hits;
}

uint64_t DispatchHits() {
  HitRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  uint64_t total = r.exited;
  for (const ThreadDispatchCache* t : r.threads) total += t->hits.load(std::memory_order_relaxed) - t->hits_at_reset;
  return total;
}

void ResetDispatchHits() {
  HitRegistry& r = Registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.exited = 0;
  for (ThreadDispatchCache* t : r.threads) t->hits_at_reset = t->hits.load(std::memory_order_relaxed);
}

}  // namespace ember
