// This file declares the MPI functions the collective ops call, loaded from
// the library mpi4py loaded (Note [MPI through mpi4py's library]).
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace ember::collectives {

// Note [MPI through mpi4py's library]
// Ember does not link MPI. Python's mpi4py loads one (the `mpich` wheel's,
// or a system MPI it was built against) and initializes it; the collective
// ops then call the same library, found among the process's loaded objects
// and opened again with RTLD_NOLOAD, so both sides share one MPI state.
// Every handle (communicator, datatype, reduction, request) crosses from
// Python as the integer mpi4py reports for it (`Comm.handle`, ...), so
// Ember needs no MPI header, no constant of any ABI, and works with any
// MPI that mpi4py does. What does differ between ABIs is the C type of a
// handle: MPICH's are `int`, Open MPI's and the MPI 5 standard ABI's are
// pointers. The calls go through function pointers of the matching type
// (mpi_library.cc instantiates both), chosen by the handle's size, which
// Python reads from mpi4py (`MPI._sizeof(MPI.Comm)`). A status is never
// read: each call gets a zeroed buffer larger than any ABI's MPI_Status.
class MpiFunctions {
 public:
  using Handle = uint64_t;  // a handle's value, as mpi4py reports it
  // Room for an MPI_Request of either ABI (an int or a pointer).
  struct Request {
    uint64_t storage = 0;
  };

  virtual ~MpiFunctions() = default;
  // Each returns MPI's error code (0 is MPI_SUCCESS).
  virtual int Iallreduce(const void* send, void* receive, int count, Handle datatype, Handle op, Handle comm,
                         Request* request) const = 0;
  virtual int Iallgather(const void* send, int count, Handle datatype, void* receive, Handle comm,
                         Request* request) const = 0;
  virtual int Ibcast(void* buffer, int count, Handle datatype, int root, Handle comm, Request* request) const = 0;
  // `count` elements of the result for each worker.
  virtual int IreduceScatterBlock(const void* send, void* receive, int count, Handle datatype, Handle op,
                                  Handle comm, Request* request) const = 0;
  // `count` elements to and from each worker.
  virtual int Ialltoall(const void* send, int count, Handle datatype, void* receive, Handle comm,
                        Request* request) const = 0;
  virtual int Test(Request* request, bool* done) const = 0;

  // MPI_Type_contiguous of `count` `element`s, committed. MPI never splits
  // one element of a datatype between calls of a reduction.
  virtual int ContiguousType(int count, Handle element, Handle* type) const = 0;
  // A user-defined reduction: `count` elements of `inout` become their
  // combination with `in`'s.
  using Reducer = void (*)(const void* in, void* inout, int count);
  // MPI_Op_create of a commutative op calling `reducer`. A process has one
  // such reducer (the ABI's trampoline holds it): a second, different one
  // is refused (MPI_ERR_OP's usual value, 9).
  virtual int CreateOp(Reducer reducer, Handle* op) const = 0;
};

// Finds the MPI library among the loaded objects and its functions.
// `handle_bytes` is sizeof(MPI_Comm) in its ABI: 4 or 8. Safe to call
// again; the first success stays. `library` receives the library's path.
Status AttachMpi(int handle_bytes, std::string* library);

// The attached functions, or null before AttachMpi succeeded.
const MpiFunctions* Mpi();

}  // namespace ember::collectives
