// This file defines the GPU conv2d (cuDNN, Note [cuDNN convolution
// geometry]) and pooling (Note [GPU pooling]) kernels' host side and
// registers them for the float types.
#include <map>
#include <memory>
#include <mutex>

#include "devices/cuda/cublaslt_matmul.h"
#include "devices/cuda/cudnn_conv.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/dtype_map.h"
#include "kernels/cuda/window.h"
#include "ops/attrs/nn.gen.h"
#include "ops/shape_fns/nn.h"

namespace ember::cuda {
namespace {

using shape_fns::Window2D;

// The shape function's window (Note [Kernel plans]), else worked out here.
Status WindowOf(const KernelContext& ctx, const std::string& data_format, int64_t k_h, int64_t k_w,
                const std::vector<int64_t>& strides, const std::optional<std::vector<int64_t>>& dilations,
                const std::string& padding, const std::vector<int64_t>& explicit_paddings, bool pool, Window2D* w) {
  if (const Window2D* given = ctx.plan<Window2D>()) {
    *w = *given;
    return Status::OK();
  }
  bool nchw = false;
  EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(data_format, &nchw));
  int64_t sh, sw, dh = 1, dw = 1;
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(strides, nchw, "strides", &sh, &sw));
  if (dilations) EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(*dilations, nchw, "dilations", &dh, &dw));
  return shape_fns::MakeWindow2D(ctx.input(0).shape(), nchw, k_h, k_w, sh, sw, dh, dw, padding, explicit_paddings,
                                 pool, w);
}

// The forward convolution's window over `forward_input` (conv2d_transpose
// and conv2d_backprop_filter describe their convolution this way, as the
// CPU kernels do).
Status ConvWindowFor(const Shape& forward_input, const std::string& data_format, int64_t k_h, int64_t k_w,
                     const std::vector<int64_t>& strides, const std::optional<std::vector<int64_t>>& dilations,
                     const std::string& padding, const std::vector<int64_t>& explicit_paddings, Window2D* w) {
  bool nchw = false;
  EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(data_format, &nchw));
  int64_t sh, sw, dh = 1, dw = 1;
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(strides, nchw, "strides", &sh, &sw));
  if (dilations) EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(*dilations, nchw, "dilations", &dh, &dw));
  return shape_fns::MakeWindow2D(forward_input, nchw, k_h, k_w, sh, sw, dh, dw, padding, explicit_paddings, false, w);
}

// cuDNN's workspace is capped here; an algorithm needing more is skipped.
constexpr size_t kMaxConvWorkspace = size_t{256} << 20;

// A kernel's cuDNN descriptors, made once per (input, filter) shape and
// kept; each direction picks its algorithm on first use.
class ConvCache {
 public:
  enum Direction { kForward, kBackwardData, kBackwardFilter };
  Status Get(const Shape& input, const Shape& filter, DType dtype, const Window2D& w, void* handle, Direction direction,
             CudnnConv2d** out) const {
    std::vector<int64_t> key = input.ToVector();
    for (int i = 0; i < filter.rank(); ++i) key.push_back(filter.dim(i));
    key.push_back(TensorFloat32Allowed() ? 1 : 0);  // the descriptors' math type follows it
    std::lock_guard<std::mutex> lock(mu_);
    auto it = convs_.find(key);
    if (it == convs_.end()) {
      std::unique_ptr<CudnnConv2d> made;
      EMBER_RETURN_IF_ERROR(CudnnConv2d::Create(w, filter, dtype, &made));
      it = convs_.emplace(std::move(key), std::move(made)).first;
    }
    CudnnConv2d* conv = it->second.get();
    EMBER_RETURN_IF_ERROR(direction == kForward        ? conv->Prepare(handle, kMaxConvWorkspace)
                          : direction == kBackwardData ? conv->PrepareBackwardData(handle, kMaxConvWorkspace)
                                                       : conv->PrepareBackwardFilter(handle, kMaxConvWorkspace));
    *out = conv;
    return Status::OK();
  }

 private:
  mutable std::mutex mu_;
  mutable std::map<std::vector<int64_t>, std::unique_ptr<CudnnConv2d>> convs_;
};

// The size of `w`'s input once cuDNN's asymmetric part is pre-padded.
int64_t PaddedElements(const Window2D& w, const CudnnGeometry& g) {
  return w.batch * w.channels * (w.in_h + g.prepad_top + g.prepad_bottom) * (w.in_w + g.prepad_left + g.prepad_right);
}
bool NeedsPrepad(const CudnnGeometry& g) { return g.prepad_top + g.prepad_bottom + g.prepad_left + g.prepad_right > 0; }

// `input` with the padding cuDNN cannot express added, in scratch, or
// `input` itself where there is none.
template <typename T>
Status PrepaddedInput(const KernelContext& ctx, const Tensor& input, const Window2D& w, const CudnnGeometry& g,
                      std::unique_ptr<Scratch>* scratch, const void** x) {
  *x = input.raw_data();
  if (!NeedsPrepad(g)) return Status::OK();
  *scratch = std::make_unique<Scratch>(ctx, static_cast<size_t>(PaddedElements(w, g)) * sizeof(T));
  if ((*scratch)->failed()) return ResourceExhausted("out of GPU memory for the padded input");
  const CudaKernelEnv& env = EnvOf(ctx);
  *x = (*scratch)->get();
  return env.CheckLaunch(LaunchPad2d<T>(static_cast<const T*>(input.raw_data()), static_cast<T*>((*scratch)->get()),
                                        w.batch, w.in_h, w.in_w, w.channels, w.nchw, g.prepad_top, g.prepad_bottom,
                                        g.prepad_left, g.prepad_right, T(0.0f), StreamOf(env), env.max_blocks),
                         "padding the input");
}

// The HWIO `filters` in cuDNN's layout, in `scratch`.
template <typename T>
Status CudnnFilters(const KernelContext& ctx, const Tensor& filters, bool nchw, std::unique_ptr<Scratch>* scratch) {
  *scratch = std::make_unique<Scratch>(ctx, filters.NumBytes());
  if ((*scratch)->failed()) return ResourceExhausted("out of GPU memory for the filters' copy");
  const CudaKernelEnv& env = EnvOf(ctx);
  return env.CheckLaunch(LaunchFilterToCudnn<T>(static_cast<const T*>(filters.raw_data()),
                                                static_cast<T*>((*scratch)->get()), filters.dim(0), filters.dim(1),
                                                filters.dim(2), filters.dim(3), nchw, StreamOf(env), env.max_blocks),
                         "re-laying out the filters");
}

// The filters are re-laid out for cuDNN and the input padded where cuDNN's
// symmetric padding cannot express the window, into scratch; the cuDNN
// descriptors and algorithm are made once per input shape and kept.
template <typename T>
class Conv2dKernel final : public OpKernel {
 public:
  explicit Conv2dKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& input = ctx.input(0);
    const Tensor& filters = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    if (input.NumElements() == 0 || filters.NumElements() == 0) {  // sums of nothing
      return env.CheckLaunch(env.api->MemsetAsync(output.raw_data(), 0, output.NumBytes(), env.stream),
                             "clearing the output");
    }
    Window2D w;
    EMBER_RETURN_IF_ERROR(WindowOf(ctx, attrs_.data_format, filters.dim(0), filters.dim(1), attrs_.strides,
                                   attrs_.dilations, attrs_.padding, attrs_.explicit_paddings, false, &w));
    void* handle = nullptr;
    EMBER_RETURN_IF_ERROR(env.CudnnHandle(&handle));
    CudnnConv2d* conv = nullptr;
    EMBER_RETURN_IF_ERROR(convs_.Get(input.shape(), filters.shape(), input.dtype(), w, handle, ConvCache::kForward, &conv));
    const CudnnGeometry& g = conv->geometry();

    std::unique_ptr<Scratch> filter, padded;
    EMBER_RETURN_IF_ERROR(CudnnFilters<T>(ctx, filters, w.nchw, &filter));
    const void* x = nullptr;
    EMBER_RETURN_IF_ERROR(PrepaddedInput<T>(ctx, input, w, g, &padded, &x));
    Scratch workspace(ctx, conv->workspace_bytes());
    if (workspace.failed()) return ResourceExhausted("out of GPU memory for conv2d's cuDNN workspace");
    return conv->Run(handle, x, filter->get(), output.raw_data(), workspace.get());
  }

 private:
  Conv2dAttrs attrs_;
  ConvCache convs_;
};

// conv2d_transpose: the data gradient of the convolution whose input has
// `output_shape` (and the filters' HWIO [k_h, k_w, output channels, input
// channels]); cuDNN writes it into the pre-padded input's shape, whose
// interior is the result.
template <typename T>
class Conv2dTransposeKernel final : public OpKernel {
 public:
  explicit Conv2dTransposeKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& dy = ctx.input(0);
    const Tensor& filters = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    if (dy.NumElements() == 0 || filters.NumElements() == 0) {
      return env.CheckLaunch(env.api->MemsetAsync(output.raw_data(), 0, output.NumBytes(), env.stream),
                             "clearing the output");
    }
    Window2D w;
    EMBER_RETURN_IF_ERROR(ConvWindowFor(output.shape(), attrs_.data_format, filters.dim(0), filters.dim(1),
                                        attrs_.strides, attrs_.dilations, attrs_.padding, attrs_.explicit_paddings, &w));
    void* handle = nullptr;
    EMBER_RETURN_IF_ERROR(env.CudnnHandle(&handle));
    CudnnConv2d* conv = nullptr;
    EMBER_RETURN_IF_ERROR(
        convs_.Get(output.shape(), filters.shape(), dy.dtype(), w, handle, ConvCache::kBackwardData, &conv));
    const CudnnGeometry& g = conv->geometry();
    if (g.output != dy.shape()) {
      return Internal("cuDNN's convolution of " + output.shape().ToString() + " gives " + g.output.ToString() +
                      ", not the input's " + dy.shape().ToString());
    }
    std::unique_ptr<Scratch> filter;
    EMBER_RETURN_IF_ERROR(CudnnFilters<T>(ctx, filters, w.nchw, &filter));
    const bool prepad = NeedsPrepad(g);
    Scratch padded(ctx, prepad ? static_cast<size_t>(PaddedElements(w, g)) * sizeof(T) : 0);
    if (padded.failed()) return ResourceExhausted("out of GPU memory for conv2d_transpose's padded result");
    Scratch workspace(ctx, conv->backward_data_workspace_bytes());
    if (workspace.failed()) return ResourceExhausted("out of GPU memory for conv2d_transpose's cuDNN workspace");
    EMBER_RETURN_IF_ERROR(conv->RunBackwardData(handle, filter->get(), dy.raw_data(),
                                                prepad ? padded.get() : output.raw_data(), workspace.get()));
    if (!prepad) return Status::OK();
    return env.CheckLaunch(LaunchCrop2d<T>(static_cast<const T*>(padded.get()), static_cast<T*>(output.raw_data()),
                                           w.batch, w.in_h, w.in_w, w.channels, w.nchw, g.prepad_top, g.prepad_bottom,
                                           g.prepad_left, g.prepad_right, StreamOf(env), env.max_blocks),
                           "cropping the padding");
  }

 private:
  Conv2dTransposeAttrs attrs_;
  ConvCache convs_;
};

// conv2d_backprop_filter: cuDNN's filter gradient (over the pre-padded
// input), re-laid out to HWIO.
template <typename T>
class Conv2dBackpropFilterKernel final : public OpKernel {
 public:
  explicit Conv2dBackpropFilterKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    const Tensor& input = ctx.input(0);
    const Tensor& dy = ctx.input(1);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    if (input.NumElements() == 0 || dy.NumElements() == 0) {
      return env.CheckLaunch(env.api->MemsetAsync(output.raw_data(), 0, output.NumBytes(), env.stream),
                             "clearing the output");
    }
    Window2D w;
    EMBER_RETURN_IF_ERROR(ConvWindowFor(input.shape(), attrs_.data_format, output.dim(0), output.dim(1),
                                        attrs_.strides, attrs_.dilations, attrs_.padding, attrs_.explicit_paddings, &w));
    void* handle = nullptr;
    EMBER_RETURN_IF_ERROR(env.CudnnHandle(&handle));
    CudnnConv2d* conv = nullptr;
    EMBER_RETURN_IF_ERROR(
        convs_.Get(input.shape(), output.shape(), input.dtype(), w, handle, ConvCache::kBackwardFilter, &conv));
    const CudnnGeometry& g = conv->geometry();
    if (g.output != dy.shape()) {
      return Internal("cuDNN's convolution of " + input.shape().ToString() + " gives " + g.output.ToString() +
                      ", not out_backprop's " + dy.shape().ToString());
    }
    std::unique_ptr<Scratch> padded;
    const void* x = nullptr;
    EMBER_RETURN_IF_ERROR(PrepaddedInput<T>(ctx, input, w, g, &padded, &x));
    Scratch filter(ctx, output.NumBytes());
    if (filter.failed()) return ResourceExhausted("out of GPU memory for conv2d_backprop_filter's filter gradient");
    Scratch workspace(ctx, conv->backward_filter_workspace_bytes());
    if (workspace.failed()) return ResourceExhausted("out of GPU memory for conv2d_backprop_filter's workspace");
    EMBER_RETURN_IF_ERROR(conv->RunBackwardFilter(handle, x, dy.raw_data(), filter.get(), workspace.get()));
    return env.CheckLaunch(
        LaunchFilterFromCudnn<T>(static_cast<const T*>(filter.get()), static_cast<T*>(output.raw_data()), output.dim(0),
                                 output.dim(1), output.dim(2), output.dim(3), w.nchw, StreamOf(env), env.max_blocks),
        "re-laying out the filter gradient");
  }

 private:
  Conv2dBackpropFilterAttrs attrs_;
  ConvCache convs_;
};

WindowGeometry GeometryOf(const Window2D& w) {
  WindowGeometry g;
  g.nchw = w.nchw;
  g.batch = w.batch;
  g.in_h = w.in_h;
  g.in_w = w.in_w;
  g.channels = w.channels;
  g.k_h = w.k_h;
  g.k_w = w.k_w;
  g.stride_h = w.stride_h;
  g.stride_w = w.stride_w;
  g.pad_top = w.pad_top;
  g.pad_left = w.pad_left;
  g.out_h = w.out_h;
  g.out_w = w.out_w;
  return g;
}

// A pooling's window over an input of shape `input`, from the op's attrs.
template <typename Attrs>
Status PoolGeometry(const Attrs& attrs, const Shape& input, WindowGeometry* g) {
  bool nchw = false;
  EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs.data_format, &nchw));
  int64_t kh, kw, sh, sw;
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs.ksize, nchw, "ksize", &kh, &kw));
  EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs.strides, nchw, "strides", &sh, &sw));
  Window2D w;
  EMBER_RETURN_IF_ERROR(
      shape_fns::MakeWindow2D(input, nchw, kh, kw, sh, sw, 1, 1, attrs.padding, attrs.explicit_paddings, true, &w));
  *g = GeometryOf(w);
  return Status::OK();
}

template <typename T, bool kMax>
class Pool2dKernel final : public OpKernel {
 public:
  explicit Pool2dKernel(const KernelInit& init) : attrs_(init.attrs) {}

  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& output = ctx.output(0);
    if (output.NumElements() == 0) return Status::OK();
    bool nchw = false;
    EMBER_RETURN_IF_ERROR(shape_fns::ParseDataFormat2D(attrs_.data_format, &nchw));
    int64_t kh, kw;
    EMBER_RETURN_IF_ERROR(shape_fns::SpatialPair(attrs_.ksize, nchw, "ksize", &kh, &kw));
    Window2D w;
    EMBER_RETURN_IF_ERROR(WindowOf(ctx, attrs_.data_format, kh, kw, attrs_.strides, std::nullopt, attrs_.padding,
                                   attrs_.explicit_paddings, true, &w));
    const WindowGeometry g = GeometryOf(w);
    return env.CheckLaunch(LaunchPool2d<T>(static_cast<const T*>(ctx.input(0).raw_data()),
                                           static_cast<T*>(output.raw_data()), g, kMax, StreamOf(env), env.max_blocks),
                           "launching the pooling");
  }

 private:
  MaxPool2dAttrs attrs_;  // avg_pool2d's attrs are the same list
};

// max_pool2d_grad (second input: the incoming gradient, output: the
// input's shape) and max_pool2d_grad_grad (second input of the input's
// shape, output: the pooling's), both reading the pooling's input.
template <typename T, typename Attrs, bool kGradGrad>
class MaxPoolGradKernel final : public OpKernel {
 public:
  explicit MaxPoolGradKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    WindowGeometry g;
    EMBER_RETURN_IF_ERROR(PoolGeometry(attrs_, ctx.input(0).shape(), &g));
    const T* x = static_cast<const T*>(ctx.input(0).raw_data());
    const T* second = static_cast<const T*>(ctx.input(1).raw_data());
    T* dst = static_cast<T*>(out.raw_data());
    if constexpr (kGradGrad) {
      return env.CheckLaunch(LaunchMaxPool2dGradGrad<T>(x, second, dst, g, StreamOf(env), env.max_blocks),
                             "launching max_pool2d_grad_grad");
    } else {
      return env.CheckLaunch(LaunchPool2dGrad<T>(x, second, dst, g, true, StreamOf(env), env.max_blocks),
                             "launching max_pool2d_grad");
    }
  }

 private:
  Attrs attrs_;
};

template <typename T>
class AvgPoolGradKernel final : public OpKernel {
 public:
  explicit AvgPoolGradKernel(const KernelInit& init) : attrs_(init.attrs) {}
  Status Compute(KernelContext& ctx) const override {
    const CudaKernelEnv& env = EnvOf(ctx);
    Tensor& out = ctx.output(0);
    if (out.NumElements() == 0) return Status::OK();
    WindowGeometry g;
    EMBER_RETURN_IF_ERROR(PoolGeometry(attrs_, out.shape(), &g));
    return env.CheckLaunch(LaunchPool2dGrad<T>(nullptr, static_cast<const T*>(ctx.input(0).raw_data()),
                                               static_cast<T*>(out.raw_data()), g, false, StreamOf(env),
                                               env.max_blocks),
                           "launching avg_pool2d_grad");
  }

 private:
  AvgPool2dGradAttrs attrs_;
};

template <typename T>
EMBER_STARTUP_TEMPLATE void RegisterFor(KernelRegistry& r, DeviceTypeId gpu) {
  r.Register("max_pool2d_grad", gpu, {TypeOf<T>()}, &MakeKernel<MaxPoolGradKernel<T, MaxPool2dGradAttrs, false>>);
  r.Register("max_pool2d_grad_grad", gpu, {TypeOf<T>()},
             &MakeKernel<MaxPoolGradKernel<T, MaxPool2dGradGradAttrs, true>>);
  r.Register("avg_pool2d_grad", gpu, {TypeOf<T>()}, &MakeKernel<AvgPoolGradKernel<T>>);
  r.Register("conv2d", gpu, {TypeOf<T>()}, &MakeKernel<Conv2dKernel<T>>);
  // cuDNN 9 (on an H200) offers no backward algorithm for float64 in
  // Ember's NHWC layout: those run on the CPU (soft placement).
  if (TypeOf<T>() != DType::kFloat64) {
    r.Register("conv2d_transpose", gpu, {TypeOf<T>()}, &MakeKernel<Conv2dTransposeKernel<T>>);
    r.Register("conv2d_backprop_filter", gpu, {TypeOf<T>()}, &MakeKernel<Conv2dBackpropFilterKernel<T>>);
  }
  r.Register("max_pool2d", gpu, {TypeOf<T>()}, &MakeKernel<Pool2dKernel<T, true>>);
  r.Register("avg_pool2d", gpu, {TypeOf<T>()}, &MakeKernel<Pool2dKernel<T, false>>);
}

}  // namespace

EMBER_STARTUP_CODE void RegisterCudaWindowKernels(KernelRegistry& r, DeviceTypeId gpu) {
  RegisterFor<float>(r, gpu);
  RegisterFor<double>(r, gpu);
  RegisterFor<__half>(r, gpu);
  RegisterFor<__nv_bfloat16>(r, gpu);
}

}  // namespace ember::cuda
