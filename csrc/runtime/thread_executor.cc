// This file implements ThreadExecutor.
#include "runtime/thread_executor.h"

namespace ember {

ThreadExecutor::ThreadExecutor(std::string name) : name_(std::move(name)) {
  worker_ = std::thread([this] { WorkerLoop(); });
}

ThreadExecutor::~ThreadExecutor() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_one();
  worker_.join();
}

void ThreadExecutor::Enqueue(std::unique_ptr<Task> task) {
  bool was_empty;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_empty = queue_.empty();
    queue_.push_back(std::move(task));
  }
  // The worker only sleeps on an empty queue, so only that push must wake it.
  if (was_empty) work_cv_.notify_one();
}

void ThreadExecutor::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return queue_.empty() && !running_task_; });
}

void ThreadExecutor::WorkerLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    work_cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping and drained
    std::unique_ptr<Task> task = std::move(queue_.front());
    queue_.pop_front();
    running_task_ = true;
    lock.unlock();
    task->Run();
    task.reset();  // release buffers before reporting idle
    lock.lock();
    running_task_ = false;
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

}  // namespace ember
