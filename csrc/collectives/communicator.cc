// This file implements Communicator: checked, polled MPI collectives
// (Note [Collective ops]).
#include "collectives/communicator.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <thread>
#include <unordered_map>

#include "runtime/context.h"

namespace ember::collectives {
namespace {

using Clock = std::chrono::steady_clock;

// Note [Polling collectives] (ember/distribute/_lost_workers.py) explains
// these: spin first, as a blocking MPI call would, yielding the core now
// and then; then sleep between polls.
constexpr auto kSpin = std::chrono::milliseconds(100);
constexpr int kPollsBetweenClockReads = 64;
constexpr auto kFaultCheckEvery = std::chrono::milliseconds(10);

std::mutex g_registry_mu;
int64_t g_next_id = 1;
std::unordered_map<int64_t, std::shared_ptr<Communicator>>& Registry() {
  static auto* registry = new std::unordered_map<int64_t, std::shared_ptr<Communicator>>();  // kernels may outlive exit
  return *registry;
}

Status CheckCount(uint64_t count, const char* unit) {
  if (count > static_cast<uint64_t>(INT_MAX)) {
    return Unimplemented("a collective of more than 2^31 - 1 " + std::string(unit) + " (MPI counts are C ints)");
  }
  return Status::OK();
}

}  // namespace

Status ParseReduction(const std::string& name, Reduction* out) {
  if (name == "sum") *out = Reduction::kSum;
  else if (name == "max") *out = Reduction::kMax;
  else if (name == "min") *out = Reduction::kMin;
  else return InvalidArgument("reduction must be 'sum', 'max' or 'min', got '" + name + "'");
  return Status::OK();
}

std::string Communicator::Label(const char* what) const {
  return std::string(what) + " (collective #" + std::to_string(calls_) + " of worker " + std::to_string(spec_.rank) +
         " in its graph communicator)";
}

Status Communicator::AllReduce(const Tensor& in, Tensor& out, Reduction reduction) {
  const MpiFunctions::Handle datatype = spec_.datatypes[static_cast<int>(in.dtype())];
  if (datatype == 0) return TypeError(std::string("no MPI datatype for ") + DTypeName(in.dtype()));
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(in.NumElements()), "elements"));
  const int count = static_cast<int>(in.NumElements());
  const MpiFunctions::Handle op = spec_.ops[static_cast<int>(reduction)];
  return Run(Kind::kAllReduce, "all_reduce", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->Iallreduce(in.raw_data(), out.raw_data(), count, datatype, op, spec_.comm, request);
  });
}

Status Communicator::AllGather(const Tensor& in, Tensor& out) {
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(out.NumBytes()), "bytes"));
  const int count = static_cast<int>(in.NumBytes());
  return Run(Kind::kAllGather, "all_gather", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->Iallgather(in.raw_data(), count, spec_.byte_type, out.raw_data(), spec_.comm, request);
  });
}

Status Communicator::Broadcast(const Tensor& in, Tensor& out, int root) {
  if (root < 0 || root >= spec_.size) {
    return InvalidArgument("root " + std::to_string(root) + " is not a worker of " + std::to_string(spec_.size));
  }
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(in.NumBytes()), "bytes"));
  const int count = static_cast<int>(in.NumBytes());
  // The root sends its input from the output buffer, which every worker
  // then holds the result in.
  if (spec_.rank == root && count > 0) std::memcpy(out.raw_data(), in.raw_data(), static_cast<size_t>(count));
  return Run(Kind::kBroadcast, "broadcast", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->Ibcast(out.raw_data(), count, spec_.byte_type, root, spec_.comm, request);
  });
}

Status Communicator::CheckBlocks(const Tensor& in, const Tensor& out, const char* what) const {
  if (in.rank() == 0 || in.dim(0) % spec_.size != 0) {
    return InvalidArgument(std::string(what) + ": dimension 0 of shape " + in.shape().ToString() +
                           " does not split into " + std::to_string(spec_.size) + " equal blocks, one per worker");
  }
  if (out.NumElements() * spec_.size != in.NumElements() && out.NumElements() != in.NumElements()) {
    return Internal(std::string(what) + ": the output's size does not match the input's");
  }
  return Status::OK();
}

Status Communicator::ReduceScatter(const Tensor& in, Tensor& out, Reduction reduction) {
  const MpiFunctions::Handle datatype = spec_.datatypes[static_cast<int>(in.dtype())];
  if (datatype == 0) return TypeError(std::string("no MPI datatype for ") + DTypeName(in.dtype()));
  EMBER_RETURN_IF_ERROR(CheckBlocks(in, out, "reduce_scatter"));
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(in.NumElements()), "elements"));
  const int count = static_cast<int>(in.NumElements() / spec_.size);
  const MpiFunctions::Handle op = spec_.ops[static_cast<int>(reduction)];
  return Run(Kind::kReduceScatter, "reduce_scatter", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->IreduceScatterBlock(in.raw_data(), out.raw_data(), count, datatype, op, spec_.comm, request);
  });
}

Status Communicator::AllToAll(const Tensor& in, Tensor& out) {
  EMBER_RETURN_IF_ERROR(CheckBlocks(in, out, "all_to_all"));
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(in.NumBytes()), "bytes"));
  const int count = static_cast<int>(in.NumBytes() / static_cast<size_t>(spec_.size));
  return Run(Kind::kAllToAll, "all_to_all", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->Ialltoall(in.raw_data(), count, spec_.byte_type, out.raw_data(), spec_.comm, request);
  });
}

Status Communicator::Barrier(const Tensor& in, Tensor& out) {
  if (in.dtype() != DType::kInt64 || in.NumElements() != 1) return InvalidArgument("barrier takes one int64");
  return Run(Kind::kBarrier, "barrier", in, out, [&](MpiFunctions::Request* request) {
    return Mpi()->Iallreduce(in.raw_data(), out.raw_data(), 1, spec_.int64_type,
                             spec_.ops[static_cast<int>(Reduction::kSum)], spec_.comm, request);
  });
}

Status Communicator::Run(Kind kind, const char* what, const Tensor& in, const Tensor& out, const Start& start) {
  if (Mpi() == nullptr) return FailedPrecondition("MPI is not attached (ember.distribute attaches it)");
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed_.ok()) return failed_;
  ++calls_;
  const std::string label = Label(what);
  MpiFunctions::Request requests[2];
  int num_requests = 0;
  // [0, W): this call's words; [W, 2W): their negation; [2W, 4W): the MAX.
  auto words = std::make_unique<std::array<int64_t, 4 * kWords>>();
  std::array<int64_t, kWords> mine{};
  if (spec_.check) {
    mine[0] = static_cast<int64_t>(kind);
    mine[1] = calls_;
    mine[2] = static_cast<int64_t>(in.dtype());
    mine[3] = in.rank();
    if (in.rank() <= kCheckedDims) {
      for (int d = 0; d < in.rank(); ++d) mine[4 + d] = in.dim(d);
    } else {
      mine[4] = in.NumElements();
    }
    for (int i = 0; i < kWords; ++i) {
      (*words)[i] = mine[i];
      (*words)[kWords + i] = -mine[i];
    }
    const int rc = Mpi()->Iallreduce(words->data(), words->data() + 2 * kWords, 2 * kWords, spec_.int64_type,
                                     spec_.ops[static_cast<int>(Reduction::kMax)], spec_.check_comm, &requests[0]);
    if (rc != 0) return Internal(label + ": MPI_Iallreduce of the check words failed with MPI error " + std::to_string(rc));
    ++num_requests;
  }
  const int rc = start(&requests[num_requests]);
  if (rc != 0) {
    Status error = Internal(label + ": MPI failed with error " + std::to_string(rc));
    if (num_requests > 0) abandoned_words_.push_back(std::move(words));
    return num_requests > 0 ? Fail(error, in, out) : error;
  }
  ++num_requests;
  // The check first: where the workers disagree, the data request may
  // never finish (polling one request moves both along).
  Status s = Wait(requests, spec_.check ? 1 : num_requests, label);
  if (s.ok() && spec_.check) {
    std::array<int64_t, 2 * kWords> seen;
    std::copy_n(words->data() + 2 * kWords, 2 * kWords, seen.begin());
    bool same = true;
    for (int i = 0; i < kWords; ++i) same = same && seen[i] == -seen[kWords + i];
    if (!same) s = InvalidArgument(label + ": " + MismatchDetail(seen, mine));
    if (s.ok()) s = Wait(requests + 1, 1, label);
  }
  if (!s.ok()) {
    abandoned_words_.push_back(std::move(words));
    return Fail(s, in, out);
  }
  return Status::OK();
}

std::string Communicator::MismatchDetail(const std::array<int64_t, 2 * kWords>& seen,
                                         const std::array<int64_t, kWords>& mine) {
  auto high = [&](int i) { return seen[i]; };
  auto low = [&](int i) { return -seen[kWords + i]; };
  if (high(0) != low(0) || high(1) != low(1)) {
    return "workers called different collectives at this point (every worker must make the same calls)";
  }
  if (high(2) != low(2)) return "the workers' values have different dtypes";
  std::string shape = "(";
  if (mine[3] <= kCheckedDims) {
    for (int d = 0; d < mine[3]; ++d) shape += (d ? ", " : "") + std::to_string(mine[4 + d]);
    if (mine[3] == 1) shape += ",";  // as Python writes a 1-tuple
  } else {
    shape += std::to_string(mine[4]) + " elements";
  }
  return "the workers' values have different shapes (this worker's: " + shape + "))";
}

Status Communicator::Wait(MpiFunctions::Request* requests, int count, const std::string& what) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec_.timeout_s));
  Clock::time_point next_fault_check = start + kSpin;
  int done = 0;  // requests before it have finished
  int polls = 0;
  for (;;) {
    while (done < count) {
      bool finished = false;
      const int rc = Mpi()->Test(&requests[done], &finished);
      if (rc != 0) return Internal(what + ": MPI_Test failed with MPI error " + std::to_string(rc));
      if (!finished) break;
      ++done;
    }
    if (done == count) return Status::OK();
    if (++polls % kPollsBetweenClockReads != 0) continue;
    const Clock::time_point now = Clock::now();
    if (CancellationRequested()) return Cancelled(what + ": cancelled by a KeyboardInterrupt");
    if (now - start < kSpin) {
      sched_yield();  // a worker sharing this core may be the one everybody waits for
      continue;
    }
    polls = kPollsBetweenClockReads - 1;  // from now on the checks run at every poll, between sleeps
    const bool deadline_passed = now > deadline;
    if ((now >= next_fault_check || deadline_passed) && spec_.check_faults) {
      EMBER_RETURN_IF_ERROR(spec_.check_faults(what, deadline_passed));
      next_fault_check = now + kFaultCheckEvery;
    }
    if (deadline_passed) {
      return DeadlineExceeded(what + ": not every worker joined within EMBER_COLLECTIVE_TIMEOUT=" +
                              std::to_string(spec_.timeout_s) +
                              "s (every worker must make the same collectives, in the same order)");
    }
    std::this_thread::sleep_for(now - start < std::chrono::seconds(1) ? std::chrono::microseconds(100)
                                                                      : std::chrono::microseconds(1000));
  }
}

Status Communicator::Fail(Status status, const Tensor& in, const Tensor& out) {
  abandoned_.push_back(in);
  abandoned_.push_back(out);
  failed_ = status;
  return status;
}

int64_t RegisterCommunicator(std::shared_ptr<Communicator> communicator) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  const int64_t id = g_next_id++;
  Registry()[id] = std::move(communicator);
  return id;
}

std::shared_ptr<Communicator> FindCommunicator(int64_t id) {
  std::lock_guard<std::mutex> lock(g_registry_mu);
  auto it = Registry().find(id);
  return it == Registry().end() ? nullptr : it->second;
}

bool Communicator::HasAbandonedRequests() {
  std::lock_guard<std::mutex> lock(mu_);
  return !abandoned_.empty() || !abandoned_words_.empty();
}

void UnregisterCommunicator(int64_t id) {
  std::shared_ptr<Communicator> last;  // released outside the lock
  {
    std::lock_guard<std::mutex> lock(g_registry_mu);
    auto it = Registry().find(id);
    if (it == Registry().end()) return;
    last = std::move(it->second);
    Registry().erase(it);
  }
  // MPI may still write into the buffers of a failed call's requests:
  // those stay allocated until the process ends.
  if (last->HasAbandonedRequests()) {
    static auto* kept = new std::vector<std::shared_ptr<Communicator>>();
    std::lock_guard<std::mutex> lock(g_registry_mu);
    kept->push_back(std::move(last));
  }
}

}  // namespace ember::collectives
