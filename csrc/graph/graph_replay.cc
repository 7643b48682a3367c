// This file implements graph replay for GraphExecutor (Note [Graph
// replay]): a function whose nodes all run on one device that can capture
// graphs is recorded on its second call and replayed as one launch.
#include <algorithm>
#include <atomic>

#include "core/device.h"
#include "graph/executor.h"
#include "runtime/kernel_run.h"

namespace ember {
namespace {

std::atomic<uint64_t> g_replays{0};

// A device buffer for a copy of `like` (its dtype and shape).
Status AllocateLike(Device* device, const Tensor& like, Tensor* out) {
  RefPtr<Buffer> buffer = Buffer::Allocate(device->allocator(), like.NumBytes(), device->stream());
  if (!buffer) return OutOfDeviceMemory(device, like.NumBytes());
  *out = Tensor(like.dtype(), like.shape(), std::move(buffer));
  return Status::OK();
}

// Where `t`'s data is: an address for the device's copies and for
// comparisons, not a host access (Note [Strict device memory]).
void* Address(const Tensor& t) { return t.buffer() ? t.buffer()->data() : nullptr; }

}  // namespace

uint64_t GraphReplayCount() { return g_replays.load(std::memory_order_relaxed); }

void GraphExecutor::RecordingErrors::Record(const Status& s) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failed_.load(std::memory_order_relaxed)) return;
  first_ = s;
  failed_.store(true, std::memory_order_release);
}

Status GraphExecutor::RecordingErrors::first() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_;
}

void GraphExecutor::RecordingErrors::Clear() {
  std::lock_guard<std::mutex> lock(mu_);
  first_ = Status::OK();
  failed_.store(false, std::memory_order_release);
}

Status GraphExecutor::TryReplay(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* results_device,
                                bool* handled) const {
  *handled = false;
  Device* device = replay_device_;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!replay_args_[a]) continue;
    if (!(args[a].shape() == graph_.node(arg_nodes_[a]).outputs[0].shape)) return Status::OK();
    if (DeviceHolding(args[a], device) != device) return Status::OK();
  }
  std::lock_guard<std::mutex> lock(replay_mu_);
  ReplayState& r = replay_;
  switch (r.phase) {
    case ReplayState::Phase::kOff:
      return Status::OK();
    case ReplayState::Phase::kWarm:
      // The first call runs node by node: it makes every kernel's plans
      // and workspaces, which must not happen inside a capture.
      r.phase = ReplayState::Phase::kCapture;
      return Status::OK();
    case ReplayState::Phase::kCapture:
      r.copied.assign(args.size(), false);
      if (!CaptureOrTurnOff(r, args)) return Status::OK();
      break;
    case ReplayState::Phase::kReplay: {
      const std::vector<bool> moved = MovedStaticArgs(r, args);
      if (std::find(moved.begin(), moved.end(), true) != moved.end()) {
        // Note [Moved captured values]
        std::vector<bool> copied = r.copied;
        if (r.replays < kReplaysBeforeRecapture) {
          for (size_t a = 0; a < moved.size(); ++a) copied[a] = copied[a] || moved[a];
        }
        const int recaptures = r.recaptures + 1;
        r = ReplayState();  // drops the recording and what it held
        r.phase = ReplayState::Phase::kOff;
        if (recaptures > kMaxRecaptures) return Status::OK();
        r.copied = std::move(copied);
        r.recaptures = recaptures;
        if (!CaptureOrTurnOff(r, args)) return Status::OK();
      }
      break;
    }
  }
  return Replay(r, args, results, results_device, handled);
}

// Captures `args`' call and moves to replaying; if the capture fails (a
// node reports through error words, the device refused), node by node
// from now on.
bool GraphExecutor::CaptureOrTurnOff(ReplayState& r, const std::vector<Tensor>& args) const {
  if (!Capture(r, args).ok()) {
    r = ReplayState();
    r.phase = ReplayState::Phase::kOff;
    return false;
  }
  r.phase = ReplayState::Phase::kReplay;
  return true;
}

// Note [Moved captured values]
// A recording reads each captured value and variable at the address it
// had when captured. A call whose value of one lives elsewhere cannot
// replay it: a variable assigned a new tensor, as every update makes one
// (the recording itself holds the old buffer, so no update is in place).
// The recording is dropped at once, so it does not keep the old values'
// memory, and the call is captured again:
//  - if the recording had replayed at least kReplaysBeforeRecapture
//    times, with the moved values read in place again: inference with
//    weights changed now and then;
//  - otherwise with the moved values copied in by every replay, as
//    parameters are: a training step, whose variables move on every call,
//    then replays each step at the price of one device-to-device copy per
//    moved variable per call and a buffer of the recording's own for each.
// After kMaxRecaptures recaptures the function runs node by node.
std::vector<bool> GraphExecutor::MovedStaticArgs(const ReplayState& r, const std::vector<Tensor>& args) const {
  std::vector<bool> moved(args.size(), false);
  for (size_t a = 0; a < args.size(); ++a) {
    if (!replay_args_[a] || r.per_call[a]) continue;
    moved[a] = args[a].NumBytes() > 0 && Address(args[a]) != r.arg_ptrs[a];
  }
  return moved;
}

// The function's parameters (and the values r.copied marks, Note [Moved
// captured values]) are per-call inputs: the recording reads buffers of
// its own, which each replay fills first. Other captured values and
// variables it reads where they are: a replay needs the argument to come
// in that same buffer, and holds it while the replay runs.
Status GraphExecutor::Capture(ReplayState& r, const std::vector<Tensor>& args) const {
  Device* device = replay_device_;
  r.per_call.assign(args.size(), false);
  r.static_args = args;
  for (size_t a = 0; a < args.size(); ++a) {
    const bool copied_in = graph_.node(arg_nodes_[a]).per_call_arg || r.copied[a];
    if (!replay_args_[a] || !copied_in || args[a].NumBytes() == 0) continue;
    r.per_call[a] = true;
    EMBER_RETURN_IF_ERROR(AllocateLike(device, args[a], &r.static_args[a]));
  }
  std::vector<Tensor> captured;
  EMBER_RETURN_IF_ERROR(device->CaptureGraph(
      [&] { return RunGraph(r.static_args, &captured, device, nullptr, /*capturing=*/r.errors); }, &r.graph));
  r.static_results = std::move(captured);
  r.arg_ptrs.clear();
  for (size_t a = 0; a < args.size(); ++a) {
    r.arg_ptrs.push_back(Address(r.static_args[a]));
    if (!r.per_call[a]) r.static_args[a] = Tensor();
  }
  return Status::OK();
}

// One post: the per-call arguments copied in, the recording, each result
// copied out to a buffer of the caller's (the recording's own are
// overwritten by the next replay).
Status GraphExecutor::Replay(ReplayState& r, const std::vector<Tensor>& args, std::vector<Tensor>* results,
                             Device* results_device, bool* handled) const {
  Device* device = replay_device_;
  std::vector<GraphCopy> copies_in, copies_out;
  std::vector<Tensor> keep;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!replay_args_[a]) continue;
    // The others are read in place (Note [Moved captured values]).
    if (r.per_call[a]) copies_in.push_back(GraphCopy{Address(r.static_args[a]), Address(args[a]), args[a].NumBytes()});
    keep.push_back(args[a]);
  }
  std::vector<Tensor> fresh(r.static_results.size());
  for (size_t j = 0; j < fresh.size(); ++j) {
    const Tensor& from = r.static_results[j];
    EMBER_RETURN_IF_ERROR(AllocateLike(device, from, &fresh[j]));
    if (from.NumBytes() > 0) copies_out.push_back(GraphCopy{Address(fresh[j]), Address(from), from.NumBytes()});
    keep.push_back(fresh[j]);
  }
  Event done;
  r.errors->Clear();  // replays are one at a time (replay_mu_), each waited for
  EMBER_RETURN_IF_ERROR(device->ReplayGraph(r.graph, copies_in, copies_out, std::move(keep), &done));
  *handled = true;
  ++r.replays;
  g_replays.fetch_add(1, std::memory_order_relaxed);
  // Results are handed back ready, as a call node by node hands them.
  done.Synchronize();
  for (Stream* stream : device->streams()) EMBER_RETURN_IF_ERROR(stream->Failure());
  // A kernel that reran in this replay and failed (the simulated device's
  // recordings rerun their kernels; a GPU's report through the stream).
  if (r.errors->failed()) return r.errors->first();
  results->clear();
  for (Tensor& t : fresh) {
    results->push_back(std::move(t));
    if (results_device != nullptr) EMBER_RETURN_IF_ERROR(MoveToDevice(results_device, &results->back()));
  }
  return Status::OK();
}

}  // namespace ember
