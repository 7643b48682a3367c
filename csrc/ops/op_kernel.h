// This file declares OpKernel, KernelContext and KernelRegistry: how a
// device's kernels are written and found.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/attr_value.h"
#include "core/device.h"
#include "core/startup_code.h"
#include "core/tensor.h"
#include "ops/kernel_plan.h"
#include "ops/op_def.h"

namespace ember {

// What a kernel sees when it runs: ready inputs and outputs that the runtime
// already allocated from the shape function's result. A kernel only fills
// outputs. Element-wise kernels must tolerate an output that shares its
// buffer with an input (see OpDef::reusable_input).
class KernelContext {
 public:
  KernelContext(const OpDef& op, Device* device, const AttrList& attrs,
                std::vector<Tensor>* inputs, std::vector<Tensor>* outputs,
                const int* arg_starts = nullptr, const KernelPlan* plan = nullptr)
      : op_(op), device_(device), context_(device != nullptr ? &device->context() : &kNoDeviceContext),
        attrs_(attrs), inputs_(inputs), outputs_(outputs), arg_starts_(arg_starts), plan_(plan) {}

  const OpDef& op() const { return op_; }
  // For messages; what a kernel uses of its device is device_context().
  Device* device() const { return device_; }
  // Kernels run without a device (unit tests) get an empty one: no pool.
  const DeviceContext& device_context() const { return *context_; }
  const AttrList& attrs() const { return attrs_; }
  int num_inputs() const { return static_cast<int>(inputs_->size()); }
  const Tensor& input(int i) const { return (*inputs_)[i]; }
  // Flat range of input argument `arg` (Note [List arguments] in op_def.h).
  int arg_start(int arg) const { return arg_starts_ ? arg_starts_[arg] : arg; }
  int arg_size(int arg) const { return arg_starts_ ? arg_starts_[arg + 1] - arg_starts_[arg] : 1; }
  int num_outputs() const { return static_cast<int>(outputs_->size()); }
  Tensor& output(int i) { return (*outputs_)[i]; }
  // For ops whose output is a view of an input (reshape, identity): replace
  // the preallocated output. The dtype and shape must stay the same.
  void set_output(int i, Tensor t) { (*outputs_)[i] = std::move(t); }
  // Note [Kernel plans]: what the shape function worked out for this call,
  // if it is a P; null otherwise (the kernel then works it out itself).
  template <typename P>
  const P* plan() const {
    return plan_ != nullptr ? plan_->Get<P>() : nullptr;
  }

  // Note [Device error words] (core/device_error.h): a zeroed word for a
  // kernel to report bad data it finds while it runs on the device, and
  // `describe` to word the error once the host reads it. Null if the
  // device has none or this run cannot carry one (the kernel then fails
  // the launch). Each call takes another word.
  DeviceErrorWord* NewErrorWord(DescribeDeviceError describe);
  // Where NewErrorWord leaves the verdict over the words it handed out;
  // set by whoever runs the kernel (KernelRun).
  void set_deferred_error_sink(RefPtr<DeferredError>* sink) { deferred_sink_ = sink; }

 private:
  static inline const DeviceContext kNoDeviceContext{};

  const OpDef& op_;
  Device* device_;
  const DeviceContext* context_;
  const AttrList& attrs_;
  std::vector<Tensor>* inputs_;
  std::vector<Tensor>* outputs_;
  const int* arg_starts_;
  const KernelPlan* plan_;
  RefPtr<DeferredError>* deferred_sink_ = nullptr;
};

// A kernel instance is built once per kernel-cache key (op, device, dtypes,
// attrs) and then shared by every call and thread: Compute must be const
// and thread-safe.
class OpKernel {
 public:
  virtual ~OpKernel() = default;
  virtual Status Compute(KernelContext& ctx) const = 0;
  // Note [Bounded graphs]: for kernels that run graphs (call_function,
  // cond, while_loop), the work one run may do, in elements its nodes
  // produce, or -1 when that has no bound known before it runs (a loop,
  // shapes known only at run time).
  virtual int64_t BoundedGraphWork() const { return -1; }
};

// What a kernel factory may look at: everything in the kernel-cache key.
struct KernelInit {
  const OpDef& op;
  Device* device;
  const AttrList& attrs;
  const DType* type_bindings;  // one per OpDef::type_vars
};

using KernelFactory = std::unique_ptr<OpKernel> (*)(const KernelInit& init);

// Packs the dtypes bound to an op's type variables (at most 8) into a key.
uint64_t PackTypeKey(const DType* type_bindings, int count);

// (op, device type, bound dtypes) -> factory. Filled at start-up by the
// explicit Register*Kernels functions of each device; read-only afterwards.
class KernelRegistry {
 public:
  static KernelRegistry& Global();
  // Room for every CPU and GPU kernel: growing by rehash and doubling left
  // the outgrown tables behind as holes in the heap.
  KernelRegistry() {
    factories_.reserve(4096);
    order_.reserve(4096);
  }

  // `dtypes` lists the dtype bound to each of the op's type variables, in
  // declaration order (empty for ops without type variables).
  void Register(OpId op, DeviceTypeId device, std::vector<DType> dtypes, KernelFactory factory);
  // The same by op name, resolved once at start-up; an unknown name is
  // recorded and reported by CheckRegistrations (a typo fails the import).
  void Register(const char* op_name, DeviceTypeId device, std::vector<DType> dtypes,
                KernelFactory factory);
  // The forms that kernel registration calls with a braced list of dtypes:
  // one out-of-line place builds the vector (Note [Startup code]).
  void Register(OpId op, DeviceTypeId device, std::initializer_list<DType> dtypes, KernelFactory factory);
  void Register(const char* op_name, DeviceTypeId device, std::initializer_list<DType> dtypes,
                KernelFactory factory);
  Status CheckRegistrations() const;
  KernelFactory Find(OpId op, DeviceTypeId device, uint64_t type_key) const;
  bool HasAnyKernel(OpId op, DeviceTypeId device) const;

  struct Entry {
    OpId op;
    DeviceTypeId device;
    std::vector<DType> dtypes;
  };
  std::vector<Entry> List() const;

  // Registers every kernel of device type `from` for `to` as well, except
  // those of `except`: how a device whose kernels are the CPU's (the
  // simulated accelerator) gets them.
  void CopyKernels(DeviceTypeId from, DeviceTypeId to, const std::vector<OpId>& except);


 private:
  struct Key {
    OpId op;
    DeviceTypeId device;
    uint64_t type_key;
    bool operator==(const Key& o) const {
      return op == o.op && device == o.device && type_key == o.type_key;
    }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return (static_cast<size_t>(k.op) * 1000003u) ^ (static_cast<size_t>(k.device) << 48) ^ k.type_key;
    }
  };
  std::unordered_map<Key, KernelFactory, KeyHash> factories_;
  // Registration order, for List(). Keys, not Entries: an Entry's dtype
  // vector is a heap block of its own, and 2,800 of them (with the vector's
  // growth) held 0.2 MiB of every process; List() unpacks the type key.
  std::vector<Key> order_;
  std::vector<std::string> unknown_ops_;
  std::unordered_map<uint64_t, uint32_t> host_inputs_;  // (op << 16 | device) -> mask
};

// Convenience for the common case: a kernel class constructible from
// KernelInit, registered for one dtype binding.
template <typename K>
std::unique_ptr<OpKernel> MakeKernel(const KernelInit& init) {
  return std::make_unique<K>(init);
}

}  // namespace ember
