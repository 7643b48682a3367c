// This file implements CollectiveWatch (Note [Watching collectives on GPUs]).
#include "collectives/collective_watch.h"

namespace ember::collectives {

CollectiveWatch::CollectiveWatch() : CollectiveWatch(Options{}) {}

CollectiveWatch::CollectiveWatch(Options options) : options_(options), thread_([this] { Loop(); }) {}

CollectiveWatch::~CollectiveWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

CollectiveWatch& CollectiveWatch::Global() {
  static auto* watch = new CollectiveWatch();  // its thread may outlive static destructors
  return *watch;
}

void CollectiveWatch::Add(std::string label, std::shared_ptr<Communicator> communicator, Ops ops) {
  const Clock::time_point now = Clock::now();
  const double timeout_s = communicator->timeout_s();
  Entry entry{std::move(label), std::move(communicator), std::move(ops), now,
              now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s)),
              now + options_.quiet};
  {
    std::lock_guard<std::mutex> lock(mu_);
    incoming_.push_back(std::move(entry));
    ++pending_;
  }
  wake_.notify_all();
}

size_t CollectiveWatch::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pending_;
}

void CollectiveWatch::Abort(Entry& entry, const Status& status) { entry.ops.abort(status); }

bool CollectiveWatch::Check(Entry& entry, Clock::time_point now) {
  if (entry.ops.finished()) return true;
  if (Status error = entry.ops.async_error(); !error.ok()) {
    Abort(entry, error.WithPrefix(entry.label + ": "));
    return true;
  }
  if (now - entry.start < options_.quiet) return false;
  const bool deadline_passed = now >= entry.deadline;
  if (now >= entry.next_fault_check || deadline_passed) {
    entry.next_fault_check = now + options_.fault_check_every;
    if (Status lost = entry.communicator->CheckFaults(entry.label, deadline_passed); !lost.ok()) {
      Abort(entry, lost);
      return true;
    }
  }
  if (deadline_passed) {
    Abort(entry, DeadlineExceeded(entry.label + ": not every worker joined within EMBER_COLLECTIVE_TIMEOUT=" +
                                  std::to_string(entry.communicator->timeout_s()) +
                                  "s (every worker must make the same collectives, in the same order)"));
    return true;
  }
  return false;
}

void CollectiveWatch::Loop() {
  std::vector<Entry> watched;  // only this thread touches it
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (watched.empty()) wake_.wait(lock, [this] { return stop_ || !incoming_.empty(); });
    if (stop_) break;
    for (Entry& entry : incoming_) watched.push_back(std::move(entry));
    incoming_.clear();
    lock.unlock();
    // The callbacks run without the lock: a lost-worker check takes the GIL.
    const Clock::time_point now = Clock::now();
    const size_t before = watched.size();
    size_t kept = 0;
    for (size_t i = 0; i < before; ++i) {
      if (Check(watched[i], now)) {
        watched[i].ops.release();
      } else {
        if (kept != i) watched[kept] = std::move(watched[i]);
        ++kept;
      }
    }
    watched.erase(watched.begin() + static_cast<std::ptrdiff_t>(kept), watched.end());
    const size_t let_go = before - kept;
    lock.lock();
    pending_ -= let_go;
    if (!watched.empty()) wake_.wait_for(lock, options_.poll, [this] { return stop_; });
  }
  for (Entry& entry : incoming_) watched.push_back(std::move(entry));
  incoming_.clear();
  lock.unlock();
  for (Entry& entry : watched) entry.ops.release();
}

}  // namespace ember::collectives
