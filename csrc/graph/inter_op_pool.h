// This file declares InterOpPool, the threads that run independent graph
// nodes concurrently (kernels split their own work on the intra-op pool).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ember {

class InterOpPool {
 public:
  // One thread per hardware thread, started on first use.
  static InterOpPool& Global();
  ~InterOpPool();

  void Submit(std::function<void()> fn);
  // True on the pool's own threads: work started there must not block
  // waiting for other pool work (the executor then runs everything inline).
  static bool OnPoolThread();

 private:
  explicit InterOpPool(int num_threads);
  void WorkerLoop();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ember
