// This file implements the profiler's per-thread event buffers and the
// kernel span (Note [Profiler]).
#include "runtime/profiler.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <mutex>

#include "core/device.h"
#include "ops/kernel_guard.h"
#include "ops/op_kernel.h"

namespace ember::profiler {

std::atomic<bool> g_enabled{false};

namespace {

struct ThreadBuffer {
  std::mutex mu;
  int64_t thread_id = 0;
  std::string thread_name;
  std::vector<Event> events;
};

// Every thread's buffer, alive as long as the process: a thread that
// exits keeps its events for the next Stop.
std::mutex g_buffers_mu;
std::vector<std::shared_ptr<ThreadBuffer>>& Buffers() {
  static auto* buffers = new std::vector<std::shared_ptr<ThreadBuffer>>();
  return *buffers;
}

ThreadBuffer& ThisThreadBuffer() {
  thread_local std::shared_ptr<ThreadBuffer> buffer = [] {
    auto b = std::make_shared<ThreadBuffer>();
    b->thread_id = static_cast<int64_t>(::syscall(SYS_gettid));
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    Buffers().push_back(b);
    return b;
  }();
  return *buffer;
}

std::atomic<uint64_t> g_next_flow{1};

void AppendShape(std::string* out, const Tensor& t) {
  *out += '[';
  for (int d = 0; d < t.shape().rank(); ++d) {
    if (d) *out += ',';
    *out += std::to_string(t.shape().dim(d));
  }
  *out += ']';
}

// "inputs":"[2,3] float32, [3] float32","outputs":"...","bytes":N
std::string KernelArgs(KernelContext& ctx) {
  std::string args = "\"device\":\"" + (ctx.device() ? ctx.device()->name() : std::string("host")) + "\"";
  int64_t bytes = 0;
  auto list = [&](const char* key, int n, auto get) {
    args += std::string(",\"") + key + "\":\"";
    for (int i = 0; i < n; ++i) {
      const Tensor& t = get(i);
      if (i) args += ", ";
      AppendShape(&args, t);
      args += ' ';
      args += DTypeName(t.dtype());
      bytes += t.NumBytes();
    }
    args += '"';
  };
  list("inputs", ctx.num_inputs(), [&](int i) -> const Tensor& { return ctx.input(i); });
  list("outputs", ctx.num_outputs(), [&](int i) -> const Tensor& { return ctx.output(i); });
  args += ",\"bytes\":" + std::to_string(bytes);
  return args;
}

}  // namespace

const char* CategoryName(Category category) {
  switch (category) {
    case Category::kDispatch: return "dispatch";
    case Category::kKernel: return "kernel";
    case Category::kCopy: return "copy";
    case Category::kUser: return "user";
  }
  return "?";
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Start() {
  std::lock_guard<std::mutex> lock(g_buffers_mu);
  for (auto& b : Buffers()) {
    std::lock_guard<std::mutex> buffer_lock(b->mu);
    b->events.clear();
  }
  g_enabled.store(true, std::memory_order_release);
}

std::vector<ThreadEvents> Stop() {
  g_enabled.store(false, std::memory_order_release);
  std::vector<ThreadEvents> out;
  std::lock_guard<std::mutex> lock(g_buffers_mu);
  for (auto& b : Buffers()) {
    std::lock_guard<std::mutex> buffer_lock(b->mu);
    if (b->events.empty()) continue;
    out.push_back(ThreadEvents{b->thread_id, b->thread_name, std::move(b->events)});
    b->events.clear();
  }
  return out;
}

void Record(Event event) {
  ThreadBuffer& b = ThisThreadBuffer();
  std::lock_guard<std::mutex> lock(b.mu);
  b.events.push_back(std::move(event));
}

void NameThisThread(const std::string& name) {
  ThreadBuffer& b = ThisThreadBuffer();
  std::lock_guard<std::mutex> lock(b.mu);
  b.thread_name = name;
}

bool ThisThreadNamed() {
  ThreadBuffer& b = ThisThreadBuffer();
  std::lock_guard<std::mutex> lock(b.mu);
  return !b.thread_name.empty();
}

uint64_t NewFlow() { return g_next_flow.fetch_add(1, std::memory_order_relaxed); }

uint64_t& CurrentFlow() {
  thread_local uint64_t flow = 0;
  return flow;
}

uint64_t& LastDispatchFlow() {
  thread_local uint64_t flow = 0;
  return flow;
}

bool& LastCacheHit() {
  thread_local bool hit = false;
  return hit;
}

DispatchSpan::DispatchSpan(const char* op_name) : name_(Enabled() ? op_name : nullptr) {
  if (name_ == nullptr) return;
  start_ = NowNs();
  LastDispatchFlow() = 0;
  LastCacheHit() = false;
}

DispatchSpan::~DispatchSpan() {
  if (name_ == nullptr) return;
  std::string args = std::string("\"kernel_cache\":\"") + (LastCacheHit() ? "hit" : "miss") + "\"";
  if (failed_) args += ",\"error\":\"raised\"";
  args += extra_args_;
  Record(Event{name_, Category::kDispatch, start_, NowNs(), LastDispatchFlow(), std::move(args)});
}

Status RunKernelProfiled(const OpKernel& kernel, KernelContext& ctx) {
  const uint64_t flow = CurrentFlow();
  CurrentFlow() = 0;
  const int64_t start = NowNs();
  Status s = RunKernelNoThrow(kernel, ctx);
  const int64_t end = NowNs();
  std::string args = KernelArgs(ctx);
  if (!s.ok()) args += ",\"error\":\"" + std::string(s.code() == StatusCode::kCancelled ? "cancelled" : "failed") + "\"";
  Record(Event{ctx.op().name, Category::kKernel, start, end, flow, std::move(args)});
  return s;
}

}  // namespace ember::profiler
