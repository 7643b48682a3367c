// This file implements AttachMpi: the MPI functions of the library mpi4py
// loaded, called through the handle type of its ABI.
#include "collectives/mpi_library.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ember::collectives {
namespace {

// Larger than MPI_Status in every ABI (MPICH 20 bytes, Open MPI 24, the
// standard ABI 32).
struct IgnoredStatus {
  alignas(16) unsigned char bytes[128] = {};
};

// The functions of one ABI, whose handles are of C type H (int or a pointer).
template <typename H>
class TypedMpiFunctions final : public MpiFunctions {
 public:
  using IallreduceFn = int (*)(const void*, void*, int, H, H, H, H*);
  using IallgatherFn = int (*)(const void*, int, H, void*, int, H, H, H*);
  using IbcastFn = int (*)(void*, int, H, int, H, H*);
  using IreduceScatterBlockFn = int (*)(const void*, void*, int, H, H, H, H*);
  using IalltoallFn = int (*)(const void*, int, H, void*, int, H, H, H*);
  using TestFn = int (*)(H*, int*, void*);
  using TypeContiguousFn = int (*)(int, H, H*);
  using TypeCommitFn = int (*)(H*);
  using UserFunction = void (*)(void*, void*, int*, H*);
  using OpCreateFn = int (*)(UserFunction, int, H*);

  explicit TypedMpiFunctions(void* library)
      : iallreduce_(reinterpret_cast<IallreduceFn>(dlsym(library, "MPI_Iallreduce"))),
        iallgather_(reinterpret_cast<IallgatherFn>(dlsym(library, "MPI_Iallgather"))),
        ibcast_(reinterpret_cast<IbcastFn>(dlsym(library, "MPI_Ibcast"))),
        ireduce_scatter_block_(
            reinterpret_cast<IreduceScatterBlockFn>(dlsym(library, "MPI_Ireduce_scatter_block"))),
        ialltoall_(reinterpret_cast<IalltoallFn>(dlsym(library, "MPI_Ialltoall"))),
        test_(reinterpret_cast<TestFn>(dlsym(library, "MPI_Test"))),
        type_contiguous_(reinterpret_cast<TypeContiguousFn>(dlsym(library, "MPI_Type_contiguous"))),
        type_commit_(reinterpret_cast<TypeCommitFn>(dlsym(library, "MPI_Type_commit"))),
        op_create_(reinterpret_cast<OpCreateFn>(dlsym(library, "MPI_Op_create"))) {}

  bool complete() const {
    return iallreduce_ && iallgather_ && ibcast_ && ireduce_scatter_block_ && ialltoall_ && test_ &&
           type_contiguous_ && type_commit_ && op_create_;
  }

  int Iallreduce(const void* send, void* receive, int count, Handle datatype, Handle op, Handle comm,
                 Request* request) const override {
    return iallreduce_(send, receive, count, Of(datatype), Of(op), Of(comm), Slot(request));
  }
  int Iallgather(const void* send, int count, Handle datatype, void* receive, Handle comm,
                 Request* request) const override {
    return iallgather_(send, count, Of(datatype), receive, count, Of(datatype), Of(comm), Slot(request));
  }
  int Ibcast(void* buffer, int count, Handle datatype, int root, Handle comm, Request* request) const override {
    return ibcast_(buffer, count, Of(datatype), root, Of(comm), Slot(request));
  }
  int IreduceScatterBlock(const void* send, void* receive, int count, Handle datatype, Handle op, Handle comm,
                          Request* request) const override {
    return ireduce_scatter_block_(send, receive, count, Of(datatype), Of(op), Of(comm), Slot(request));
  }
  int Ialltoall(const void* send, int count, Handle datatype, void* receive, Handle comm,
                Request* request) const override {
    return ialltoall_(send, count, Of(datatype), receive, count, Of(datatype), Of(comm), Slot(request));
  }
  int Test(Request* request, bool* done) const override {
    int flag = 0;
    IgnoredStatus status;
    const int rc = test_(Slot(request), &flag, status.bytes);
    *done = flag != 0;
    return rc;
  }
  int ContiguousType(int count, Handle element, Handle* type) const override {
    H made{};
    int rc = type_contiguous_(count, Of(element), &made);
    if (rc == 0) rc = type_commit_(&made);
    *type = ValueOf(made);
    return rc;
  }
  int CreateOp(Reducer reducer, Handle* op) const override {
    Reducer expected = nullptr;
    if (!reducer_.compare_exchange_strong(expected, reducer) && expected != reducer) return kErrOp;
    H made{};
    const int rc = op_create_(&Trampoline, /*commute=*/1, &made);
    *op = ValueOf(made);
    return rc;
  }

 private:
  static_assert(sizeof(H) <= sizeof(Request::storage));
  static H Of(Handle value) {
    if constexpr (std::is_pointer_v<H>) {
      return reinterpret_cast<H>(static_cast<uintptr_t>(value));
    } else {
      return static_cast<H>(static_cast<int64_t>(value));  // mpi4py reports MPICH's handles as C ints
    }
  }
  static Handle ValueOf(H handle) {
    if constexpr (std::is_pointer_v<H>) {
      return static_cast<Handle>(reinterpret_cast<uintptr_t>(handle));
    } else {
      return static_cast<Handle>(static_cast<int64_t>(handle));  // sign-extended, as mpi4py reports it
    }
  }
  // MPI calls a user-defined op with its ABI's datatype handle, which the
  // reducer does not need.
  static void Trampoline(void* in, void* inout, int* count, H*) { reducer_.load()(in, inout, *count); }
  static constexpr int kErrOp = 9;
  static inline std::atomic<Reducer> reducer_{nullptr};

  // The request lives at the start of the slot; MPI writes it, Test reads it.
  static H* Slot(Request* request) { return reinterpret_cast<H*>(&request->storage); }

  IallreduceFn iallreduce_;
  IallgatherFn iallgather_;
  IbcastFn ibcast_;
  IreduceScatterBlockFn ireduce_scatter_block_;
  IalltoallFn ialltoall_;
  TestFn test_;
  TypeContiguousFn type_contiguous_;
  TypeCommitFn type_commit_;
  OpCreateFn op_create_;
};

struct Found {
  std::vector<std::string> paths;
};

// The loaded objects whose file name starts with "libmpi" (libmpi.so.12 of
// MPICH and Intel MPI, libmpi.so.40 of Open MPI, libmpi_abi.so.1).
int CollectMpiLibraries(struct dl_phdr_info* info, size_t, void* data) {
  if (info->dlpi_name == nullptr) return 0;
  const std::string_view path(info->dlpi_name);
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.substr(0, 6) == "libmpi" && name.find(".so") != std::string_view::npos) {
    static_cast<Found*>(data)->paths.emplace_back(path);
  }
  return 0;
}

std::mutex g_attach_mu;
std::unique_ptr<MpiFunctions> g_functions;  // written once, under g_attach_mu
std::atomic<const MpiFunctions*> g_attached{nullptr};
std::string g_library;

template <typename H>
std::unique_ptr<MpiFunctions> Load(void* library) {
  auto functions = std::make_unique<TypedMpiFunctions<H>>(library);
  if (!functions->complete()) return nullptr;
  return functions;
}

}  // namespace

Status AttachMpi(int handle_bytes, std::string* library) {
  std::lock_guard<std::mutex> lock(g_attach_mu);
  if (g_attached.load() != nullptr) {
    *library = g_library;
    return Status::OK();
  }
  if (handle_bytes != 4 && handle_bytes != 8) {
    return InvalidArgument("MPI handles of " + std::to_string(handle_bytes) + " bytes: expected 4 (MPICH) or 8");
  }
  Found found;
  dl_iterate_phdr(&CollectMpiLibraries, &found);
  for (const std::string& path : found.paths) {
    // Only a library already loaded (by mpi4py): this never loads another MPI.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) continue;
    std::unique_ptr<MpiFunctions> functions = handle_bytes == 4 ? Load<int>(handle) : Load<void*>(handle);
    if (functions == nullptr) {
      dlclose(handle);
      continue;
    }
    // The handle stays open: the library must outlive every call.
    g_functions = std::move(functions);
    g_library = path;
    g_attached.store(g_functions.get());
    *library = path;
    return Status::OK();
  }
  return NotFound(found.paths.empty()
                      ? std::string("no MPI library is loaded in this process (mpi4py loads one when it is imported)")
                      : "none of the loaded MPI libraries (" + found.paths.front() +
                            ", ...) has the nonblocking collectives (MPI_Iallreduce)");
}

const MpiFunctions* Mpi() { return g_attached.load(std::memory_order_acquire); }

}  // namespace ember::collectives
