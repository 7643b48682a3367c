// This file implements RealCudaApi: CudaApi over the CUDA runtime (Note
// [CUDA API seam] in cuda_api.h), a line per call.
#include <cuda_runtime_api.h>

#include "devices/cuda/cuda_api.h"

namespace ember::cuda {
namespace {

static_assert(kErrorMemoryAllocation == cudaErrorMemoryAllocation);
static_assert(kErrorNotReady == cudaErrorNotReady);
static_assert(kErrorIllegalAddress == cudaErrorIllegalAddress);
static_assert(kErrorLaunchFailure == cudaErrorLaunchFailure);
static_assert(cudaErrorECCUncorrectable == 214 && cudaErrorLaunchTimeout == 702 && cudaErrorAssert == 710 &&
              cudaErrorHardwareStackError == 714 && cudaErrorIllegalInstruction == 715 &&
              cudaErrorMisalignedAddress == 716 && cudaErrorInvalidAddressSpace == 717 &&
              cudaErrorInvalidPc == 718 && cudaErrorUnknown == 999,
              "IsStickyError's codes (cuda_api.cc) must match driver_types.h");

cudaStream_t S(StreamHandle s) { return static_cast<cudaStream_t>(s); }
cudaEvent_t E(EventHandle e) { return static_cast<cudaEvent_t>(e); }

class RuntimeApi final : public CudaApi {
 public:
  ApiResult GetDeviceCount(int* count) override { return cudaGetDeviceCount(count); }
  ApiResult SetDevice(int device) override {
    // cudaSetDevice costs a driver call even when nothing changes.
    int current = -1;
    if (cudaGetDevice(&current) == cudaSuccess && current == device) return cudaSuccess;
    return cudaSetDevice(device);
  }
  ApiResult GetDeviceName(int device, std::string* name) override {
    cudaDeviceProp prop;
    const cudaError_t r = cudaGetDeviceProperties(&prop, device);
    if (r == cudaSuccess) *name = prop.name;
    return r;
  }
  ApiResult GetMultiprocessorCount(int device, int* count) override {
    return cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
  }
  ApiResult MemGetInfo(size_t* free_bytes, size_t* total_bytes) override {
    return cudaMemGetInfo(free_bytes, total_bytes);
  }
  ApiResult Malloc(void** ptr, size_t bytes) override { return cudaMalloc(ptr, bytes); }
  ApiResult Free(void* ptr) override { return cudaFree(ptr); }
  ApiResult HostAlloc(void** ptr, size_t bytes) override { return cudaHostAlloc(ptr, bytes, cudaHostAllocPortable); }
  ApiResult HostFree(void* ptr) override { return cudaFreeHost(ptr); }
  ApiResult StreamCreate(StreamHandle* stream) override {
    cudaStream_t s = nullptr;
    const cudaError_t r = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    *stream = s;
    return r;
  }
  ApiResult StreamDestroy(StreamHandle stream) override { return cudaStreamDestroy(S(stream)); }
  ApiResult EventCreate(EventHandle* event) override {
    cudaEvent_t e = nullptr;
    const cudaError_t r = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    *event = e;
    return r;
  }
  ApiResult EventDestroy(EventHandle event) override { return cudaEventDestroy(E(event)); }
  ApiResult EventRecord(EventHandle event, StreamHandle stream) override { return cudaEventRecord(E(event), S(stream)); }
  ApiResult EventQuery(EventHandle event) override { return cudaEventQuery(E(event)); }
  ApiResult StreamWaitEvent(StreamHandle stream, EventHandle event) override {
    return cudaStreamWaitEvent(S(stream), E(event), 0);
  }
  ApiResult MemcpyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) override {
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, S(stream));
  }
  ApiResult MemsetAsync(void* dst, int value, size_t bytes, StreamHandle stream) override {
    return cudaMemsetAsync(dst, value, bytes, S(stream));
  }
  ApiResult StreamBeginCapture(StreamHandle stream) override {
    return cudaStreamBeginCapture(S(stream), cudaStreamCaptureModeRelaxed);
  }
  ApiResult StreamEndCapture(StreamHandle stream, GraphHandle* graph) override {
    cudaGraph_t g = nullptr;
    const cudaError_t r = cudaStreamEndCapture(S(stream), &g);
    *graph = g;
    return r;
  }
  ApiResult GraphInstantiate(GraphExecHandle* exec, GraphHandle graph) override {
    cudaGraphExec_t e = nullptr;
    const cudaError_t r = cudaGraphInstantiate(&e, static_cast<cudaGraph_t>(graph), 0);
    *exec = e;
    return r;
  }
  ApiResult GraphLaunch(GraphExecHandle exec, StreamHandle stream) override {
    return cudaGraphLaunch(static_cast<cudaGraphExec_t>(exec), S(stream));
  }
  ApiResult GraphExecDestroy(GraphExecHandle exec) override {
    return cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(exec));
  }
  ApiResult GraphDestroy(GraphHandle graph) override { return cudaGraphDestroy(static_cast<cudaGraph_t>(graph)); }
  ApiResult GetLastError() override { return cudaGetLastError(); }
  std::string ErrorName(ApiResult result) override { return cudaGetErrorName(static_cast<cudaError_t>(result)); }
  std::string ErrorString(ApiResult result) override { return cudaGetErrorString(static_cast<cudaError_t>(result)); }
};

}  // namespace

CudaApi* RealCudaApi() {
  static CudaApi* api = new RuntimeApi();  // leaked: streams may outlive static destruction
  return api;
}

}  // namespace ember::cuda
