// This file implements the CPU kernels of the collective ops
// (op_defs/collective.yaml, Note [Collective ops]).
#include "collectives/communicator.h"
#include "devices/cpu/cpu_device.h"
#include "kernels/cpu/registration.h"
#include "ops/attrs/collective.gen.h"
#include "ops/op_kernel.h"

namespace ember {
namespace {

Status FindCommunicatorOrFail(int64_t id, std::shared_ptr<collectives::Communicator>* out) {
  *out = collectives::FindCommunicator(id);
  if (*out == nullptr) {
    return NotFound("no communicator with id " + std::to_string(id) +
                    " (ember.distribute.MpiCollectives registers one; was it closed?)");
  }
  return Status::OK();
}

// The group_size attr names the communicator's size (the shape function
// used it to size the output).
Status CheckGroupSize(int64_t group_size, const collectives::Communicator& communicator) {
  if (group_size != communicator.size()) {
    return InvalidArgument("group_size is " + std::to_string(group_size) + " but the communicator has " +
                           std::to_string(communicator.size()) + " workers");
  }
  return Status::OK();
}

// Finds the op's communicator, checks the op's group_size against it
// (kNoGroupSize: the op has none), and runs `call` on it.
constexpr int64_t kNoGroupSize = -1;

template <typename Call>
Status OnCommunicator(int64_t id, int64_t group_size, Call&& call) {
  std::shared_ptr<collectives::Communicator> communicator;
  EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(id, &communicator));
  if (group_size != kNoGroupSize) EMBER_RETURN_IF_ERROR(CheckGroupSize(group_size, *communicator));
  return call(*communicator);
}

// The `reduction` attr, parsed once when the kernel is made.
struct ParsedReduction {
  explicit ParsedReduction(const std::string& name) { status = collectives::ParseReduction(name, &reduction); }
  collectives::Reduction reduction = collectives::Reduction::kSum;
  Status status;
};

class AllReduceKernel final : public OpKernel {
 public:
  explicit AllReduceKernel(const KernelInit& init) : attrs_(init.attrs), reduction_(attrs_.reduction) {}

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(reduction_.status);
    return OnCommunicator(attrs_.communicator, kNoGroupSize, [&](collectives::Communicator& c) {
      return c.AllReduce(ctx.input(0), ctx.output(0), reduction_.reduction);
    });
  }

 private:
  CollectiveAllReduceAttrs attrs_;
  ParsedReduction reduction_;
};

class AllGatherKernel final : public OpKernel {
 public:
  explicit AllGatherKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    return OnCommunicator(attrs_.communicator, attrs_.group_size,
                          [&](collectives::Communicator& c) { return c.AllGather(ctx.input(0), ctx.output(0)); });
  }

 private:
  CollectiveAllGatherAttrs attrs_;
};

class BroadcastKernel final : public OpKernel {
 public:
  explicit BroadcastKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    return OnCommunicator(attrs_.communicator, kNoGroupSize, [&](collectives::Communicator& c) {
      if (attrs_.root < 0 || attrs_.root >= c.size()) {
        return InvalidArgument("root " + std::to_string(attrs_.root) + " is not a worker of " +
                               std::to_string(c.size()));
      }
      return c.Broadcast(ctx.input(0), ctx.output(0), static_cast<int>(attrs_.root));
    });
  }

 private:
  CollectiveBroadcastAttrs attrs_;
};

class ReduceScatterKernel final : public OpKernel {
 public:
  explicit ReduceScatterKernel(const KernelInit& init) : attrs_(init.attrs), reduction_(attrs_.reduction) {}

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(reduction_.status);
    return OnCommunicator(attrs_.communicator, attrs_.group_size, [&](collectives::Communicator& c) {
      return c.ReduceScatter(ctx.input(0), ctx.output(0), reduction_.reduction);
    });
  }

 private:
  CollectiveReduceScatterAttrs attrs_;
  ParsedReduction reduction_;
};

class AllToAllKernel final : public OpKernel {
 public:
  explicit AllToAllKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    return OnCommunicator(attrs_.communicator, attrs_.group_size,
                          [&](collectives::Communicator& c) { return c.AllToAll(ctx.input(0), ctx.output(0)); });
  }

 private:
  CollectiveAllToAllAttrs attrs_;
};

// One kernel class for every dtype: the communicator picks the MPI
// datatype, or moves bytes.
template <typename... Ts>
EMBER_STARTUP_TEMPLATE void RegisterEach(KernelRegistry& registry, const char* op, KernelFactory factory, type_sets::TypeList<Ts...>) {
  (registry.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value}, factory), ...);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCpuCollectiveKernels(KernelRegistry& registry) {
  RegisterEach(registry, "collective_all_reduce", &MakeKernel<AllReduceKernel>, type_sets::Numeric{});
  RegisterEach(registry, "collective_all_gather", &MakeKernel<AllGatherKernel>, type_sets::Every{});
  RegisterEach(registry, "collective_broadcast", &MakeKernel<BroadcastKernel>, type_sets::Every{});
  RegisterEach(registry, "collective_reduce_scatter", &MakeKernel<ReduceScatterKernel>, type_sets::Numeric{});
  RegisterEach(registry, "collective_all_to_all", &MakeKernel<AllToAllKernel>, type_sets::Every{});
}

}  // namespace ember
