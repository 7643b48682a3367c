// This file declares CudaApi: the few CUDA runtime calls the GPU device
// runtime makes, behind an interface, so the runtime's logic (streams,
// events, memory, copies, failures) is plain C++ that tests drive without
// a GPU through a fake (tests/cpp/cuda/fake_cuda_api.h).
#pragma once

#include <cstddef>
#include <string>

#include "core/status.h"

namespace ember::cuda {

// Note [CUDA API seam]
// The device runtime (CudaStream, CudaDevice, CudaMemory) never includes a
// CUDA header: it calls the CUDA runtime through CudaApi, whose real
// implementation (RealCudaApi, cuda_runtime_api.cc) is a line per call.
// That is what lets CI, which has the CUDA toolkit but no GPU, run the
// runtime's ordering, lifetime, out-of-memory and failure logic against
// FakeCudaApi, a host-thread model of streams and events, and catch its
// mistakes before a GPU ever runs it. Kernels (csrc/kernels/cuda/) call
// CUDA directly: only a GPU can run them.
//
// Results are CUDA's own error codes (cudaError_t as an int), so the real
// implementation passes them through and the fake returns the same
// numbers; the constants below are the ones the runtime tells apart.
using ApiResult = int;
inline constexpr ApiResult kSuccess = 0;
inline constexpr ApiResult kErrorMemoryAllocation = 2;  // cudaErrorMemoryAllocation
inline constexpr ApiResult kErrorNotReady = 600;        // cudaErrorNotReady
inline constexpr ApiResult kErrorIllegalAddress = 700;  // cudaErrorIllegalAddress
inline constexpr ApiResult kErrorLaunchFailure = 719;   // cudaErrorLaunchFailure

// Opaque handles: cudaStream_t, cudaEvent_t, cudaGraph_t and
// cudaGraphExec_t for the real API.
using StreamHandle = void*;
using EventHandle = void*;
using GraphHandle = void*;
using GraphExecHandle = void*;

// Note [Sticky CUDA errors]
// Some CUDA errors leave the context unusable: every later call in the
// process fails with the same error (an illegal address, a kernel that
// trapped or timed out, a hardware fault). Others are reported once and
// leave the device usable (out of memory, a bad launch configuration, an
// invalid value). The runtime marks a device failed on the first sticky
// error and answers every later use with that error, never a hang;
// non-sticky errors fail only the op that met them.
bool IsStickyError(ApiResult result);

class CudaApi {
 public:
  virtual ~CudaApi() = default;

  virtual ApiResult GetDeviceCount(int* count) = 0;
  // Makes `device` current on the calling thread (cheap if it already is).
  virtual ApiResult SetDevice(int device) = 0;
  virtual ApiResult GetDeviceName(int device, std::string* name) = 0;
  // Multiprocessors of `device`: kernels size their grids from it.
  virtual ApiResult GetMultiprocessorCount(int device, int* count) = 0;
  virtual ApiResult MemGetInfo(size_t* free_bytes, size_t* total_bytes) = 0;

  // Device memory of the current device.
  virtual ApiResult Malloc(void** ptr, size_t bytes) = 0;
  virtual ApiResult Free(void* ptr) = 0;
  // Page-locked host memory, usable by every device's copy engines.
  virtual ApiResult HostAlloc(void** ptr, size_t bytes) = 0;
  virtual ApiResult HostFree(void* ptr) = 0;

  // Non-blocking streams (they never wait for the legacy default stream).
  virtual ApiResult StreamCreate(StreamHandle* stream) = 0;
  virtual ApiResult StreamDestroy(StreamHandle stream) = 0;
  // Events without timing (cheaper to record).
  virtual ApiResult EventCreate(EventHandle* event) = 0;
  virtual ApiResult EventDestroy(EventHandle event) = 0;
  virtual ApiResult EventRecord(EventHandle event, StreamHandle stream) = 0;
  // kSuccess if the work before the event's latest record finished,
  // kErrorNotReady if not, an error code if the device failed.
  virtual ApiResult EventQuery(EventHandle event) = 0;
  // Later work on `stream` starts after `event`'s latest record (on the
  // device; returns at once).
  virtual ApiResult StreamWaitEvent(StreamHandle stream, EventHandle event) = 0;
  // A copy in `stream`'s order; source and destination may be host or
  // device memory of any device (unified addressing).
  virtual ApiResult MemcpyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) = 0;
  // Sets `bytes` bytes at `dst` (device memory) to `value`, in stream order.
  virtual ApiResult MemsetAsync(void* dst, int value, size_t bytes, StreamHandle stream) = 0;
  // Stream capture (docs/devices.md, "CUDA graphs for functions"): from
  // BeginCapture to EndCapture the work issued to `stream` is recorded
  // into a graph instead of run. Relaxed mode: other threads' calls, and
  // cudaMalloc on this one, stay legal meanwhile.
  virtual ApiResult StreamBeginCapture(StreamHandle stream) = 0;
  virtual ApiResult StreamEndCapture(StreamHandle stream, GraphHandle* graph) = 0;
  virtual ApiResult GraphInstantiate(GraphExecHandle* exec, GraphHandle graph) = 0;
  // Runs the whole graph in `stream`'s order, as one launch.
  virtual ApiResult GraphLaunch(GraphExecHandle exec, StreamHandle stream) = 0;
  virtual ApiResult GraphExecDestroy(GraphExecHandle exec) = 0;
  virtual ApiResult GraphDestroy(GraphHandle graph) = 0;
  // Clears and returns the calling thread's last error (a kernel launch's).
  virtual ApiResult GetLastError() = 0;

  virtual std::string ErrorName(ApiResult result) = 0;
  virtual std::string ErrorString(ApiResult result) = 0;

  // "cudaMemcpyAsync failed: cudaErrorIllegalAddress (an illegal memory
  // access was encountered)", as the status a failed call turns into: out
  // of memory as ResourceExhausted, the rest as Internal.
  Status ToStatus(ApiResult result, const char* what);
};

// The CUDA runtime itself (defined only in builds with CUDA).
CudaApi* RealCudaApi();

}  // namespace ember::cuda
