// This file implements CudaStream (Note [CUDA streams and tickets]) and
// DeviceHealth.
#include "devices/cuda/cuda_stream.h"

#include <algorithm>

#include "core/device_access.h"

namespace ember::cuda {

Status DeviceHealth::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void DeviceHealth::Fail(Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_.load(std::memory_order_relaxed)) return;
  status_ = std::move(status);
  failed_.store(true, std::memory_order_release);
}

CudaStream::CudaStream(std::string name, CudaApi* api, int device, const void* access_domain, DeviceHealth* health)
    : name_(std::move(name)), api_(api), device_(device), access_domain_(access_domain), health_(health) {
  ApiResult r = api_->SetDevice(device_);
  if (r == kSuccess) r = api_->StreamCreate(&handle_);
  if (r != kSuccess) {
    handle_ = nullptr;
    FailDevice(r, "creating a CUDA stream");
  }
}

CudaStream::~CudaStream() {
  {
    std::lock_guard<std::mutex> lock(callbacks_mu_);
    stopping_ = true;
  }
  callbacks_cv_.notify_all();
  if (completion_thread_.joinable()) completion_thread_.join();
  Drain();
  ReleaseFinishedWork();
  api_->SetDevice(device_);
  for (const Mark& m : marks_) api_->EventDestroy(m.event);
  for (EventHandle e : event_pool_) api_->EventDestroy(e);
  if (handle_ != nullptr) api_->StreamDestroy(handle_);
}

void CudaStream::FailDevice(ApiResult result, const char* what) const {
  health_->Fail(api_->ToStatus(result, what).WithPrefix(name_ + ": "));
}

Status CudaStream::Failure() const { return health_->failed() ? health_->status() : Status::OK(); }

size_t CudaStream::held_work() const {
  std::lock_guard<std::mutex> lock(held_mu_);
  return held_.size();
}

CudaGraph::~CudaGraph() {
  api_->SetDevice(device_);
  if (exec_ != nullptr) api_->GraphExecDestroy(exec_);
  if (graph_ != nullptr) api_->GraphDestroy(graph_);
  // work_ goes last: its tensors' buffers return to the allocator after
  // the graph that used them is gone.
}

uint64_t CudaStream::DoPost(std::function<void()> work, WorkKind kind) {
  (void)kind;
  uint64_t ticket;
  bool mark_due;
  {
    std::lock_guard<std::recursive_mutex> lock(launch_mu_);
    {
      DeviceAccessScope access(access_domain_);
      api_->SetDevice(device_);
      work();
    }
    if (capture_ != nullptr) {  // Note [Capturing a stream]
      capture_->work_.push_back(std::move(work));
      return posted_.load(std::memory_order_relaxed);
    }
    ticket = posted_.load(std::memory_order_relaxed) + 1;
    posted_.store(ticket, std::memory_order_release);
    mark_due = ticket % kMarkInterval == 0;
    if (mark_due) RecordMarkLocked();
    std::lock_guard<std::mutex> held(held_mu_);
    held_.emplace_back(ticket, std::move(work));
  }
  if (mark_due) {
    LastCompleted();
    ReleaseFinishedWork();
  }
  return ticket;
}

bool CudaStream::RecordMarkLocked() {
  // During a capture every real post is covered already (Capture recorded
  // a mark first), and an event recorded now would never complete.
  if (capture_ != nullptr) return true;
  const uint64_t ticket = posted_.load(std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(marks_mu_);
  if (!marks_.empty() && marks_.back().ticket == ticket) return true;
  if (ticket <= completed_.load(std::memory_order_relaxed)) return true;
  if (health_->failed() || handle_ == nullptr) return false;
  EventHandle event = nullptr;
  ApiResult r = kSuccess;
  if (!event_pool_.empty()) {
    event = event_pool_.back();
    event_pool_.pop_back();
  } else {
    r = api_->EventCreate(&event);
  }
  if (r == kSuccess) r = api_->EventRecord(event, handle_);
  if (r != kSuccess) {
    if (event != nullptr) event_pool_.push_back(event);
    FailDevice(r, "recording a CUDA event");
    return false;
  }
  marks_.push_back(Mark{ticket, event});
  marks_recorded_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

bool CudaStream::CoverTicket(uint64_t ticket) {
  {
    std::lock_guard<std::mutex> lock(marks_mu_);
    if (!marks_.empty() && marks_.back().ticket >= ticket) return true;
  }
  std::lock_guard<std::recursive_mutex> lock(launch_mu_);
  return RecordMarkLocked();
}

// A failed device has finished everything it will ever finish: its
// streams count all work as done, so waiters wake and read the failure.
void CudaStream::PollLocked() const {
  while (!marks_.empty()) {
    if (health_->failed()) break;
    const ApiResult r = api_->EventQuery(marks_.front().event);
    if (r == kErrorNotReady) return;
    if (r != kSuccess) {
      FailDevice(r, "a kernel or copy");
      break;
    }
    completed_.store(std::max(completed_.load(std::memory_order_relaxed), marks_.front().ticket),
                     std::memory_order_release);
    event_pool_.push_back(marks_.front().event);
    marks_.pop_front();
  }
  if (health_->failed()) completed_.store(posted_.load(std::memory_order_acquire), std::memory_order_release);
}

uint64_t CudaStream::LastCompleted() const {
  {
    std::lock_guard<std::mutex> lock(marks_mu_);
    PollLocked();
    if (!marks_.empty() || completed_.load(std::memory_order_relaxed) >= posted_.load(std::memory_order_acquire)) {
      return completed_.load(std::memory_order_acquire);
    }
  }
  // Nothing recorded covers the latest posts: record a mark so a later
  // poll can advance (skipped if another thread is launching; it will).
  std::unique_lock<std::recursive_mutex> lock(launch_mu_, std::try_to_lock);
  if (lock.owns_lock()) const_cast<CudaStream*>(this)->RecordMarkLocked();
  return completed_.load(std::memory_order_acquire);
}

void CudaStream::ReleaseFinishedWork() {
  const uint64_t done = completed_.load(std::memory_order_acquire);
  std::vector<std::function<void()>> finished;
  {
    std::lock_guard<std::mutex> lock(held_mu_);
    while (!held_.empty() && held_.front().first <= done) {
      finished.push_back(std::move(held_.front().second));
      held_.pop_front();
    }
  }
  // `finished` is destroyed here, outside the locks.
}

// Polls: a kernel or copy the host waits for usually ends within
// microseconds, so the first polls spin; longer waits sleep between them.
bool CudaStream::BlockUntil(uint64_t ticket, std::chrono::microseconds timeout) {
  ticket = std::min(ticket, LastPosted());
  if (Passed(ticket)) {
    ReleaseFinishedWork();
    return true;
  }
  CoverTicket(ticket);
  const auto start = std::chrono::steady_clock::now();
  const auto deadline = start + timeout;
  for (int polls = 0;; ++polls) {
    if (Passed(ticket)) {
      ReleaseFinishedWork();
      return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    if (now - start < std::chrono::microseconds(50)) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(std::chrono::microseconds(20),
                                                                                  deadline - now));
    }
  }
}

void CudaStream::Drain() {
  while (!BlockUntil(LastPosted(), std::chrono::hours(1))) {
  }
}

// On the device: the CUDA stream waits for an event covering the ticket.
// The event cannot be recycled before the wait is enqueued (the other
// stream's marks lock is held), and the wait takes no lock of this stream:
// it only has to come before the caller's next post, which it does (and
// the current device does not matter to cudaStreamWaitEvent).
void CudaStream::DoWait(const Event& event) {
  auto* other = dynamic_cast<CudaStream*>(event.stream);
  {
    // Serialized with a capture; only the capturing thread gets here
    // during one, and waits on the host (Note [Capturing a stream]).
    std::lock_guard<std::recursive_mutex> launch(launch_mu_);
    if (capture_ != nullptr) {
      event.stream->BlockUntil(event.ticket, std::chrono::hours(24 * 365));
      return;
    }
  }
  if (other == nullptr) {
    // A stream of another device kind: the host waits for it instead.
    event.stream->BlockUntil(event.ticket, std::chrono::hours(24 * 365));
    return;
  }
  if (!other->CoverTicket(event.ticket)) return;  // its device failed: Failure() tells
  std::lock_guard<std::mutex> lock(other->marks_mu_);
  for (const Mark& m : other->marks_) {
    if (m.ticket < event.ticket) continue;
    const ApiResult r = api_->StreamWaitEvent(handle_, m.event);
    if (r != kSuccess) FailDevice(r, "cudaStreamWaitEvent");
    return;
  }
  // No mark left at or after the ticket: the poll found it finished.
}

Status CudaStream::Capture(const std::function<Status()>& issue, std::shared_ptr<CudaGraph>* graph) {
  std::lock_guard<std::recursive_mutex> lock(launch_mu_);
  EMBER_RETURN_IF_ERROR(Failure());
  if (handle_ == nullptr) return FailedPrecondition(name_ + " has no CUDA stream");
  if (capture_ != nullptr) return FailedPrecondition(name_ + " is capturing already");
  if (!RecordMarkLocked()) return Failure();
  auto captured = std::make_shared<CudaGraph>(api_, device_);
  api_->SetDevice(device_);
  ApiResult r = api_->StreamBeginCapture(handle_);
  if (r != kSuccess) {
    if (IsStickyError(r)) FailDevice(r, "cudaStreamBeginCapture");
    return api_->ToStatus(r, "cudaStreamBeginCapture");
  }
  capture_ = captured.get();
  Status s = issue();
  capture_ = nullptr;
  r = api_->StreamEndCapture(handle_, &captured->graph_);  // ended whatever issue did
  if (s.ok() && r != kSuccess) s = api_->ToStatus(r, "cudaStreamEndCapture");
  if (s.ok()) {
    r = api_->GraphInstantiate(&captured->exec_, captured->graph_);
    if (r != kSuccess) s = api_->ToStatus(r, "cudaGraphInstantiate");
  }
  if (IsStickyError(r)) FailDevice(r, "capturing a CUDA graph");
  EMBER_RETURN_IF_ERROR(s);
  *graph = std::move(captured);
  return Status::OK();
}

Status CudaStream::PostGraph(std::shared_ptr<const CudaGraph> graph, std::function<void()> before,
                             std::function<void()> after, uint64_t* ticket) {
  // The work runs at once, in Post (RunsWorkAtPost): `launched` is read
  // right after.
  auto launched = std::make_shared<ApiResult>(kSuccess);
  *ticket = Post([this, graph = std::move(graph), launched, before = std::move(before), after = std::move(after)] {
    if (before) before();
    *launched = api_->GraphLaunch(graph->exec(), handle_);
    if (*launched == kSuccess && after) after();
  });
  if (*launched == kSuccess) return Status::OK();
  if (IsStickyError(*launched)) FailDevice(*launched, "cudaGraphLaunch");
  return api_->ToStatus(*launched, "cudaGraphLaunch");
}

void CudaStream::DoOnCompleted(uint64_t ticket, std::function<void()> callback) {
  CoverTicket(ticket);
  {
    std::lock_guard<std::mutex> lock(callbacks_mu_);
    callbacks_.emplace_back(ticket, std::move(callback));
    if (!completion_thread_.joinable()) completion_thread_ = std::thread([this] { CompletionLoop(); });
  }
  callbacks_cv_.notify_one();
}

// Runs each callback once its ticket finished, in the order they came.
void CudaStream::CompletionLoop() {
  std::unique_lock<std::mutex> lock(callbacks_mu_);
  while (true) {
    callbacks_cv_.wait(lock, [this] { return stopping_ || !callbacks_.empty(); });
    if (callbacks_.empty()) return;  // stopping, nothing left
    const uint64_t ticket = callbacks_.front().first;
    lock.unlock();
    const bool done = BlockUntil(ticket, std::chrono::milliseconds(10));
    lock.lock();
    if (!done) continue;
    std::vector<std::function<void()>> ready;
    for (auto it = callbacks_.begin(); it != callbacks_.end();) {
      if (Passed(it->first)) {
        ready.push_back(std::move(it->second));
        it = callbacks_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    for (auto& cb : ready) cb();
    lock.lock();
  }
}

}  // namespace ember::cuda
