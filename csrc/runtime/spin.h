// This file declares CpuRelax and SpinUntil: brief busy-waiting before a
// thread sleeps (Note [Executor spinning] in thread_executor.cc).
#pragma once

namespace ember {

// Tells the CPU this is a spin loop (saves power, frees the sibling core).
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Polls `done` up to `iterations` times; returns whether it became true.
template <typename Pred>
inline bool SpinUntil(Pred done, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    if (done()) return true;
    CpuRelax();
  }
  return done();
}

}  // namespace ember
