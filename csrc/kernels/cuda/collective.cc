// This file defines the GPU kernels of the collective ops over NCCL and
// registers them (Note [Collectives on GPUs]).
#include <cstring>
#include <map>
#include <mutex>
#include <utility>

#include "collectives/collective_watch.h"
#include "collectives/communicator.h"
#include "core/allocator.h"
#include "kernels/cuda/cuda_kernels.h"
#include "ops/attrs/collective.gen.h"

#ifdef EMBER_HAVE_NCCL_HEADERS
#include "devices/cuda/nccl_api_table.h"
#endif

namespace ember::cuda {

// Note [Collectives on GPUs]
// On a GPU the collective ops call NCCL on the device's compute stream:
// the kernel only enqueues the collective, so it orders with the other
// kernels like any launch, and the host does not wait. The workers and
// their ranks are those of the op's MPI communicator (Note [Collective
// ops]). The first collective of a communicator on a device makes its NCCL
// communicator: worker 0's ncclUniqueId reaches every worker through that
// communicator's (checked, host-side) broadcast, then every worker calls
// ncclCommInitRank, which returns once all of them have. The NCCL
// communicator lives as long as the process, unless a lost worker aborts
// it (Note [Watching collectives on GPUs]: every enqueued collective is
// watched until it finishes). NCCL is loaded on first use (nccl_api.h).

#ifdef EMBER_HAVE_NCCL_HEADERS
namespace {

Status NcclStatus(const NcclApi& nccl, ncclResult_t result, const char* what) {
  if (result == ncclSuccess) return Status::OK();
  return Internal(std::string(what) + " failed: " + nccl.GetErrorString(result));
}

bool NcclType(DType dtype, ncclDataType_t* out) {
  switch (dtype) {
    case DType::kFloat32: *out = ncclFloat32; return true;
    case DType::kFloat64: *out = ncclFloat64; return true;
    case DType::kInt32: *out = ncclInt32; return true;
    case DType::kInt64: *out = ncclInt64; return true;
    case DType::kFloat16: *out = ncclFloat16; return true;
    case DType::kBFloat16: *out = ncclBfloat16; return true;
    default: return false;
  }
}

// The NCCL communicators, by (MPI communicator id, CUDA device).
class NcclComms {
 public:
  static NcclComms& Global() {
    static auto* comms = new NcclComms();  // lives as long as the process (see the Note)
    return *comms;
  }

  Status Get(const NcclApi& nccl, int64_t id, int device, ncclComm_t* out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto found = comms_.find({id, device});
    if (found != comms_.end()) {
      *out = found->second;
      return Status::OK();
    }
    std::shared_ptr<collectives::Communicator> mpi = collectives::FindCommunicator(id);
    if (mpi == nullptr) return NotFound("no communicator with id " + std::to_string(id));
    ncclUniqueId unique{};
    if (mpi->rank() == 0) EMBER_RETURN_IF_ERROR(NcclStatus(nccl, nccl.GetUniqueId(&unique), "ncclGetUniqueId"));
    Allocator* host = DeviceManager::Global().cpu()->allocator();
    RefPtr<Buffer> mine_bytes = Buffer::Allocate(host, sizeof(unique));
    RefPtr<Buffer> root_bytes = Buffer::Allocate(host, sizeof(unique));
    if (!mine_bytes || !root_bytes) return ResourceExhausted("out of host memory");
    Shape shape;
    shape.AddDim(static_cast<int64_t>(sizeof(unique)));
    Tensor mine(DType::kUInt8, shape, std::move(mine_bytes));
    Tensor root(DType::kUInt8, shape, std::move(root_bytes));
    std::memcpy(mine.raw_data(), &unique, sizeof(unique));
    EMBER_RETURN_IF_ERROR(mpi->Broadcast(mine, root, 0));
    std::memcpy(&unique, root.raw_data(), sizeof(unique));
    ncclComm_t comm = nullptr;
    EMBER_RETURN_IF_ERROR(
        NcclStatus(nccl, nccl.CommInitRank(&comm, mpi->size(), unique, mpi->rank()), "ncclCommInitRank"));
    comms_[{id, device}] = comm;
    *out = comm;
    return Status::OK();
  }

  // After an abort: the next collective on (id, device) fails at once (the
  // device has failed) instead of reaching the aborted communicator.
  void Forget(int64_t id, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    comms_.erase({id, device});
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int64_t, int>, ncclComm_t> comms_;
};

// What every GPU collective kernel starts with: NCCL, its communicator on
// this device, and the stream.
struct NcclCall {
  const NcclApi* nccl = nullptr;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  const CudaKernelEnv* env = nullptr;
  int64_t communicator = 0;
};

Status Prepare(const KernelContext& ctx, int64_t communicator, NcclCall* call) {
  std::string error;
  call->nccl = GetNccl(&error);
  if (call->nccl == nullptr) return FailedPrecondition("collectives on a GPU need NCCL: " + error);
  const CudaKernelEnv& env = EnvOf(ctx);
  call->stream = StreamOf(env);
  call->env = &env;
  call->communicator = communicator;
  return NcclComms::Global().Get(*call->nccl, communicator, env.device, &call->comm);
}

// The enqueue's result; once it succeeded, the collective is watched until
// it finishes (Note [Watching collectives on GPUs]).
Status Enqueued(const NcclCall& call, ncclResult_t result, const char* what) {
  EMBER_RETURN_IF_ERROR(NcclStatus(*call.nccl, result, what));
  std::shared_ptr<collectives::Communicator> mpi = collectives::FindCommunicator(call.communicator);
  if (mpi == nullptr) return NotFound("no communicator with id " + std::to_string(call.communicator));
  const CudaKernelEnv& env = *call.env;
  EventHandle event = nullptr;
  EMBER_RETURN_IF_ERROR(env.CheckLaunch(env.api->EventCreate(&event), "cudaEventCreate"));
  if (Status s = env.CheckLaunch(env.api->EventRecord(event, env.stream), "cudaEventRecord"); !s.ok()) {
    env.api->EventDestroy(event);
    return s;
  }
  CudaApi* api = env.api;
  DeviceHealth* health = env.health;
  const NcclApi* nccl = call.nccl;
  const ncclComm_t comm = call.comm;
  const int64_t id = call.communicator;
  const int device = env.device;
  collectives::CollectiveWatch::Ops ops;
  // Any answer but "not ready" ends the watch: an error here is the
  // stream's to report (Note [Sticky CUDA errors]).
  ops.finished = [api, event] { return api->EventQuery(event) != kErrorNotReady; };
  ops.async_error = [nccl, comm] {
    ncclResult_t state = ncclSuccess;
    if (nccl->CommGetAsyncError(comm, &state) != ncclSuccess) return Internal("ncclCommGetAsyncError failed");
    if (state == ncclSuccess || state == ncclInProgress) return Status::OK();
    return Internal(std::string("NCCL failed: ") + nccl->GetErrorString(state));
  };
  // The device fails first, so no new launch reaches the communicator
  // that the abort then frees; readers of this device get `error`.
  ops.abort = [nccl, comm, health, id, device](const Status& error) {
    health->Fail(error);
    NcclComms::Global().Forget(id, device);
    nccl->CommAbort(comm);
  };
  ops.release = [api, event] { api->EventDestroy(event); };
  const std::string label = std::string(what) + " on gpu:" + std::to_string(device) + " (worker " +
                            std::to_string(mpi->rank()) + " of " + std::to_string(mpi->size()) + ")";
  collectives::CollectiveWatch::Global().Add(label, std::move(mpi), std::move(ops));
  return Status::OK();
}

// The `reduction` attr as NCCL's operation, parsed once when the kernel
// is made.
struct NcclReduction {
  explicit NcclReduction(const std::string& name) {
    collectives::Reduction reduction = collectives::Reduction::kSum;
    status = collectives::ParseReduction(name, &reduction);
    op = reduction == collectives::Reduction::kMax ? ncclMax
         : reduction == collectives::Reduction::kMin ? ncclMin
                                                     : ncclSum;
  }
  ncclRedOp_t op = ncclSum;
  Status status;
};

// What a reducing kernel starts with: a valid reduction, an NCCL type for
// the input's dtype, and the NCCL call.
Status PrepareReduction(const KernelContext& ctx, int64_t communicator, const NcclReduction& reduction,
                        ncclDataType_t* type, NcclCall* call) {
  EMBER_RETURN_IF_ERROR(reduction.status);
  const DType dtype = ctx.input(0).dtype();
  if (!NcclType(dtype, type)) return TypeError(std::string("NCCL cannot reduce ") + DTypeName(dtype));
  return Prepare(ctx, communicator, call);
}

class AllReduceKernel final : public OpKernel {
 public:
  explicit AllReduceKernel(const KernelInit& init) : attrs_(init.attrs), reduction_(attrs_.reduction) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    ncclDataType_t type;
    NcclCall call;
    EMBER_RETURN_IF_ERROR(PrepareReduction(ctx, attrs_.communicator, reduction_, &type, &call));
    return Enqueued(call,
                    call.nccl->AllReduce(in.raw_data(), ctx.output(0).raw_data(),
                                         static_cast<size_t>(in.NumElements()), type, reduction_.op, call.comm,
                                         call.stream),
                    "ncclAllReduce");
  }

 private:
  CollectiveAllReduceAttrs attrs_;
  NcclReduction reduction_;
};

class AllGatherKernel final : public OpKernel {
 public:
  explicit AllGatherKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    NcclCall call;
    EMBER_RETURN_IF_ERROR(Prepare(ctx, attrs_.communicator, &call));
    return Enqueued(call,
                    call.nccl->AllGather(in.raw_data(), ctx.output(0).raw_data(), in.NumBytes(), ncclUint8,
                                         call.comm, call.stream),
                    "ncclAllGather");
  }

 private:
  CollectiveAllGatherAttrs attrs_;
};

class BroadcastKernel final : public OpKernel {
 public:
  explicit BroadcastKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    NcclCall call;
    EMBER_RETURN_IF_ERROR(Prepare(ctx, attrs_.communicator, &call));
    return Enqueued(call,
                    call.nccl->Broadcast(in.raw_data(), ctx.output(0).raw_data(), in.NumBytes(), ncclUint8,
                                         static_cast<int>(attrs_.root), call.comm, call.stream),
                    "ncclBroadcast");
  }

 private:
  CollectiveBroadcastAttrs attrs_;
};

// group_size must be the communicator's size, and dimension 0 split into
// that many blocks (the shape function checked the latter against the attr).
Status CheckBlocks(int64_t communicator, int64_t group_size, const Tensor& in) {
  std::shared_ptr<collectives::Communicator> mpi = collectives::FindCommunicator(communicator);
  if (mpi == nullptr) return NotFound("no communicator with id " + std::to_string(communicator));
  if (group_size != mpi->size()) {
    return InvalidArgument("group_size is " + std::to_string(group_size) + " but the communicator has " +
                           std::to_string(mpi->size()) + " workers");
  }
  if (in.rank() == 0 || in.dim(0) % group_size != 0) return InvalidArgument("dimension 0 does not split into blocks");
  return Status::OK();
}

class ReduceScatterKernel final : public OpKernel {
 public:
  explicit ReduceScatterKernel(const KernelInit& init) : attrs_(init.attrs), reduction_(attrs_.reduction) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    EMBER_RETURN_IF_ERROR(CheckBlocks(attrs_.communicator, attrs_.group_size, in));
    ncclDataType_t type;
    NcclCall call;
    EMBER_RETURN_IF_ERROR(PrepareReduction(ctx, attrs_.communicator, reduction_, &type, &call));
    const size_t block = static_cast<size_t>(in.NumElements() / attrs_.group_size);
    return Enqueued(call,
                    call.nccl->ReduceScatter(in.raw_data(), ctx.output(0).raw_data(), block, type, reduction_.op,
                                             call.comm, call.stream),
                    "ncclReduceScatter");
  }

 private:
  CollectiveReduceScatterAttrs attrs_;
  NcclReduction reduction_;
};

// NCCL's own ncclAlltoAll is new in 2.28; a group of sends and receives,
// one pair per worker, does the same on every NCCL since 2.7.
class AllToAllKernel final : public OpKernel {
 public:
  explicit AllToAllKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const Tensor& in = ctx.input(0);
    EMBER_RETURN_IF_ERROR(CheckBlocks(attrs_.communicator, attrs_.group_size, in));
    NcclCall call;
    EMBER_RETURN_IF_ERROR(Prepare(ctx, attrs_.communicator, &call));
    const size_t block = in.NumBytes() / static_cast<size_t>(attrs_.group_size);
    const char* send = static_cast<const char*>(in.raw_data());
    char* receive = static_cast<char*>(ctx.output(0).raw_data());
    const NcclApi& nccl = *call.nccl;
    EMBER_RETURN_IF_ERROR(NcclStatus(nccl, nccl.GroupStart(), "ncclGroupStart"));
    Status status;
    for (int peer = 0; peer < attrs_.group_size && status.ok(); ++peer) {
      const size_t offset = static_cast<size_t>(peer) * block;
      status = NcclStatus(nccl, nccl.Send(send + offset, block, ncclUint8, peer, call.comm, call.stream), "ncclSend");
      if (status.ok()) {
        status = NcclStatus(nccl, nccl.Recv(receive + offset, block, ncclUint8, peer, call.comm, call.stream),
                            "ncclRecv");
      }
    }
    const ncclResult_t ended = nccl.GroupEnd();  // always closes the group
    return status.ok() ? Enqueued(call, ended, "ncclGroupEnd (all_to_all)") : status;
  }

 private:
  CollectiveAllToAllAttrs attrs_;
};

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaCollectiveKernels(KernelRegistry& r, DeviceTypeId gpu) {
  for (DType t : {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64}) {
    r.Register("collective_all_reduce", gpu, {t}, &MakeKernel<AllReduceKernel>);
    r.Register("collective_reduce_scatter", gpu, {t}, &MakeKernel<ReduceScatterKernel>);
  }
  // Gathers and broadcasts move bytes: op_defs' `every` set.
  for (DType t : {DType::kBool, DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64, DType::kFloat16,
                  DType::kBFloat16, DType::kInt8, DType::kInt16, DType::kUInt8, DType::kComplex64}) {
    r.Register("collective_all_gather", gpu, {t}, &MakeKernel<AllGatherKernel>);
    r.Register("collective_broadcast", gpu, {t}, &MakeKernel<BroadcastKernel>);
    r.Register("collective_all_to_all", gpu, {t}, &MakeKernel<AllToAllKernel>);
  }
}
#else
EMBER_STARTUP_CODE void RegisterCudaCollectiveKernels(KernelRegistry&, DeviceTypeId) {}  // no NCCL header: the CPU's kernels run
#endif

}  // namespace ember::cuda
