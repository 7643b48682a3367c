// This file declares the profiler: spans of op dispatch, kernels, copies
// and user annotations, recorded per thread while profiling is on.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/kernel_guard.h"

namespace ember {

namespace profiler {

// Note [Profiler]: recording is off unless a Python program asks for it
// (ember.profiler). Off, each op pays one relaxed atomic load where it is
// dispatched and one where its kernel runs. On, each thread appends its
// events to its own buffer (a mutex no other thread takes while recording),
// and Stop collects every buffer. Events name ops by their OpDef's static
// name; their arguments are JSON text, built only while recording.
extern std::atomic<bool> g_enabled;
inline bool Enabled() { return g_enabled.load(std::memory_order_relaxed); }

enum class Category : uint8_t { kDispatch, kKernel, kCopy, kUser };
const char* CategoryName(Category category);

struct Event {
  std::string name;
  Category category;
  int64_t start_ns;
  int64_t end_ns;
  // Joins an op's dispatch to its kernel (a flow arrow in the trace
  // viewers); 0 for none.
  uint64_t flow = 0;
  std::string args;  // a JSON object's members, without braces
};

struct ThreadEvents {
  int64_t thread_id;  // the OS thread id
  std::string thread_name;
  std::vector<Event> events;
};

// Clears what earlier sessions left and starts recording.
void Start();
// Stops recording and hands over every thread's events.
std::vector<ThreadEvents> Stop();

int64_t NowNs();
void Record(Event event);
// Names the calling thread in traces ("cpu:0 executor").
void NameThisThread(const std::string& name);
bool ThisThreadNamed();

// Flows: Execute takes a new id for each launch while recording; the
// launch sets it as current on the thread that runs its kernel, and the
// binding reads the last one its thread made for the dispatch span.
uint64_t NewFlow();
uint64_t& CurrentFlow();
uint64_t& LastDispatchFlow();
// Whether the last kernel-cache lookup on this thread hit (for the
// dispatch span's arguments).
bool& LastCacheHit();

// Records a dispatch span from its construction to its destruction when
// the profiler was on at construction: the op, its flow to the kernel, and
// whether the kernel cache hit.
class DispatchSpan {
 public:
  explicit DispatchSpan(const char* op_name);
  ~DispatchSpan();
  DispatchSpan(const DispatchSpan&) = delete;
  DispatchSpan& operator=(const DispatchSpan&) = delete;
  void set_failed() { failed_ = true; }
  void add_arg(const std::string& json_member) { extra_args_ += "," + json_member; }

 private:
  const char* name_;  // null when the profiler was off
  int64_t start_ = 0;
  bool failed_ = false;
  std::string extra_args_;
};

// Runs the kernel like RunKernelNoThrow and records its span, with the
// op's shapes, dtypes, bytes and device.
Status RunKernelProfiled(const OpKernel& kernel, KernelContext& ctx);

}  // namespace profiler

// Every kernel call site runs kernels through here: RunKernelNoThrow,
// recorded when the profiler is on.
inline Status RunKernelRecorded(const OpKernel& kernel, KernelContext& ctx) {
  if (profiler::Enabled()) return profiler::RunKernelProfiled(kernel, ctx);
  return RunKernelNoThrow(kernel, ctx);
}
}  // namespace ember
