// This file implements InterOpPool.
#include "graph/inter_op_pool.h"

#include <algorithm>

#include "runtime/profiler.h"

namespace ember {
namespace {
thread_local bool g_on_pool_thread = false;
}  // namespace

InterOpPool& InterOpPool::Global() {
  // Leaked on purpose: worker threads must not be joined during static
  // destruction, after the interpreter may already be gone.
  static InterOpPool* pool = new InterOpPool(std::max(2u, std::thread::hardware_concurrency()));
  return *pool;
}

InterOpPool::InterOpPool(int num_threads) {
  for (int i = 0; i < num_threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

InterOpPool::~InterOpPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool InterOpPool::OnPoolThread() { return g_on_pool_thread; }

void InterOpPool::Submit(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void InterOpPool::WorkerLoop() {
  g_on_pool_thread = true;
  profiler::NameThisThread("inter-op pool");
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

}  // namespace ember
