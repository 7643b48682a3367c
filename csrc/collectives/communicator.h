// This file declares Communicator: the workers of an MPI job as the
// collective ops see them (Note [Collective ops]).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectives/mpi_library.h"
#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"

namespace ember::collectives {

// Note [Collective ops]
// The collective ops (op_defs/collective.yaml: all_reduce, all_gather,
// broadcast, reduce_scatter, all_to_all) are ordinary ops: they go through Execute, run
// on the CPU device's executor, and are nodes of traced functions. Their
// `communicator` attr names a Communicator registered here by
// ember.distribute's MpiCollectives, which made it from two duplicates of
// its MPI communicator (one for the data, one for the checks), so these
// calls never match mpi4py calls made elsewhere in the process.
//
// Every worker must start the same collectives in the same order. The ops
// are stateful, so a trace chains them in program order (Note [Tracing]);
// eagerly, the executor runs them in the order they were issued; and one
// communicator runs one collective at a time (its mutex), so two threads
// of one process cannot interleave their calls differently on two
// workers.
//
// A call is checked as MpiCollectives checks its own (Note [Checked
// collectives] in ember/distribute/_mpi_collectives.py): the workers
// all-reduce (MAX) a few words describing it (kind, sequence number,
// reduction, dtype, shape) and their negation on the check communicator,
// started together with the data request; unequal words are a ValueError
// naming what differs, instead of a wrong result or a hang. Note [Check
// packets] says how a small all-reduce rides in the check. The wait polls both
// requests as Note [Polling collectives] describes: spinning first, then
// sleeping between polls, and from then on asking the Python side's
// WorkerWatch, about every 10 ms, whether a worker is known lost (Note
// [Lost workers]); at the deadline it asks for the roll call that names
// the lost ranks. A failure leaves MPI requests unfinished, whose buffers
// MPI may still write: the communicator keeps them, and fails every later
// call with the same error, as the workers are out of step for good.

// Note [Check packets]
// The check words travel in a packet of fixed size, one element of an MPI
// datatype made for it, reduced by a user-defined op (ReducePackets): MAX
// over the words and their negation, as before. The packet also has room
// for kPayloadBytes of data: an all-reduce (or barrier) that small rides in
// it, and the op reduces the payload too, but only where the two partial
// packets it combines agree on every word, so it never reads a payload as
// another dtype or length than it is. One MPI call per small collective
// instead of two: the check doubled the latency of a 4-byte all-reduce.
// Every checked call, carried or not, sends one packet of the same size, so
// workers that disagree (a 4-byte call against a 4 MiB one) still meet in
// the check and get its error. The payload's reduction propagates NaN
// (NumPy's maximum and minimum); MPI's own MAX and MIN, which larger calls
// use, leave NaN unspecified.

enum class Reduction : int { kSum, kMax, kMin };
Status ParseReduction(const std::string& name, Reduction* out);

// What Python's MpiCollectives hands over: the integer values mpi4py
// reports for the handles (Note [MPI through mpi4py's library]).
struct CommunicatorSpec {
  MpiFunctions::Handle comm = 0;        // the data requests
  MpiFunctions::Handle check_comm = 0;  // the check words
  int rank = 0;
  int size = 1;
  bool check = true;
  double timeout_s = 60;
  // Indexed by DType: the MPI datatype for all_reduce (0: none). Gathers
  // and broadcasts move bytes, with `byte_type`.
  std::array<MpiFunctions::Handle, kNumDTypes> datatypes{};
  MpiFunctions::Handle byte_type = 0;
  MpiFunctions::Handle int64_type = 0;  // the check words
  std::array<MpiFunctions::Handle, 3> ops{};  // by Reduction
  // Asked while a call waits (see the Note): OK, or the error that names
  // the lost workers. `deadline_passed` asks for the roll call. Called
  // from the kernel's thread; the callee takes the GIL.
  std::function<Status(const std::string& what, bool deadline_passed)> check_faults;
};

class Communicator {
 public:
  explicit Communicator(CommunicatorSpec spec) : spec_(std::move(spec)) {}

  int rank() const { return spec_.rank; }
  int size() const { return spec_.size; }
  double timeout_s() const { return spec_.timeout_s; }
  // The lost-worker check the waits make (see the Note): OK, or the error
  // naming the lost workers; `deadline_passed` asks for the roll call. OK
  // where the communicator has no check.
  Status CheckFaults(const std::string& what, bool deadline_passed) const {
    return spec_.check_faults ? spec_.check_faults(what, deadline_passed) : Status::OK();
  }
  // True once a failure left requests MPI may still write into.
  bool HasAbandonedRequests();

  // `out` is allocated by the caller: for all_gather, `size()` times the
  // input along dimension 0.
  Status AllReduce(const Tensor& in, Tensor& out, Reduction reduction);
  Status AllGather(const Tensor& in, Tensor& out);
  Status Broadcast(const Tensor& in, Tensor& out, int root);
  // `in`'s dimension 0 splits into size() equal blocks. ReduceScatter's
  // `out` is one block: block rank() of the reduction. AllToAll's has
  // `in`'s shape: block rank() of every worker's input, in rank order.
  Status ReduceScatter(const Tensor& in, Tensor& out, Reduction reduction);
  Status AllToAll(const Tensor& in, Tensor& out);
  // Returns once every worker called it: a sum of `in`, one int64, checked
  // as a barrier, so a barrier against another collective is reported.
  Status Barrier(const Tensor& in, Tensor& out);

 private:
  // The same numbers as MpiCollectives' _KINDS.
  enum class Kind : int64_t {
    kAllReduce = 1,
    kAllGather = 2,
    kBroadcast = 3,
    kReduceScatter = 4,
    kBarrier = 5,
    kAllToAll = 6,
  };
  static constexpr int kCheckedDims = 6;
  // The check words, by index (Note [Check packets]).
  enum Word : int {
    kKindWord,
    kCallWord,
    kReductionWord,  // 1 + Reduction, or 0
    kDTypeWord,
    kRankWord,
    kDimsWord,  // kCheckedDims dimensions, or the element count past that rank
    kPayloadWord = kDimsWord + kCheckedDims,  // elements in the payload, or 0
    kWords,
  };
  static constexpr int kPayloadBytes = 256;
  static constexpr int kPacketWords = 2 * kWords + kPayloadBytes / 8;
  using Packet = std::array<int64_t, kPacketWords>;
  struct Packets {
    Packet send{};
    Packet receive{};
  };
  static constexpr int kNoReduction = -1;

  // MPI's user-defined op over packets (Note [Check packets]).
  static void ReducePackets(const void* in, void* inout, int count);
  static void CombinePackets(const Packet& in, Packet& inout);
  // Whether `in` rides in the check packet (checked, small, a payload dtype).
  bool CarriesPayload(const Tensor& in) const;

  // A null `start` sends `in` in the check packet (CarriesPayload).
  using Start = std::function<int(MpiFunctions::Request*)>;
  Status Run(Kind kind, const char* what, const Tensor& in, const Tensor& out, int reduction, const Start& start);
  Status CheckBlocks(const Tensor& in, const Tensor& out, const char* what) const;
  Status Wait(MpiFunctions::Request* requests, int count, const std::string& what);
  Status Fail(Status status, const Tensor& in, const Tensor& out);
  std::string Label(const char* what) const;
  static std::string MismatchDetail(const Packet& seen, const Packet& mine);

  const CommunicatorSpec spec_;
  std::mutex mu_;          // one collective at a time (see the Note)
  int64_t calls_ = 0;      // under mu_
  Status failed_;          // under mu_: once set, every call returns it
  std::vector<Tensor> abandoned_;  // under mu_: buffers of unfinished requests
  // The check packets of an unfinished request live as long as its buffers.
  std::vector<std::unique_ptr<Packets>> abandoned_words_;
};

// Registered communicators, by the id the `communicator` attr holds.
int64_t RegisterCommunicator(std::shared_ptr<Communicator> communicator);
std::shared_ptr<Communicator> FindCommunicator(int64_t id);
void UnregisterCommunicator(int64_t id);

}  // namespace ember::collectives
