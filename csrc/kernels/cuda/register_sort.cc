// This file defines the GPU sort, argsort and top_k kernels' host side
// (the [outer, len, inner] view around the axis, CUB's scratch) and
// registers them for the nine real dtypes (Note [GPU sort keys]).
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/sort.h"

namespace ember::cuda {
namespace {

// Sorts (or takes the top k of) the input's columns; the attrs are read
// by index, as the CPU's kernels read them: sort and argsort 0 axis, 1
// direction; top_k 0 k.
template <typename T, SortOutput kWhat>
class SortKernel final : public OpKernel {
 public:
  explicit SortKernel(const KernelInit& init) {
    if constexpr (kWhat == SortOutput::kTopK) {
      k_ = init.attrs[0].as_int();
    } else {
      axis_ = init.attrs[0].as_int();
      descending_ = init.attrs[1].as_string() == "DESCENDING";
    }
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const int rank = x.rank();
    // The shape functions checked the axis and k (rank >= 1).
    const int axis = kWhat == SortOutput::kTopK ? rank - 1 : static_cast<int>(axis_ < 0 ? axis_ + rank : axis_);
    SortGeometry g;
    g.columns = 1;
    for (int d = 0; d < rank; ++d) {
      if (d < axis) g.columns *= x.dim(d);
      if (d == axis) g.len = x.dim(d);
      if (d > axis) g.inner *= x.dim(d);
    }
    g.columns *= g.inner;
    if (g.columns * g.len == 0 || (kWhat == SortOutput::kTopK && k_ == 0)) return Status::OK();
    const char* op = kWhat == SortOutput::kTopK ? "top_k" : kWhat == SortOutput::kIndices ? "argsort" : "sort";
    if (!SortFits(g)) {
      return Unimplemented(std::string(op) + " on a GPU sorts at most 2^31 - 1 elements in one call; got " +
                           std::to_string(x.NumElements()));
    }
    const CudaKernelEnv& env = EnvOf(ctx);
    size_t bytes = 0;
    EMBER_RETURN_IF_ERROR(env.CheckLaunch(SortScratchBytes<T>(g, &bytes), "sizing the sort's scratch"));
    Scratch scratch(ctx, bytes);
    if (scratch.failed()) return ResourceExhausted(std::string("out of GPU memory for ") + op + "'s scratch");
    T* values = nullptr;
    int32_t* indices = nullptr;
    if (kWhat != SortOutput::kIndices) values = static_cast<T*>(ctx.output(0).raw_data());
    if (kWhat == SortOutput::kIndices) indices = static_cast<int32_t*>(ctx.output(0).raw_data());
    if (kWhat == SortOutput::kTopK) indices = static_cast<int32_t*>(ctx.output(1).raw_data());
    return env.CheckLaunch(LaunchSort<T>(static_cast<const T*>(x.raw_data()), values, indices, g, kWhat,
                                         kWhat == SortOutput::kTopK || descending_, k_, scratch.get(), bytes,
                                         StreamOf(env), env.max_blocks),
                           op);
  }

 private:
  int64_t axis_ = -1;
  bool descending_ = false;
  int64_t k_ = 0;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterFor(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("sort", gpu, {TypeOf<T>()}, &MakeKernel<SortKernel<T, SortOutput::kValues>>);
  r.Register("argsort", gpu, {TypeOf<T>()}, &MakeKernel<SortKernel<T, SortOutput::kIndices>>);
  r.Register("top_k", gpu, {TypeOf<T>()}, &MakeKernel<SortKernel<T, SortOutput::kTopK>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaSortKernels(KernelRegistry& r, DeviceTypeId gpu) {
  ForEachRealType([&](auto type) { RegisterFor<decltype(type)>(r, gpu); });
}

}  // namespace ember::cuda
