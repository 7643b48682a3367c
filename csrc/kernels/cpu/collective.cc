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

class AllReduceKernel final : public OpKernel {
 public:
  explicit AllReduceKernel(const KernelInit& init) : attrs_(init.attrs) {
    status_ = collectives::ParseReduction(attrs_.reduction, &reduction_);
  }

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(status_);
    std::shared_ptr<collectives::Communicator> communicator;
    EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(attrs_.communicator, &communicator));
    return communicator->AllReduce(ctx.input(0), ctx.output(0), reduction_);
  }

 private:
  CollectiveAllReduceAttrs attrs_;
  collectives::Reduction reduction_ = collectives::Reduction::kSum;
  Status status_;
};

class AllGatherKernel final : public OpKernel {
 public:
  explicit AllGatherKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    std::shared_ptr<collectives::Communicator> communicator;
    EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(attrs_.communicator, &communicator));
    EMBER_RETURN_IF_ERROR(CheckGroupSize(attrs_.group_size, *communicator));
    return communicator->AllGather(ctx.input(0), ctx.output(0));
  }

 private:
  CollectiveAllGatherAttrs attrs_;
};

class BroadcastKernel final : public OpKernel {
 public:
  explicit BroadcastKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    std::shared_ptr<collectives::Communicator> communicator;
    EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(attrs_.communicator, &communicator));
    if (attrs_.root < 0 || attrs_.root >= communicator->size()) {
      return InvalidArgument("root " + std::to_string(attrs_.root) + " is not a worker of " +
                             std::to_string(communicator->size()));
    }
    return communicator->Broadcast(ctx.input(0), ctx.output(0), static_cast<int>(attrs_.root));
  }

 private:
  CollectiveBroadcastAttrs attrs_;
};

class ReduceScatterKernel final : public OpKernel {
 public:
  explicit ReduceScatterKernel(const KernelInit& init) : attrs_(init.attrs) {
    status_ = collectives::ParseReduction(attrs_.reduction, &reduction_);
  }

  Status Compute(KernelContext& ctx) const override {
    EMBER_RETURN_IF_ERROR(status_);
    std::shared_ptr<collectives::Communicator> communicator;
    EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(attrs_.communicator, &communicator));
    EMBER_RETURN_IF_ERROR(CheckGroupSize(attrs_.group_size, *communicator));
    return communicator->ReduceScatter(ctx.input(0), ctx.output(0), reduction_);
  }

 private:
  CollectiveReduceScatterAttrs attrs_;
  collectives::Reduction reduction_ = collectives::Reduction::kSum;
  Status status_;
};

class AllToAllKernel final : public OpKernel {
 public:
  explicit AllToAllKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    std::shared_ptr<collectives::Communicator> communicator;
    EMBER_RETURN_IF_ERROR(FindCommunicatorOrFail(attrs_.communicator, &communicator));
    EMBER_RETURN_IF_ERROR(CheckGroupSize(attrs_.group_size, *communicator));
    return communicator->AllToAll(ctx.input(0), ctx.output(0));
  }

 private:
  CollectiveAllToAllAttrs attrs_;
};

// One kernel class for every dtype: the communicator picks the MPI
// datatype, or moves bytes.
template <typename... Ts>
void RegisterEach(KernelRegistry& registry, const char* op, KernelFactory factory, type_sets::TypeList<Ts...>) {
  (registry.Register(op, kCpuDeviceType, {DTypeOf<Ts>::value}, factory), ...);
}

}  // namespace

void RegisterCpuCollectiveKernels(KernelRegistry& registry) {
  RegisterEach(registry, "collective_all_reduce", &MakeKernel<AllReduceKernel>, type_sets::Numeric{});
  RegisterEach(registry, "collective_all_gather", &MakeKernel<AllGatherKernel>, type_sets::Every{});
  RegisterEach(registry, "collective_broadcast", &MakeKernel<BroadcastKernel>, type_sets::Every{});
  RegisterEach(registry, "collective_reduce_scatter", &MakeKernel<ReduceScatterKernel>, type_sets::Numeric{});
  RegisterEach(registry, "collective_all_to_all", &MakeKernel<AllToAllKernel>, type_sets::Every{});
}

}  // namespace ember
