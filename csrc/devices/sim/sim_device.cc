// This file implements SimDevice and its start-up.
#include "devices/sim/sim_device.h"

#include <cstdlib>
#include <cstring>

#include "core/caching_allocator.h"
#include "core/pinned_staging.h"
#include "ops/op_ids.gen.h"
#include "ops/op_kernel.h"
#include "runtime/thread_executor.h"

namespace ember {

const void* SimAccessDomain() {
  static const char domain = 0;
  return &domain;
}

namespace {

// Host pages standing in for a simulated device's memory (kDevice, reached
// only through its own copies and kernels, Note [Strict device memory]:
// one access domain for every simulated device, so a peer copy's stream may
// touch both ends) or for pinned host memory (kPinnedHost, which the host
// reads and writes and the copy engines take without staging, Note
// [Pinned staging]).
class SimPages final : public SubAllocator {
 public:
  SimPages(MemoryKind kind, const char* name, const void* access_domain)
      : kind_(kind), name_(name), access_domain_(access_domain) {}
  void* Alloc(size_t bytes) override { return std::aligned_alloc(kHostAlignment, RoundUp(bytes)); }
  void Free(void* ptr, size_t) override { std::free(ptr); }
  MemoryKind kind() const override { return kind_; }
  const char* Name() const override { return name_; }
  const void* access_domain() const override { return access_domain_; }

 private:
  static size_t RoundUp(size_t bytes) {
    return bytes == 0 ? kHostAlignment : (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment;
  }

  MemoryKind kind_;
  const char* name_;
  const void* access_domain_;
};

int64_t EnvInt(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? 0 : std::atoll(value);
}

}  // namespace

// One pool for every simulated device, as pinned memory is the process's
// (cudaHostAlloc'd memory serves every GPU). Leaked: host tensors made by
// copies live in it and may outlive static destruction.
Allocator* SimDevice::pinned_allocator() {
  static Allocator* pinned =
      new CachingAllocator("sim pinned", std::make_unique<SimPages>(MemoryKind::kPinnedHost, "sim pinned", nullptr));
  return pinned;
}

SimDevice::SimDevice(DeviceTypeId type, int index, const DeviceContext& cpu, int64_t latency_us, int64_t launch_us)
    : Device(type, index, /*placement_priority=*/50) {
  const std::string name = "sim:" + std::to_string(index);
  allocator_ =
      std::make_unique<CachingAllocator>(name, std::make_unique<SimPages>(MemoryKind::kDevice, "sim", SimAccessDomain()));
  compute_ = std::make_unique<SimStream>(name + " compute", latency_us, launch_us, SimAccessDomain());
  host_to_device_ = std::make_unique<SimStream>(name + " host-to-device", latency_us, launch_us, SimAccessDomain());
  device_to_host_ = std::make_unique<SimStream>(name + " device-to-host", latency_us, launch_us, SimAccessDomain());
  executor_ = std::make_unique<ThreadExecutor>(name);
  DeviceContext context;
  context.stream = compute_.get();
  context.cpu_pool = cpu.cpu_pool;
  context.scratch = allocator_.get();
  set_context(context);
}

SimDevice::~SimDevice() {
  executor_.reset();  // its launches post to the streams
  for (Stream* stream : streams()) stream->Drain();
}

// The copy waits on the device for `after`, then runs in `stream`'s order.
Status SimDevice::PostCopy(SimStream* stream, const Tensor& src, Tensor dst, const Event& after, Event* done,
                           WorkKind kind) {
  if (src.NumBytes() != dst.NumBytes()) return Internal("copy between tensors of different sizes");
  stream->Wait(after);
  const uint64_t ticket = stream->Post(
      [src, dst] {
        if (src.NumBytes() > 0) std::memcpy(dst.raw_data(), src.raw_data(), src.NumBytes());
      },
      kind);
  *done = Event{stream, ticket};
  return Status::OK();
}

// Note [Pinned staging]: a pageable source whose data is there goes through
// a pinned copy made here (StageForUpload); the staging buffer returns to
// the pool once the posted transfer has run and let go of it.
Status SimDevice::CopyFromHost(const Tensor& src, Tensor dst, const Event& after, Event* done) {
  bool staged = false;
  const Tensor from = StageForUpload(this, src, after, &staged);
  return PostCopy(host_to_device_.get(), from, std::move(dst), staged ? Event{} : after, done,
                  staged ? WorkKind::kStagedCopy : WorkKind::kCopy);
}

Status SimDevice::CopyToHost(const Tensor& src, Tensor dst, const Event& after, Event* done) {
  return PostCopy(device_to_host_.get(), src, std::move(dst), after, done);
}

// Between simulated devices the source's copy stream copies directly (a
// peer copy); anything else stages through host memory.
Status SimDevice::CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done) {
  if (dst_device->type() == type()) return PostCopy(device_to_host_.get(), src, std::move(dst), after, done);
  return Device::CopyToDevice(src, dst_device, std::move(dst), after, done);
}

namespace {

class SimDeviceGraph final : public DeviceGraph {
 public:
  std::shared_ptr<SimStream::Recording> work = std::make_shared<SimStream::Recording>();
};

void CopyAll(const std::vector<GraphCopy>& copies) {
  for (const GraphCopy& c : copies) std::memcpy(c.dst, c.src, c.bytes);
}

}  // namespace

Status SimDevice::CaptureGraph(const std::function<Status()>& issue, std::shared_ptr<DeviceGraph>* graph) {
  auto recording = std::make_shared<SimDeviceGraph>();
  EMBER_RETURN_IF_ERROR(compute_->Capture(issue, recording->work.get()));
  *graph = std::move(recording);
  return Status::OK();
}

// One post on the compute stream: the copies in, the recording, the
// copies out; it holds `keep` (the call's arguments and results) until
// it ran.
Status SimDevice::ReplayGraph(const std::shared_ptr<DeviceGraph>& graph, const std::vector<GraphCopy>& copies_in,
                              const std::vector<GraphCopy>& copies_out, std::vector<Tensor> keep, Event* done) {
  auto recording = std::dynamic_pointer_cast<SimDeviceGraph>(graph);
  if (recording == nullptr) return InvalidArgument(name() + ": not a graph of a simulated device");
  const uint64_t ticket =
      compute_->PostReplay(recording->work, [copies_in, keep = std::move(keep)] { CopyAll(copies_in); },
                           [copies_out] { CopyAll(copies_out); });
  *done = Event{compute_.get(), ticket};
  return Status::OK();
}

void InitSimulatedDevices() {
  static bool done = [] {
    const int64_t count = EnvInt("EMBER_SIMULATED_DEVICES");
    if (count <= 0) return true;
    const int64_t latency_us = EnvInt("EMBER_SIMULATED_LATENCY_US");
    const int64_t launch_us = EnvInt("EMBER_SIMULATED_LAUNCH_US");
    const DeviceTypeId type = RegisterDeviceType("sim");
    const DeviceContext& cpu = DeviceManager::Global().cpu()->context();
    for (int64_t i = 0; i < count && i < 64; ++i) {
      DeviceManager::Global().Add(std::make_unique<SimDevice>(type, static_cast<int>(i), cpu, latency_us, launch_us));
    }
    KernelRegistry& registry = KernelRegistry::Global();
    // transfer's kernel is a view: Execute's copy stage (eager) or the
    // graph executor (in functions) has already moved the value.
    registry.CopyKernels(kCpuDeviceType, type, {});
    return true;
  }();
  (void)done;
}

}  // namespace ember
