// This file declares GraphExecutor, the dataflow interpreter that runs an
// instantiated Graph, and InferGraphShapes.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"
#include "graph/graph.h"
#include "ops/op_kernel.h"

namespace ember {

struct KernelRun;

// Note [Dataflow executor]
// Create() resolves everything a call would otherwise redo: each node's
// device, its kernel (from the kernel cache, so eager and graph calls share
// kernels), its consumers and how many inputs it waits for. Run() then
// keeps only per-call state: one atomic pending count per node and one
// atomic use count per value. A node whose count reaches zero is ready;
// the thread that readied it runs it at once if the node is cheap (few
// elements) or it has nothing else to do, and otherwise hands it to the
// inter-op pool, so independent branches run concurrently. Values are
// dropped when their last consumer ran, so a long chain keeps only its
// live set in memory. A failing node stops the call: nodes not yet started
// are skipped, and Run returns the first error with the node's op name
// and its Python file:line. Nodes on a device with streams are issued to
// the device's stream rather than run (Note [Pipelined graphs]); no
// stream thread ever runs a node or waits for one.
class GraphExecutor {
 public:
  static Status Create(const Graph& graph, std::unique_ptr<GraphExecutor>* out);
  ~GraphExecutor();

  // Runs the graph once. `args` has one ready tensor per graph argument;
  // `results` gets one per graph output. Thread-safe: calls may overlap.
  // When the arguments have exactly the traced shapes, nodes whose shapes
  // were fully known at trace time skip their shape function.
  // `caller` is the device the arguments live on (null: the CPU); with
  // `results_device` set, results produced elsewhere are copied there.
  Status Run(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* caller = nullptr,
             Device* results_device = nullptr) const;

  int num_nodes() const;

  struct NodeInfo;
  struct RunState;

  // Note [Graph replay] (graph_replay.cc): the device this graph could be
  // replayed on (every node a stream kernel there, static shapes), or null.
  Device* replay_device() const { return replay_device_; }

 private:
  // A draining thread's input and output lists, reused from node to node
  // (Note [Node buffers]).
  struct NodeBuffers {
    std::vector<Tensor> inputs;
    std::vector<Tensor> outputs;
  };

  // Takes the executor's spare run state, or makes one; hands it back
  // when the run is over (Note [Reused run state]).
  class RunStateLease {
   public:
    explicit RunStateLease(const GraphExecutor& executor);
    ~RunStateLease();
    RunStateLease(const RunStateLease&) = delete;
    RunStateLease& operator=(const RunStateLease&) = delete;
    RunState& state() { return *state_; }

   private:
    const GraphExecutor& executor_;
    RunState* state_;
  };

  // Note [Graph replay]: the first error a recorded kernel returned. The
  // recording's posts report here, not to a call's run state: a device
  // whose recording reruns them (the simulated accelerator) runs them
  // after that call's state is gone.
  class RecordingErrors {
   public:
    bool failed() const { return failed_.load(std::memory_order_acquire); }
    void Record(const Status& s);
    Status first() const;
    void Clear();

   private:
    mutable std::mutex mu_;
    std::atomic<bool> failed_{false};
    Status first_;
  };

  // Note [Graph replay]: the recording of this graph's call on its replay
  // device, and what a replay copies in and out.
  struct ReplayState {
    enum class Phase { kWarm, kCapture, kReplay, kOff };
    Phase phase = Phase::kWarm;
    std::vector<bool> per_call;          // parameters: copied in by each replay
    std::vector<Tensor> static_args;     // per-call arguments' buffers of the recording's own
    std::vector<const void*> arg_ptrs;   // the buffer the recording reads for each argument
    std::vector<Tensor> static_results;  // the buffers it writes the results to
    std::vector<bool> copied;            // captured values copied in as parameters are
    int recaptures = 0;
    int64_t replays = 0;                 // since the capture
    std::shared_ptr<RecordingErrors> errors = std::make_shared<RecordingErrors>();
    std::shared_ptr<DeviceGraph> graph;
  };

  explicit GraphExecutor(const Graph& graph);
  // `capturing`: the recording's errors while a capture issues the graph
  // (Note [Graph replay]); null otherwise.
  Status RunGraph(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* caller,
                  Device* results_device, const std::shared_ptr<RecordingErrors>& capturing) const;
  Status TryReplay(const std::vector<Tensor>& args, std::vector<Tensor>* results, Device* results_device,
                   bool* handled) const;
  Status Capture(ReplayState& r, const std::vector<Tensor>& args) const;
  bool CaptureOrTurnOff(ReplayState& r, const std::vector<Tensor>& args) const;
  std::vector<bool> MovedStaticArgs(const ReplayState& r, const std::vector<Tensor>& args) const;
  // Note [Moved captured values].
  static constexpr int64_t kReplaysBeforeRecapture = 8;
  static constexpr int kMaxRecaptures = 4;
  Status Replay(ReplayState& r, const std::vector<Tensor>& args, std::vector<Tensor>* results,
                Device* results_device, bool* handled) const;
  void FindReplayDevice();
  void RunNode(RunState& state, int id, std::vector<int>* local, NodeBuffers* buffers) const;
  void RunNodeNow(RunState& state, int id, std::vector<int>* local, NodeBuffers* buffers) const;
  void PostNode(RunState& state, int id, std::vector<int>* local) const;
  void RecordFailure(RunState& state, int id, const Status& s) const;
  void RunTransfer(RunState& state, int id, std::vector<int>* local) const;
  void SynchronizePosts(const RunState& state) const;
  void Complete(RunState& state, int id, const Status& s, std::vector<Tensor>* outputs,
                std::vector<int>* local) const;
  Status AllocateOutputs(const RunState& state, const NodeInfo& info, const std::vector<Tensor>& inputs,
                         std::vector<Tensor>* outputs) const;
  Status OutputShapes(const NodeInfo& info, const std::vector<Tensor>& inputs, std::vector<Shape>* shapes) const;
  void Finish(RunState& state) const;
  void Schedule(RunState& state, std::vector<int>& local, int id) const;
  void Drain(RunState& state, std::vector<int> local) const;

  std::vector<NodeInfo> nodes_;
  std::vector<int> value_offsets_;  // first flat value index of each node
  std::vector<int> initial_uses_;   // per flat value: consumers + graph outputs
  std::vector<int> arg_nodes_;      // graph argument index -> node id
  std::vector<Endpoint> outputs_;
  std::vector<int> roots_;          // op nodes without inputs
  Graph graph_;  // the executor's own copy; NodeInfo::node points into it
  // Note [Reused run state]: the last run's state, kept for the next run.
  mutable std::atomic<RunState*> spare_state_{nullptr};
  Device* replay_device_ = nullptr;
  // Note [Single-threaded runs]: every node runs on the calling thread.
  bool single_threaded_ = false;
  std::vector<bool> replay_args_;  // per argument: whether a replay reads it
  mutable std::mutex replay_mu_;
  mutable ReplayState replay_;
};

// Replays of captured graphs so far, in this process (for tests).
uint64_t GraphReplayCount();

// The device whose memory holds `value` (`expected` if its allocator made
// it).
Device* DeviceHolding(const Tensor& value, Device* expected);

// Copies `value` to `to` unless its memory is already there (or host
// memory a host-memory `to` reads in place), and waits for the copy.
Status MoveToDevice(Device* to, Tensor* value);

// The output shapes of `graph` for arguments of `arg_shapes`, by running
// each node's shape function in order: how a graph traced with unknown
// dims learns the concrete shapes of one call.
Status InferGraphShapes(const Graph& graph, const std::vector<Shape>& arg_shapes,
                        std::vector<Shape>* output_shapes);

}  // namespace ember
