// This file implements graph replay for GraphExecutor (Note [Graph
// replay]): a function whose nodes all run on one device that can capture
// graphs is recorded on its second call and replayed as one launch.
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

}  // namespace

uint64_t GraphReplayCount() { return g_replays.load(std::memory_order_relaxed); }

Status GraphExecutor::TryReplay(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* results_device,
                                bool* handled) const {
  *handled = false;
  Device* device = replay_device_;
  for (size_t a = 0; a < args.size(); ++a) {
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
      if (!Capture(r, args).ok()) {
        // Not replayable after all (a node reports through error words,
        // the device refused): node by node from now on.
        r = ReplayState();
        r.phase = ReplayState::Phase::kOff;
        return Status::OK();
      }
      r.phase = ReplayState::Phase::kReplay;
      break;
    case ReplayState::Phase::kReplay:
      break;
  }
  return Replay(r, args, results, results_device, handled);
}

// The function's parameters are per-call inputs: the recording reads
// buffers of its own, which each replay fills first. Captured values and
// variables (weights, updated in place by the optimizers) it reads where
// they are: a replay needs the argument to come in that same buffer, and
// holds it while the replay runs; it does not pin it between calls.
Status GraphExecutor::Capture(ReplayState& r, const std::vector<Tensor>& args) const {
  Device* device = replay_device_;
  r.per_call.assign(args.size(), false);
  r.static_args = args;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!graph_.node(arg_nodes_[a]).per_call_arg || args[a].NumBytes() == 0) continue;
    r.per_call[a] = true;
    EMBER_RETURN_IF_ERROR(AllocateLike(device, args[a], &r.static_args[a]));
  }
  std::vector<Tensor> captured;
  EMBER_RETURN_IF_ERROR(device->CaptureGraph(
      [&] { return RunGraph(r.static_args, &captured, device, nullptr, /*capturing=*/true); }, &r.graph));
  r.static_results = std::move(captured);
  r.arg_ptrs.clear();
  for (size_t a = 0; a < args.size(); ++a) {
    r.arg_ptrs.push_back(r.static_args[a].raw_data());
    if (!r.per_call[a]) r.static_args[a] = Tensor();
  }
  return Status::OK();
}

// One post: the per-call arguments copied in, the recording, each result
// copied out to a buffer of the caller's (the recording's own are
// overwritten by the next replay). A captured value or variable that now
// comes in another buffer runs this call node by node instead.
Status GraphExecutor::Replay(ReplayState& r, const std::vector<Tensor>& args, std::vector<Tensor>* results,
                             Device* results_device, bool* handled) const {
  Device* device = replay_device_;
  std::vector<GraphCopy> copies_in, copies_out;
  std::vector<Tensor> keep;
  for (size_t a = 0; a < args.size(); ++a) {
    if (!r.per_call[a]) {
      if (args[a].NumBytes() > 0 && args[a].raw_data() != r.arg_ptrs[a]) return Status::OK();
      keep.push_back(args[a]);
      continue;
    }
    copies_in.push_back(GraphCopy{r.static_args[a].raw_data(), args[a].raw_data(), args[a].NumBytes()});
    keep.push_back(args[a]);
  }
  std::vector<Tensor> fresh(r.static_results.size());
  for (size_t j = 0; j < fresh.size(); ++j) {
    const Tensor& from = r.static_results[j];
    EMBER_RETURN_IF_ERROR(AllocateLike(device, from, &fresh[j]));
    if (from.NumBytes() > 0) copies_out.push_back(GraphCopy{fresh[j].raw_data(), from.raw_data(), from.NumBytes()});
    keep.push_back(fresh[j]);
  }
  Event done;
  EMBER_RETURN_IF_ERROR(device->ReplayGraph(r.graph, copies_in, copies_out, std::move(keep), &done));
  *handled = true;
  g_replays.fetch_add(1, std::memory_order_relaxed);
  // Results are handed back ready, as a call node by node hands them.
  done.Synchronize();
  for (Stream* stream : device->streams()) EMBER_RETURN_IF_ERROR(stream->Failure());
  results->clear();
  for (Tensor& t : fresh) {
    results->push_back(std::move(t));
    if (results_device != nullptr) EMBER_RETURN_IF_ERROR(MoveToDevice(results_device, &results->back()));
  }
  return Status::OK();
}

}  // namespace ember
