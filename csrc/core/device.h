// This file declares Device, Executor and DeviceManager: the interface a
// device runtime (CPU, CUDA, ...) implements to plug into Ember.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/allocator.h"
#include "core/device_error.h"
#include "core/status.h"
#include "core/stream.h"
#include "core/tensor.h"

namespace ember {

class Device;
class IntraOpPool;

// A unit of work for an executor. The executor owns it once enqueued.
class Task {
 public:
  virtual ~Task() = default;
  virtual void Run() = 0;
  // Note [Event-driven waits]: false if Run may start now. Otherwise the
  // task waits for an event (a value another device produces): it arranges
  // for `wake` to be called once that event happened and returns true, and
  // the executor parks its queue, without blocking on the value, until
  // `wake` is called and asks again.
  virtual bool WaitBeforeRun(const std::function<void()>& wake) {
    (void)wake;
    return false;
  }
  // Who asks whether a task may run on its thread rather than the
  // executor's: a thread waiting for a value (Note [Readers run queued
  // work]), or the thread issuing the task (Note [Running at issue]).
  enum class InlineRunner { kReader, kIssuer };
  // True if the task is short and bounded enough for `runner` to run it:
  // that thread then cannot notice a KeyboardInterrupt until it returns. A
  // cheap task has no event to wait for (WaitBeforeRun returns false).
  virtual bool CheapToRunInline(InlineRunner runner) const {
    (void)runner;
    return false;
  }
};

// Runs tasks in FIFO order, asynchronously. Thread-safe.
class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Enqueue(std::unique_ptr<Task> task) = 0;
  // Blocks until every task enqueued before the call has run.
  virtual void WaitIdle() = 0;
  // Like WaitIdle, for at most `timeout`; true if the executor went idle.
  // Lets a waiting Python thread check for KeyboardInterrupt now and then.
  virtual bool WaitIdleFor(std::chrono::milliseconds timeout) = 0;
  // Tasks enqueued and not yet started (approximate; for back-pressure).
  virtual size_t QueueLength() const { return 0; }
  // Runs the task at the front of the queue on the calling thread if no
  // other thread is running one; true if it ran a task. A thread waiting
  // for a value calls it (Note [Readers run queued work]). Executors whose
  // tasks must run on their own thread keep the default: never.
  virtual bool TryRunOne() { return false; }
  // Runs `task` on the calling thread now if that keeps FIFO order (the
  // queue is empty and no task runs) and the task is cheap enough (Note
  // [Running at issue]); true if it ran, else `task` is untouched and the
  // caller enqueues it. The caller owns the task either way, so a task
  // that runs at once is never allocated on the heap.
  virtual bool TryRunAtIssue(Task& task) {
    (void)task;
    return false;
  }
};

// Device types get small integer ids at registration, so kernel lookups
// compare integers. "cpu" is always id 0.
using DeviceTypeId = int;
inline constexpr DeviceTypeId kCpuDeviceType = 0;
DeviceTypeId RegisterDeviceType(const std::string& type_name);
const std::string& DeviceTypeName(DeviceTypeId id);
Status LookupDeviceType(const std::string& type_name, DeviceTypeId* out);

// Note [Device context]
// What a kernel may use of the device it runs on, handed to it in
// KernelContext: kernels never cast a Device* to reach these.
struct DeviceContext {
  Device* device = nullptr;
  // The device's compute stream (Note [Streams and events]): kernels are
  // posted there. Null when kernels finish before Compute returns (the
  // CPU), so their outputs are ready at once.
  Stream* stream = nullptr;
  // Intra-op threads for CPU-style kernels (the CPU, the simulated device;
  // Note [Intra-op pool]).
  IntraOpPool* cpu_pool = nullptr;
  // Where kernels take workspaces from (ordered by `stream`).
  Allocator* scratch = nullptr;
  // Library handles a device's kernels share (cuBLAS, cuDNN), or null.
  void* library_handles = nullptr;
};

// Note [Graph replay]
// A device that can record the work one function call posts and replay it
// as a single launch (a CUDA graph) says so with CanCaptureGraphs; the
// graph executor then captures a function's second call and replays the
// recording on later calls (docs/devices.md, "CUDA graphs for
// functions"). DeviceGraph is the device's recording.
class DeviceGraph {
 public:
  virtual ~DeviceGraph() = default;
};

// Whether devices that can capture graphs replay functions (Note [Graph
// replay]): ember.config.experimental.enable_cuda_graphs, EMBER_CUDA_GRAPHS.
// It applies to GPUs and to the simulated accelerator, which models CUDA
// graphs (Note [Simulated graphs] in devices/sim/sim_stream.h).
void SetGraphReplayEnabled(bool enabled);
bool GraphReplayEnabled();

// One copy of a replay (device memory to device memory on the device).
struct GraphCopy {
  void* dst;
  const void* src;
  size_t bytes;
};

class Device {
 public:
  Device(DeviceTypeId type, int index, int placement_priority);
  virtual ~Device() = default;

  const std::string& name() const { return name_; }  // "cpu:0"
  DeviceTypeId type() const { return type_; }
  int index() const { return index_; }
  // Higher wins when placement picks "the best device with a kernel".
  int placement_priority() const { return placement_priority_; }

  virtual Allocator* allocator() = 0;
  virtual Executor* executor() = 0;
  // True if buffers of this device are ordinary host memory (NumPy may view
  // them without a copy).
  virtual bool host_memory() const = 0;
  const DeviceContext& context() const { return context_; }
  Stream* stream() const { return context_.stream; }

  // Note [Pinned staging]
  // A GPU's copy engines read and write page-locked ("pinned") host memory
  // directly, so a copy between it and the device is asynchronous; from
  // ordinary pageable memory the data must first be copied, by the host,
  // into pinned memory. A device that needs pinned memory returns the
  // allocator of it here (null: it needs none, as the CPU). The copy paths
  // use it in two ways:
  //  - CopyFromHost of pageable memory copies the source into a pinned
  //    staging buffer at once, on the issuing thread, and enqueues the
  //    transfer from there; the staging buffer goes back to the pool when
  //    the transfer has run. A pinned source is transferred directly.
  //  - A copy to host memory allocates its destination in pinned memory
  //    (falling back to pageable memory when that runs out), so values
  //    read back from the device and sent to it again need no staging.
  // runtime_stats counts the staged copies ("copies_staged").
  virtual Allocator* pinned_allocator() { return nullptr; }

  // Note [Device error words] (core/device_error.h): where kernels that
  // find bad data while they run report it. Null for devices whose
  // kernels return such errors from Compute (the CPU, the simulated
  // device, whose kernels run as host code on its streams).
  virtual DeviceErrorWords* error_words() { return nullptr; }

  // Every stream of the device (compute first), for synchronization and
  // ember.config.runtime_stats; empty for devices without streams.
  virtual std::vector<Stream*> streams() const {
    return stream() == nullptr ? std::vector<Stream*>{} : std::vector<Stream*>{stream()};
  }

  // Note [Graph replay]. Capture runs `issue` on the calling thread and
  // records, instead of running, what it posts to this device's compute
  // stream. Replay posts one replay there: `copies_in`, the recording,
  // then `copies_out`, holding `keep` until they ran; `*done` marks its
  // end.
  virtual bool CanCaptureGraphs() const { return false; }
  virtual Status CaptureGraph(const std::function<Status()>& issue, std::shared_ptr<DeviceGraph>* graph);
  virtual Status ReplayGraph(const std::shared_ptr<DeviceGraph>& graph, const std::vector<GraphCopy>& copies_in,
                             const std::vector<GraphCopy>& copies_out, std::vector<Tensor> keep, Event* done);

  // Note [Device copies]: `dst` is allocated and has `src`'s dtype and
  // shape; `src`'s data is there once `after` happened (an event of any
  // stream, or none). Each call enqueues the copy on one of the performing
  // device's streams, ordered after `after` on the device, and sets `*done`
  // to the event that marks its end; it returns an error only if the copy
  // could not be enqueued. Devices with host memory need none of them: the
  // runtime shares host buffers.
  // Host memory -> this device.
  virtual Status CopyFromHost(const Tensor& src, Tensor dst, const Event& after, Event* done);
  // This device -> host memory.
  virtual Status CopyToHost(const Tensor& src, Tensor dst, const Event& after, Event* done);
  // This device -> `dst_device` (another device without host memory). The
  // default stages through host memory.
  virtual Status CopyToDevice(const Tensor& src, Device* dst_device, Tensor dst, const Event& after, Event* done);

 protected:
  // Set by the subclass constructor; `device` is filled in here.
  void set_context(DeviceContext context) {
    context_ = context;
    context_.device = this;
  }

 private:
  DeviceTypeId type_;
  int index_;
  int placement_priority_;
  std::string name_;
  DeviceContext context_;
};

// Owns every device. Devices are added at start-up and never removed, so
// Device* stays valid for the life of the process.
class DeviceManager {
 public:
  static DeviceManager& Global();

  Device* Add(std::unique_ptr<Device> device);
  // Accepts "cpu", "cpu:0", "/cpu:0", "/device:CPU:0" (case-insensitive).
  Status Find(const std::string& spec, Device** out) const;
  const std::vector<Device*>& devices() const { return raw_; }
  Device* cpu() const { return raw_.empty() ? nullptr : raw_[0]; }
  // Why devices of `type` may be missing ("CUDA is compiled in, but the
  // CUDA runtime found no GPU: ..."): added to Find's error for them. Set
  // at start-up only.
  void SetMissingDeviceNote(const std::string& type, std::string note) { missing_notes_[type] = std::move(note); }

 private:
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> raw_;
  std::map<std::string, std::string> missing_notes_;
};

}  // namespace ember
