// This file implements CudaDevice (Note [CUDA device]).
#include "devices/cuda/cuda_device.h"

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>

#include "core/caching_allocator.h"
#include "core/pinned_staging.h"
#include "devices/cuda/cublaslt_matmul.h"
#include "devices/cuda/cudnn_conv.h"
#include "devices/cuda/cuda_error_words.h"
#include "devices/cuda/cuda_memory.h"
#include "runtime/thread_executor.h"

namespace ember::cuda {
namespace {

// Blocks a grid-stride kernel needs to fill the GPU (Note [Grid-stride
// launches]): a few per multiprocessor.
constexpr int64_t kBlocksPerMultiprocessor = 4;

}  // namespace

Status CudaKernelEnv::CheckLaunch(ApiResult result, const char* what) const {
  if (result == kSuccess) return Status::OK();
  Status s = api->ToStatus(result, what);
  if (IsStickyError(result)) health->Fail(s);
  return s;
}

Status CudaKernelEnv::CublasLtHandle(void** handle) const {
  std::lock_guard<std::mutex> lock(blas_mu_);
  if (cublaslt_ == nullptr) EMBER_RETURN_IF_ERROR(CreateCublasLtHandle(&cublaslt_));
  *handle = cublaslt_;
  return Status::OK();
}

Status CudaKernelEnv::CudnnHandle(void** handle) const {
  std::lock_guard<std::mutex> lock(blas_mu_);
  if (cudnn_ == nullptr) EMBER_RETURN_IF_ERROR(CreateCudnnHandle(stream, &cudnn_));
  *handle = cudnn_;
  return Status::OK();
}

// One pool per CudaApi: the process has one, tests make several. Leaked:
// host tensors made by copies live in them and may outlive static
// destruction.
Allocator* PinnedPool(CudaApi* api) {
  static std::mutex mu;
  static auto* pools = new std::map<CudaApi*, Allocator*>();
  std::lock_guard<std::mutex> lock(mu);
  Allocator*& pool = (*pools)[api];
  if (pool == nullptr) pool = new CachingAllocator("cuda pinned", std::make_unique<CudaPinnedMemory>(api));
  return pool;
}

CudaDevice::CudaDevice(DeviceTypeId type, int index, CudaApi* api)
    : Device(type, index, /*placement_priority=*/100), api_(api) {
  const std::string& name = this->name();
  if (api_->GetDeviceName(index, &description_) != kSuccess) description_ = "unknown GPU";
  int multiprocessors = 0;
  if (api_->GetMultiprocessorCount(index, &multiprocessors) != kSuccess || multiprocessors <= 0) multiprocessors = 1;
  allocator_ = std::make_unique<CachingAllocator>(name, std::make_unique<CudaDeviceMemory>(api_, index, &health_));
  compute_ = std::make_unique<CudaStream>(name + " compute", api_, index, CudaAccessDomain(), &health_);
  host_to_device_ = std::make_unique<CudaStream>(name + " host-to-device", api_, index, CudaAccessDomain(), &health_);
  device_to_host_ = std::make_unique<CudaStream>(name + " device-to-host", api_, index, CudaAccessDomain(), &health_);
  executor_ = std::make_unique<ThreadExecutor>(name);
  env_.api = api_;
  env_.stream = compute_->handle();
  env_.device = index;
  env_.max_blocks = kBlocksPerMultiprocessor * multiprocessors;
  env_.health = &health_;
  DeviceContext context;
  context.stream = compute_.get();
  context.scratch = allocator_.get();
  context.library_handles = &env_;
  set_context(context);
}

CudaDevice::~CudaDevice() {
  executor_.reset();  // its launches post to the streams
  for (Stream* stream : streams()) stream->Drain();
}

Allocator* CudaDevice::pinned_allocator() { return PinnedPool(api_); }

DeviceErrorWords* CudaDevice::error_words() { return ErrorWordPool(api_); }

// The copy waits on the device for `after`, then is enqueued in `stream`'s
// order. The posted work holds both tensors until the copy finished (Note
// [CUDA streams and tickets]); it runs at the post, so its result is known
// here.
Status CudaDevice::PostCopy(CudaStream* stream, const Tensor& src, Tensor dst, const Event& after, Event* done,
                            WorkKind kind) {
  if (src.NumBytes() != dst.NumBytes()) return Internal("copy between tensors of different sizes");
  if (health_.failed()) return health_.status();
  stream->Wait(after);
  ApiResult result = kSuccess;
  CudaApi* api = api_;
  const uint64_t ticket = stream->Post(
      [src, dst, api, handle = stream->handle(), &result] {
        if (src.NumBytes() > 0) result = api->MemcpyAsync(dst.raw_data(), src.raw_data(), src.NumBytes(), handle);
      },
      kind);
  *done = Event{stream, ticket};
  if (result == kSuccess) return Status::OK();
  Status s = api_->ToStatus(result, "cudaMemcpyAsync").WithPrefix(stream->name() + ": ");
  if (IsStickyError(result)) health_.Fail(s);
  return s;
}

// Note [Pinned staging] (core/device.h), through StageForUpload.
Status CudaDevice::CopyFromHost(const Tensor& src, Tensor dst, const Event& after, Event* done) {
  bool staged = false;
  const Tensor from = StageForUpload(this, src, after, &staged);
  return PostCopy(host_to_device_.get(), from, std::move(dst), staged ? Event{} : after, done,
                  staged ? WorkKind::kStagedCopy : WorkKind::kCopy);
}

Status CudaDevice::CopyToHost(const Tensor& src, Tensor dst, const Event& after, Event* done) {
  return PostCopy(device_to_host_.get(), src, std::move(dst), after, done);
}

// Between GPUs the source's copy stream copies peer to peer (the driver
// stages through the host where the GPUs cannot reach each other);
// anything else goes through host memory.
Status CudaDevice::CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done) {
  if (dst_device->type() == type()) return PostCopy(device_to_host_.get(), src, std::move(dst), after, done);
  return Device::CopyToDevice(src, dst_device, std::move(dst), after, done);
}

namespace {

// A recording and what its buffers' lifetime needs: the sink's blocks
// (workspaces freed during the capture) go back to the cache only after
// the graph, which a replay's post keeps until the replay ran.
class CudaDeviceGraph final : public DeviceGraph {
 public:
  explicit CudaDeviceGraph(CachingAllocator* allocator) : sink(allocator) {}
  ~CudaDeviceGraph() override { graph.reset(); }  // the graph first, then the sink's blocks
  CaptureSink sink;
  std::shared_ptr<CudaGraph> graph;
};

}  // namespace

bool CudaDevice::CanCaptureGraphs() const { return GraphReplayEnabled() && !health_.failed(); }

Status CudaDevice::CaptureGraph(const std::function<Status()>& issue, std::shared_ptr<DeviceGraph>* graph) {
  auto* caching = dynamic_cast<CachingAllocator*>(allocator_.get());
  if (caching == nullptr) return Unimplemented(name() + ": graph capture needs the caching allocator");
  auto recording = std::make_shared<CudaDeviceGraph>(caching);
  {
    CaptureSinkScope scope(&recording->sink);
    EMBER_RETURN_IF_ERROR(compute_->Capture(issue, &recording->graph));
  }
  *graph = std::move(recording);
  return Status::OK();
}

Status CudaDevice::ReplayGraph(const std::shared_ptr<DeviceGraph>& graph, const std::vector<GraphCopy>& copies_in,
                               const std::vector<GraphCopy>& copies_out, std::vector<Tensor> keep, Event* done) {
  auto recording = std::dynamic_pointer_cast<CudaDeviceGraph>(graph);
  if (recording == nullptr || recording->graph == nullptr) return InvalidArgument(name() + ": not a graph of a GPU");
  CudaApi* api = api_;
  const StreamHandle stream = compute_->handle();
  auto failed = std::make_shared<ApiResult>(kSuccess);
  auto copy_all = [api, stream, failed](const std::vector<GraphCopy>& copies) {
    for (const GraphCopy& c : copies) {
      const ApiResult r = api->MemcpyAsync(c.dst, c.src, c.bytes, stream);
      if (r != kSuccess && *failed == kSuccess) *failed = r;
    }
  };
  uint64_t ticket = 0;
  // The post keeps `recording` (its graph and sink) and `keep` until the
  // replay ran (Note [CUDA streams and tickets]).
  EMBER_RETURN_IF_ERROR(compute_->PostGraph(
      recording->graph, [copy_all, copies_in, recording, keep = std::move(keep)] { copy_all(copies_in); },
      [copy_all, copies_out] { copy_all(copies_out); }, &ticket));
  if (*failed != kSuccess) return api_->ToStatus(*failed, "copying a graph replay's arguments or results");
  *done = Event{compute_.get(), ticket};
  return Status::OK();
}

}  // namespace ember::cuda
