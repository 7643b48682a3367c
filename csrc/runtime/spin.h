// This file declares CpuRelax and SpinUntil: brief busy-waiting before a
// thread sleeps (Note [Executor spinning] in thread_executor.cc).
#pragma once

#include <sched.h>

namespace ember {

// Tells the CPU this is a spin loop (saves power, frees the sibling core).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Note [Spinning that yields]: a spinning thread gives its core to any
// other runnable thread every kPollsPerYield polls. The runtime has up to
// three threads that spin (the Python thread awaiting a value, the
// executor waiting for work, the intra-op workers), and on a 2-core machine
// a kernel's second block can land on the core of a thread that only
// polls: without the yield it waited there until the scheduler preempted
// the spinner. An async [1, 784] x [784, 512] matmul, read each time, took
// 48-57 us where sync mode took 12.7 (stop 45, the 2-core Xeon, where one
// pause is about 10 ns, so 1,000 polls hold a core for 10 us).
inline constexpr int kPollsPerYield = 32;

// Polls `done` up to `iterations` times, yielding the core now and then
// (Note [Spinning that yields]); returns whether it became true.
template <typename Pred>
inline bool SpinUntil(Pred done, int iterations) {
  for (int i = 1; i <= iterations; ++i) {
    if (done()) return true;
    if (i % kPollsPerYield == 0) {
      sched_yield();
    } else {
      CpuRelax();
    }
  }
  return done();
}

}  // namespace ember
