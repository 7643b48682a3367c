// This file defines FakeCudaApi: a host-thread model of the CUDA runtime's
// streams, events and memory (Note [CUDA API seam] in
// devices/cuda/cuda_api.h), for testing the GPU device runtime without a
// GPU. Each stream is a thread running its operations in order; events
// complete when their stream reaches them; a wait blocks its stream's
// thread, not the caller; device memory is host memory with a capacity;
// faults can be injected.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "devices/cuda/cuda_api.h"

namespace ember::cuda::testing {

class FakeCudaApi final : public CudaApi {
 public:
  explicit FakeCudaApi(int devices = 1, size_t capacity = size_t{64} << 20) : devices_(devices), capacity_(capacity) {}
  ~FakeCudaApi() override {
    for (auto& [handle, stream] : streams_) stream->Stop();
    for (auto& [ptr, bytes] : allocations_) std::free(ptr);
  }

  // --- Test controls --------------------------------------------------
  // Host work in `stream`'s order: what a test posts where a kernel would
  // be launched.
  void LaunchHostWork(StreamHandle stream, std::function<void()> fn) { Of(stream)->Push(std::move(fn)); }
  // A gate: the stream stops at this point until Open() is called.
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    void Open() {
      {
        std::lock_guard<std::mutex> lock(mu);
        open = true;
      }
      cv.notify_all();
    }
    void Pass() {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [this] { return open; });
    }
  };
  std::shared_ptr<Gate> Block(StreamHandle stream) {
    auto gate = std::make_shared<Gate>();
    LaunchHostWork(stream, [gate] { gate->Pass(); });
    return gate;
  }
  // A kernel that faults when the stream reaches it: from then on the
  // context is broken and every call returns `code` (Note [Sticky CUDA
  // errors]).
  void InjectFault(StreamHandle stream, ApiResult code) {
    LaunchHostWork(stream, [this, code] {
      std::lock_guard<std::mutex> lock(mu_);
      sticky_ = code;
    });
  }
  // The next Malloc fails with `code` once.
  void FailNextMalloc(ApiResult code) {
    std::lock_guard<std::mutex> lock(mu_);
    next_malloc_error_ = code;
  }
  int mallocs() const { return mallocs_; }
  int frees() const { return frees_; }
  int events_created() const { return events_created_; }
  int stream_waits() const { return stream_waits_; }
  size_t device_bytes() const { return in_use_; }

  // --- CudaApi ---------------------------------------------------------
  ApiResult GetDeviceCount(int* count) override {
    *count = devices_;
    return kSuccess;
  }
  ApiResult SetDevice(int device) override { return device >= 0 && device < devices_ ? Sticky() : kInvalidDevice; }
  ApiResult GetDeviceName(int device, std::string* name) override {
    *name = "Fake GPU " + std::to_string(device);
    return kSuccess;
  }
  ApiResult GetMultiprocessorCount(int, int* count) override {
    *count = 4;
    return kSuccess;
  }
  ApiResult MemGetInfo(size_t* free_bytes, size_t* total_bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    *free_bytes = capacity_ - in_use_;
    *total_bytes = capacity_;
    return kSuccess;
  }
  ApiResult Malloc(void** ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (sticky_ != kSuccess) return sticky_;
    if (next_malloc_error_ != kSuccess) return std::exchange(next_malloc_error_, kSuccess);
    if (in_use_ + bytes > capacity_) return last_error_ = kErrorMemoryAllocation;
    *ptr = std::malloc(bytes);
    allocations_[*ptr] = bytes;
    in_use_ += bytes;
    ++mallocs_;
    return kSuccess;
  }
  ApiResult Free(void* ptr) override {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = allocations_.find(ptr);
    if (it == allocations_.end()) return kInvalidValue;
    in_use_ -= it->second;
    allocations_.erase(it);
    std::free(ptr);
    ++frees_;
    return kSuccess;
  }
  ApiResult HostAlloc(void** ptr, size_t bytes) override {
    *ptr = std::malloc(bytes);
    return *ptr != nullptr ? kSuccess : kErrorMemoryAllocation;
  }
  ApiResult HostFree(void* ptr) override {
    std::free(ptr);
    return kSuccess;
  }
  ApiResult StreamCreate(StreamHandle* stream) override {
    auto s = std::make_unique<FakeStream>();
    *stream = s.get();
    std::lock_guard<std::mutex> lock(mu_);
    streams_[*stream] = std::move(s);
    return kSuccess;
  }
  ApiResult StreamDestroy(StreamHandle stream) override {
    std::unique_ptr<FakeStream> s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s = std::move(streams_[stream]);
      streams_.erase(stream);
    }
    s->Stop();
    return kSuccess;
  }
  ApiResult EventCreate(EventHandle* event) override {
    *event = new FakeEvent();
    ++events_created_;
    return Sticky();
  }
  ApiResult EventDestroy(EventHandle event) override {
    delete static_cast<FakeEvent*>(event);
    return kSuccess;
  }
  ApiResult EventRecord(EventHandle event, StreamHandle stream) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    if (Of(stream)->capturing()) return kCaptureIllegal;
    auto* e = static_cast<FakeEvent*>(event);
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(e->mu);
      generation = ++e->recorded;
    }
    Of(stream)->Push([e, generation] { e->Reach(generation); });
    return kSuccess;
  }
  ApiResult EventQuery(EventHandle event) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    auto* e = static_cast<FakeEvent*>(event);
    std::lock_guard<std::mutex> lock(e->mu);
    return e->done >= e->recorded ? kSuccess : kErrorNotReady;
  }
  ApiResult StreamWaitEvent(StreamHandle stream, EventHandle event) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    if (Of(stream)->capturing()) return kCaptureIllegal;
    auto* e = static_cast<FakeEvent*>(event);
    uint64_t generation;
    {
      std::lock_guard<std::mutex> lock(e->mu);
      generation = e->recorded;
    }
    ++stream_waits_;
    Of(stream)->Push([e, generation] { e->WaitFor(generation); });
    return kSuccess;
  }
  ApiResult MemcpyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    Of(stream)->Push([dst, src, bytes] { std::memcpy(dst, src, bytes); });
    return kSuccess;
  }
  ApiResult MemsetAsync(void* dst, int value, size_t bytes, StreamHandle stream) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    Of(stream)->Push([dst, value, bytes] { std::memset(dst, value, bytes); });
    return kSuccess;
  }
  // Capture (docs/devices.md, "CUDA graphs for functions"): the copies,
  // memsets and host work issued to a capturing stream are recorded, not
  // run; a graph launch runs them in order on the launching stream. The
  // fake is stricter than CUDA where the runtime's design says a thing must
  // not happen during a capture: recording an event on a capturing stream,
  // or making it wait for one, fails with cudaErrorStreamCaptureUnsupported.
  ApiResult StreamBeginCapture(StreamHandle stream) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    return Of(stream)->BeginCapture() ? kSuccess : kCaptureIllegal;
  }
  ApiResult StreamEndCapture(StreamHandle stream, GraphHandle* graph) override {
    std::vector<std::function<void()>> ops;
    if (!Of(stream)->EndCapture(&ops)) return kCaptureIllegal;
    *graph = new std::vector<std::function<void()>>(std::move(ops));
    ++graphs_live_;
    return kSuccess;
  }
  ApiResult GraphInstantiate(GraphExecHandle* exec, GraphHandle graph) override {
    *exec = new std::vector<std::function<void()>>(*static_cast<std::vector<std::function<void()>>*>(graph));
    ++graphs_live_;
    return kSuccess;
  }
  ApiResult GraphLaunch(GraphExecHandle exec, StreamHandle stream) override {
    if (ApiResult r = Sticky(); r != kSuccess) return r;
    if (Of(stream)->capturing()) return kCaptureIllegal;
    ++graph_launches_;
    for (const auto& op : *static_cast<std::vector<std::function<void()>>*>(exec)) Of(stream)->Push(op);
    return kSuccess;
  }
  ApiResult GraphExecDestroy(GraphExecHandle exec) override {
    delete static_cast<std::vector<std::function<void()>>*>(exec);
    --graphs_live_;
    return kSuccess;
  }
  ApiResult GraphDestroy(GraphHandle graph) override {
    delete static_cast<std::vector<std::function<void()>>*>(graph);
    --graphs_live_;
    return kSuccess;
  }
  int graph_launches() const { return graph_launches_.load(); }
  int graphs_live() const { return graphs_live_.load(); }
  bool capturing(StreamHandle stream) { return Of(stream)->capturing(); }

  ApiResult GetLastError() override {
    std::lock_guard<std::mutex> lock(mu_);
    return std::exchange(last_error_, kSuccess);
  }
  std::string ErrorName(ApiResult result) override {
    switch (result) {
      case kSuccess: return "cudaSuccess";
      case kErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
      case kErrorNotReady: return "cudaErrorNotReady";
      case kErrorIllegalAddress: return "cudaErrorIllegalAddress";
      case kErrorLaunchFailure: return "cudaErrorLaunchFailure";
      default: return "cudaError" + std::to_string(result);
    }
  }
  std::string ErrorString(ApiResult result) override {
    if (result == kErrorIllegalAddress) return "an illegal memory access was encountered";
    if (result == kErrorMemoryAllocation) return "out of memory";
    return "fake error " + std::to_string(result);
  }

 private:
  static constexpr ApiResult kInvalidValue = 1;    // cudaErrorInvalidValue
  static constexpr ApiResult kInvalidDevice = 101;  // cudaErrorInvalidDevice
  static constexpr ApiResult kCaptureIllegal = 900;  // cudaErrorStreamCaptureUnsupported

  struct FakeEvent {
    std::mutex mu;
    std::condition_variable cv;
    uint64_t recorded = 0;  // generations recorded
    uint64_t done = 0;      // generations their stream reached
    void Reach(uint64_t generation) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (generation > done) done = generation;
      }
      cv.notify_all();
    }
    void WaitFor(uint64_t generation) {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return done >= generation; });
    }
  };

  class FakeStream {
   public:
    FakeStream() : thread_([this] { Loop(); }) {}
    void Push(std::function<void()> op) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (capturing_) {
          captured_.push_back(std::move(op));
          return;
        }
        queue_.push_back(std::move(op));
      }
      cv_.notify_one();
    }
    bool BeginCapture() {
      std::lock_guard<std::mutex> lock(mu_);
      if (capturing_) return false;
      capturing_ = true;
      captured_.clear();
      return true;
    }
    bool EndCapture(std::vector<std::function<void()>>* ops) {
      std::lock_guard<std::mutex> lock(mu_);
      if (!capturing_) return false;
      capturing_ = false;
      *ops = std::move(captured_);
      captured_.clear();
      return true;
    }
    bool capturing() {
      std::lock_guard<std::mutex> lock(mu_);
      return capturing_;
    }
    void Stop() {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        stopping_ = true;
      }
      cv_.notify_one();
      thread_.join();
    }

   private:
    void Loop() {
      std::unique_lock<std::mutex> lock(mu_);
      while (true) {
        cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        std::function<void()> op = std::move(queue_.front());
        queue_.pop_front();
        lock.unlock();
        op();
        lock.lock();
      }
    }
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::function<void()>> queue_;
    bool capturing_ = false;
    std::vector<std::function<void()>> captured_;
    bool stopping_ = false;
    std::thread thread_;
  };

  FakeStream* Of(StreamHandle stream) { return static_cast<FakeStream*>(stream); }
  ApiResult Sticky() {
    std::lock_guard<std::mutex> lock(mu_);
    return sticky_;
  }

  const int devices_;
  const size_t capacity_;
  std::mutex mu_;
  std::map<StreamHandle, std::unique_ptr<FakeStream>> streams_;
  std::map<void*, size_t> allocations_;
  size_t in_use_ = 0;
  ApiResult sticky_ = kSuccess;
  ApiResult next_malloc_error_ = kSuccess;
  ApiResult last_error_ = kSuccess;
  std::atomic<int> mallocs_{0};
  std::atomic<int> frees_{0};
  std::atomic<int> events_created_{0};
  std::atomic<int> stream_waits_{0};
  std::atomic<int> graph_launches_{0};
  std::atomic<int> graphs_live_{0};
};

}  // namespace ember::cuda::testing
