// This file implements Communicator: checked, polled MPI collectives
// (Note [Collective ops]).
#include "collectives/communicator.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <thread>
#include <type_traits>
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

// The packet's MPI datatype and op (Note [Check packets]), made once per
// process on first use and kept until MPI_Finalize frees them.
struct PacketMpi {
  Status status;
  MpiFunctions::Handle type = 0;
  MpiFunctions::Handle op = 0;
};

// One payload element of `in` combined into `into`'s: NaN propagates
// through MAX and MIN, and integers wrap as MPI's SUM does.
template <typename T>
T CombineElement(T in, T into, Reduction reduction) {
  if constexpr (std::is_floating_point_v<T>) {
    switch (reduction) {
      case Reduction::kSum: return in + into;
      case Reduction::kMax: return std::isnan(in) || in > into ? in : into;
      case Reduction::kMin: return std::isnan(in) || in < into ? in : into;
    }
  } else {
    using U = std::make_unsigned_t<T>;
    switch (reduction) {
      case Reduction::kSum: return static_cast<T>(static_cast<U>(in) + static_cast<U>(into));
      case Reduction::kMax: return in > into ? in : into;
      case Reduction::kMin: return in < into ? in : into;
    }
  }
  return into;
}

// `count` elements of the payload: copied out and back, as the packet
// stores int64 words.
template <typename T, int kPayloadBytes>
void CombinePayload(const unsigned char* in, unsigned char* into, int64_t count, Reduction reduction) {
  constexpr int64_t kMax = kPayloadBytes / sizeof(T);
  if (count < 0 || count > kMax) return;
  T a[kMax];
  T b[kMax];
  const size_t bytes = static_cast<size_t>(count) * sizeof(T);
  std::memcpy(a, in, bytes);
  std::memcpy(b, into, bytes);
  for (int64_t i = 0; i < count; ++i) b[i] = CombineElement(a[i], b[i], reduction);
  std::memcpy(into, b, bytes);
}

bool PayloadDType(DType dtype) {
  return dtype == DType::kFloat32 || dtype == DType::kFloat64 || dtype == DType::kInt32 || dtype == DType::kInt64;
}

// `words` int64 words a packet, reduced by `reducer`.
const PacketMpi& PacketMpiOnce(int words, MpiFunctions::Handle int64_type, MpiFunctions::Reducer reducer) {
  static const PacketMpi made = [&] {
    PacketMpi packet;
    int rc = Mpi()->ContiguousType(words, int64_type, &packet.type);
    if (rc != 0) {
      packet.status = Internal("MPI_Type_contiguous for the check packets failed with MPI error " + std::to_string(rc));
      return packet;
    }
    rc = Mpi()->CreateOp(reducer, &packet.op);
    if (rc != 0) packet.status = Internal("MPI_Op_create for the check packets failed with MPI error " + std::to_string(rc));
    return packet;
  }();
  return made;
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
  if (CarriesPayload(in)) return Run(Kind::kAllReduce, "all_reduce", in, out, static_cast<int>(reduction), nullptr);
  return Run(Kind::kAllReduce, "all_reduce", in, out, static_cast<int>(reduction),
             [&](MpiFunctions::Request* request) {
               return Mpi()->Iallreduce(in.raw_data(), out.raw_data(), count, datatype, op, spec_.comm, request);
             });
}

Status Communicator::AllGather(const Tensor& in, Tensor& out) {
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(out.NumBytes()), "bytes"));
  const int count = static_cast<int>(in.NumBytes());
  return Run(Kind::kAllGather, "all_gather", in, out, kNoReduction, [&](MpiFunctions::Request* request) {
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
  return Run(Kind::kBroadcast, "broadcast", in, out, kNoReduction, [&](MpiFunctions::Request* request) {
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
  return Run(Kind::kReduceScatter, "reduce_scatter", in, out, static_cast<int>(reduction),
             [&](MpiFunctions::Request* request) {
               return Mpi()->IreduceScatterBlock(in.raw_data(), out.raw_data(), count, datatype, op, spec_.comm,
                                                 request);
             });
}

Status Communicator::AllToAll(const Tensor& in, Tensor& out) {
  EMBER_RETURN_IF_ERROR(CheckBlocks(in, out, "all_to_all"));
  EMBER_RETURN_IF_ERROR(CheckCount(static_cast<uint64_t>(in.NumBytes()), "bytes"));
  const int count = static_cast<int>(in.NumBytes() / static_cast<size_t>(spec_.size));
  return Run(Kind::kAllToAll, "all_to_all", in, out, kNoReduction, [&](MpiFunctions::Request* request) {
    return Mpi()->Ialltoall(in.raw_data(), count, spec_.byte_type, out.raw_data(), spec_.comm, request);
  });
}

Status Communicator::Barrier(const Tensor& in, Tensor& out) {
  if (in.dtype() != DType::kInt64 || in.NumElements() != 1) return InvalidArgument("barrier takes one int64");
  const int sum = static_cast<int>(Reduction::kSum);
  if (CarriesPayload(in)) return Run(Kind::kBarrier, "barrier", in, out, sum, nullptr);
  return Run(Kind::kBarrier, "barrier", in, out, sum, [&](MpiFunctions::Request* request) {
    return Mpi()->Iallreduce(in.raw_data(), out.raw_data(), 1, spec_.int64_type,
                             spec_.ops[static_cast<int>(Reduction::kSum)], spec_.comm, request);
  });
}

bool Communicator::CarriesPayload(const Tensor& in) const {
  return spec_.check && PayloadDType(in.dtype()) && in.NumBytes() <= static_cast<size_t>(kPayloadBytes);
}

void Communicator::ReducePackets(const void* in, void* inout, int count) {
  Packet a;
  Packet b;
  for (int i = 0; i < count; ++i) {
    unsigned char* into = static_cast<unsigned char*>(inout) + static_cast<size_t>(i) * sizeof(Packet);
    std::memcpy(a.data(), static_cast<const unsigned char*>(in) + static_cast<size_t>(i) * sizeof(Packet),
                sizeof(Packet));
    std::memcpy(b.data(), into, sizeof(Packet));
    CombinePackets(a, b);
    std::memcpy(into, b.data(), sizeof(Packet));
  }
}

void Communicator::CombinePackets(const Packet& in, Packet& inout) {
  // Each partial packet agrees with itself where every worker it covers
  // sent the same words (MAX equals -MAX of the negation).
  bool agree = true;
  for (int w = 0; w < kWords; ++w) {
    agree = agree && in[w] == -in[kWords + w] && inout[w] == -inout[kWords + w] && in[w] == inout[w];
  }
  if (agree && in[kPayloadWord] > 0 && in[kReductionWord] > 0) {
    const auto* from = reinterpret_cast<const unsigned char*>(in.data() + 2 * kWords);
    auto* into = reinterpret_cast<unsigned char*>(inout.data() + 2 * kWords);
    const auto reduction = static_cast<Reduction>(in[kReductionWord] - 1);
    const int64_t count = in[kPayloadWord];
    switch (static_cast<DType>(in[kDTypeWord])) {
      case DType::kFloat32: CombinePayload<float, kPayloadBytes>(from, into, count, reduction); break;
      case DType::kFloat64: CombinePayload<double, kPayloadBytes>(from, into, count, reduction); break;
      case DType::kInt32: CombinePayload<int32_t, kPayloadBytes>(from, into, count, reduction); break;
      case DType::kInt64: CombinePayload<int64_t, kPayloadBytes>(from, into, count, reduction); break;
      default: break;  // never carried (PayloadDType)
    }
  }
  for (int w = 0; w < 2 * kWords; ++w) inout[w] = std::max(in[w], inout[w]);
}

Status Communicator::Run(Kind kind, const char* what, const Tensor& in, const Tensor& out, int reduction,
                         const Start& start) {
  if (Mpi() == nullptr) return FailedPrecondition("MPI is not attached (ember.distribute attaches it)");
  std::lock_guard<std::mutex> lock(mu_);
  if (!failed_.ok()) return failed_;
  ++calls_;
  const std::string label = Label(what);
  const bool carried = start == nullptr;  // the data ride in the check packet
  MpiFunctions::Request requests[2];
  int num_requests = 0;
  // On the heap: after a failure MPI may still write into it.
  auto packets = std::make_unique<Packets>();
  Packet& mine = packets->send;
  if (spec_.check) {
    const PacketMpi& packet_mpi = PacketMpiOnce(kPacketWords, spec_.int64_type, &Communicator::ReducePackets);
    EMBER_RETURN_IF_ERROR(packet_mpi.status);
    mine[kKindWord] = static_cast<int64_t>(kind);
    mine[kCallWord] = calls_;
    mine[kReductionWord] = reduction == kNoReduction ? 0 : reduction + 1;
    mine[kDTypeWord] = static_cast<int64_t>(in.dtype());
    mine[kRankWord] = in.rank();
    if (in.rank() <= kCheckedDims) {
      for (int d = 0; d < in.rank(); ++d) mine[kDimsWord + d] = in.dim(d);
    } else {
      mine[kDimsWord] = in.NumElements();
    }
    if (carried) {
      mine[kPayloadWord] = in.NumElements();
      if (in.NumBytes() > 0) std::memcpy(mine.data() + 2 * kWords, in.raw_data(), in.NumBytes());
    }
    for (int i = 0; i < kWords; ++i) mine[kWords + i] = -mine[i];
    const int rc = Mpi()->Iallreduce(mine.data(), packets->receive.data(), 1, packet_mpi.type, packet_mpi.op,
                                     spec_.check_comm, &requests[0]);
    if (rc != 0) return Internal(label + ": MPI_Iallreduce of the check packet failed with MPI error " + std::to_string(rc));
    ++num_requests;
  }
  if (!carried) {
    const int rc = start(&requests[num_requests]);
    if (rc != 0) {
      Status error = Internal(label + ": MPI failed with error " + std::to_string(rc));
      if (num_requests > 0) abandoned_words_.push_back(std::move(packets));
      return num_requests > 0 ? Fail(error, in, out) : error;
    }
    ++num_requests;
  }
  // The check first: where the workers disagree, the data request may
  // never finish (polling one request moves both along).
  Status s = Wait(requests, spec_.check ? 1 : num_requests, label);
  if (s.ok() && spec_.check) {
    const Packet& seen = packets->receive;
    bool same = true;
    for (int i = 0; i < kWords; ++i) same = same && seen[i] == -seen[kWords + i];
    if (!same) s = InvalidArgument(label + ": " + MismatchDetail(seen, mine));
    if (s.ok() && carried && in.NumBytes() > 0) {
      std::memcpy(out.raw_data(), seen.data() + 2 * kWords, in.NumBytes());
    }
    if (s.ok() && !carried) s = Wait(requests + 1, 1, label);
  }
  if (!s.ok()) {
    abandoned_words_.push_back(std::move(packets));
    return Fail(s, in, out);
  }
  return Status::OK();
}

std::string Communicator::MismatchDetail(const Packet& seen, const Packet& mine) {
  auto high = [&](int i) { return seen[i]; };
  auto low = [&](int i) { return -seen[kWords + i]; };
  if (high(kKindWord) != low(kKindWord) || high(kCallWord) != low(kCallWord)) {
    return "workers called different collectives at this point (every worker must make the same calls)";
  }
  if (high(kReductionWord) != low(kReductionWord)) return "the workers asked for different reductions";
  if (high(kDTypeWord) != low(kDTypeWord)) return "the workers' values have different dtypes";
  std::string shape = "(";
  if (mine[kRankWord] <= kCheckedDims) {
    for (int d = 0; d < mine[kRankWord]; ++d) shape += (d ? ", " : "") + std::to_string(mine[kDimsWord + d]);
    if (mine[kRankWord] == 1) shape += ",";  // as Python writes a 1-tuple
  } else {
    shape += std::to_string(mine[kDimsWord]) + " elements";
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
