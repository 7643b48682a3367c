// This file implements the cuDNN geometry of convolutions and pooling
// (Note [cuDNN convolution geometry]).
#include "devices/cuda/cudnn_conv.h"

#include <algorithm>
#include <climits>
#include <string>

#include "devices/cuda/cublaslt_matmul.h"
#include "devices/cuda/cudnn_api.h"
#ifdef EMBER_HAVE_CUDNN_HEADERS
#include "devices/cuda/cudnn_api_table.h"
#endif

namespace ember::cuda {

#ifdef EMBER_HAVE_CUDNN_HEADERS
namespace {

Status CudnnError(const CudnnApi& api, cudnnStatus_t status, const char* what) {
  return Internal(std::string(what) + " failed: " + api.GetErrorString(status));
}

#define EMBER_CUDNN_RETURN_IF_ERROR(api, call, what)                 \
  do {                                                              \
    const cudnnStatus_t status_ = (call);                           \
    if (status_ != CUDNN_STATUS_SUCCESS) return CudnnError(api, status_, what); \
  } while (0)

Status DataType(DType dtype, cudnnDataType_t* out) {
  switch (dtype) {
    case DType::kFloat32: *out = CUDNN_DATA_FLOAT; return Status::OK();
    case DType::kFloat64: *out = CUDNN_DATA_DOUBLE; return Status::OK();
    case DType::kFloat16: *out = CUDNN_DATA_HALF; return Status::OK();
    case DType::kBFloat16: *out = CUDNN_DATA_BFLOAT16; return Status::OK();
    default: return InvalidArgument(std::string("cuDNN has no ") + DTypeName(dtype) + " convolutions");
  }
}

// cuDNN's dims and pads are ints.
Status ToInt(int64_t value, const char* what, int* out) {
  if (value < 0 || value > INT_MAX) return InvalidArgument(std::string(what) + " " + std::to_string(value) + " does not fit cuDNN's int");
  *out = static_cast<int>(value);
  return Status::OK();
}

// Splits each dim's padding into cuDNN's symmetric part and the rest.
void SplitPadding(const shape_fns::Window2D& w, CudnnGeometry* g) {
  g->pad_h = std::min(w.pad_top, w.pad_bottom);
  g->pad_w = std::min(w.pad_left, w.pad_right);
  g->prepad_top = w.pad_top - g->pad_h;
  g->prepad_bottom = w.pad_bottom - g->pad_h;
  g->prepad_left = w.pad_left - g->pad_w;
  g->prepad_right = w.pad_right - g->pad_w;
}

// The input descriptor, pre-padding included.
Status InputDescriptor(const CudnnApi& api, const shape_fns::Window2D& w, const CudnnGeometry& g,
                       cudnnDataType_t type, cudnnTensorDescriptor_t desc) {
  int n, c, h, wd;
  EMBER_RETURN_IF_ERROR(ToInt(w.batch, "batch", &n));
  EMBER_RETURN_IF_ERROR(ToInt(w.channels, "channels", &c));
  EMBER_RETURN_IF_ERROR(ToInt(w.in_h + g.prepad_top + g.prepad_bottom, "height", &h));
  EMBER_RETURN_IF_ERROR(ToInt(w.in_w + g.prepad_left + g.prepad_right, "width", &wd));
  // cuDNN rejects empty tensors; the kernels skip them before any call.
  n = std::max(n, 1);
  EMBER_CUDNN_RETURN_IF_ERROR(
      api, api.SetTensor4dDescriptor(desc, w.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, type, n, c, h, wd),
      "cudnnSetTensor4dDescriptor");
  return Status::OK();
}

Shape OutputShape(const shape_fns::Window2D& w, int c, int h, int wd) {
  return w.nchw ? Shape({w.batch, c, h, wd}) : Shape({w.batch, h, wd, c});
}

}  // namespace

Status CudnnConv2d::Create(const shape_fns::Window2D& w, const Shape& filter, DType dtype,
                           std::unique_ptr<CudnnConv2d>* out) {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  if (filter.rank() != 4 || filter.dim(2) <= 0 || w.channels % filter.dim(2) != 0) {
    return InvalidArgument("filter " + filter.ToString() + " does not fit " + std::to_string(w.channels) + " input channels");
  }
  cudnnDataType_t type;
  EMBER_RETURN_IF_ERROR(DataType(dtype, &type));
  std::unique_ptr<CudnnConv2d> conv(new CudnnConv2d());
  conv->dtype_ = dtype;
  CudnnGeometry* g = &conv->geometry_;
  SplitPadding(w, g);
  g->groups = w.channels / filter.dim(2);
  int k, c, r, s, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, groups;
  EMBER_RETURN_IF_ERROR(ToInt(filter.dim(3), "filters", &k));
  EMBER_RETURN_IF_ERROR(ToInt(filter.dim(2), "filter depth", &c));
  EMBER_RETURN_IF_ERROR(ToInt(filter.dim(0), "filter height", &r));
  EMBER_RETURN_IF_ERROR(ToInt(filter.dim(1), "filter width", &s));
  EMBER_RETURN_IF_ERROR(ToInt(g->pad_h, "padding", &pad_h));
  EMBER_RETURN_IF_ERROR(ToInt(g->pad_w, "padding", &pad_w));
  EMBER_RETURN_IF_ERROR(ToInt(w.stride_h, "stride", &stride_h));
  EMBER_RETURN_IF_ERROR(ToInt(w.stride_w, "stride", &stride_w));
  EMBER_RETURN_IF_ERROR(ToInt(w.dilation_h, "dilation", &dil_h));
  EMBER_RETURN_IF_ERROR(ToInt(w.dilation_w, "dilation", &dil_w));
  EMBER_RETURN_IF_ERROR(ToInt(g->groups, "groups", &groups));
  if (k == 0 || c == 0) return InvalidArgument("cuDNN rejects filters with no channels");
  const cudnnTensorFormat_t format = w.nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC;

  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t f = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  // Owned by `conv` as soon as created, so every early return frees them.
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
  conv->x_ = x;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreateFilterDescriptor(&f), "cudnnCreateFilterDescriptor");
  conv->w_ = f;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreateConvolutionDescriptor(&cd), "cudnnCreateConvolutionDescriptor");
  conv->conv_ = cd;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
  conv->y_ = y;
  EMBER_RETURN_IF_ERROR(InputDescriptor(*api, w, *g, type, x));
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->SetFilter4dDescriptor(f, type, format, k, c, r, s),
                              "cudnnSetFilter4dDescriptor");
  // Half and bfloat16 accumulate in float, as on the CPU (Note [Half compute]).
  const cudnnDataType_t compute = type == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  EMBER_CUDNN_RETURN_IF_ERROR(*api,
                              api->SetConvolution2dDescriptor(cd, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w,
                                                              CUDNN_CROSS_CORRELATION, compute),
                              "cudnnSetConvolution2dDescriptor");
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->SetConvolutionGroupCount(cd, groups), "cudnnSetConvolutionGroupCount");
  // Tensor cores for the half types; float32 follows the TF32 policy
  // (Note [Matmul precision on GPUs]): the default math allows TF32, FMA
  // math does not.
  const cudnnMathType_t math = type == CUDNN_DATA_HALF || type == CUDNN_DATA_BFLOAT16 ? CUDNN_TENSOR_OP_MATH
                               : type == CUDNN_DATA_FLOAT && !TensorFloat32Allowed() ? CUDNN_FMA_MATH
                                                                                      : CUDNN_DEFAULT_MATH;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->SetConvolutionMathType(cd, math), "cudnnSetConvolutionMathType");
  int on, oc, oh, ow;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->GetConvolution2dForwardOutputDim(cd, x, f, &on, &oc, &oh, &ow),
                              "cudnnGetConvolution2dForwardOutputDim");
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->SetTensor4dDescriptor(y, format, type, on, oc, oh, ow),
                              "cudnnSetTensor4dDescriptor");
  g->output = OutputShape(w, oc, oh, ow);
  *out = std::move(conv);
  return Status::OK();
}

CudnnConv2d::~CudnnConv2d() {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return;
  if (y_ != nullptr) api->DestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(y_));
  if (conv_ != nullptr) api->DestroyConvolutionDescriptor(static_cast<cudnnConvolutionDescriptor_t>(conv_));
  if (w_ != nullptr) api->DestroyFilterDescriptor(static_cast<cudnnFilterDescriptor_t>(w_));
  if (x_ != nullptr) api->DestroyTensorDescriptor(static_cast<cudnnTensorDescriptor_t>(x_));
}

namespace {

// The first of cuDNN's ranked algorithms that ran its heuristic
// successfully and whose workspace (size_of(algo, &bytes)) fits.
template <typename Perf, typename SizeOf>
bool FirstFitting(const Perf* perf, int returned, size_t max_workspace, SizeOf size_of, int* algo, size_t* bytes) {
  for (int i = 0; i < returned; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    size_t needed = 0;
    if (size_of(perf[i].algo, &needed) != CUDNN_STATUS_SUCCESS || needed > max_workspace) continue;
    *algo = static_cast<int>(perf[i].algo);
    *bytes = needed;
    return true;
  }
  return false;
}

Status NoAlgorithm(const char* direction, size_t max_workspace) {
  return ResourceExhausted(std::string("cuDNN has no ") + direction + " algorithm for this shape within " +
                           std::to_string(max_workspace) + " bytes of workspace");
}

// cuDNN's alpha = 1 and beta = 0, as doubles for double data only.
struct Scaling {
  explicit Scaling(DType dtype) : wide(dtype == DType::kFloat64) {}
  const void* one() const { return wide ? static_cast<const void*>(&one_d) : &one_f; }
  const void* zero() const { return wide ? static_cast<const void*>(&zero_d) : &zero_f; }
  bool wide;
  float one_f = 1.0f, zero_f = 0.0f;
  double one_d = 1.0, zero_d = 0.0;
};

constexpr int kAlgorithmCandidates = 8;

}  // namespace

Status CudnnConv2d::Prepare(void* handle, size_t max_workspace) {
  if (prepared_) return Status::OK();
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  auto h = static_cast<cudnnHandle_t>(handle);
  auto x = static_cast<cudnnTensorDescriptor_t>(x_);
  auto f = static_cast<cudnnFilterDescriptor_t>(w_);
  auto cd = static_cast<cudnnConvolutionDescriptor_t>(conv_);
  auto y = static_cast<cudnnTensorDescriptor_t>(y_);
  cudnnConvolutionFwdAlgoPerf_t perf[kAlgorithmCandidates];
  int returned = 0;
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api, api->GetConvolutionForwardAlgorithm_v7(h, x, f, cd, y, kAlgorithmCandidates, &returned, perf),
      "cudnnGetConvolutionForwardAlgorithm_v7");
  auto size_of = [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
    return api->GetConvolutionForwardWorkspaceSize(h, x, f, cd, y, algo, bytes);
  };
  if (!FirstFitting(perf, returned, max_workspace, size_of, &algo_, &workspace_bytes_)) {
    return NoAlgorithm("convolution", max_workspace);
  }
  prepared_ = true;
  return Status::OK();
}

Status CudnnConv2d::Run(void* handle, const void* x, const void* w, void* y, void* workspace) const {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  if (!prepared_) return Internal("CudnnConv2d::Run before Prepare");
  const Scaling scale(dtype_);
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api,
      api->ConvolutionForward(static_cast<cudnnHandle_t>(handle), scale.one(), static_cast<cudnnTensorDescriptor_t>(x_),
                              x, static_cast<cudnnFilterDescriptor_t>(w_), w,
                              static_cast<cudnnConvolutionDescriptor_t>(conv_),
                              static_cast<cudnnConvolutionFwdAlgo_t>(algo_), workspace, workspace_bytes_, scale.zero(),
                              static_cast<cudnnTensorDescriptor_t>(y_), y),
      "cudnnConvolutionForward");
  return Status::OK();
}

Status CudnnConv2d::PrepareBackwardData(void* handle, size_t max_workspace) {
  if (data_prepared_) return Status::OK();
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  auto h = static_cast<cudnnHandle_t>(handle);
  auto x = static_cast<cudnnTensorDescriptor_t>(x_);
  auto f = static_cast<cudnnFilterDescriptor_t>(w_);
  auto cd = static_cast<cudnnConvolutionDescriptor_t>(conv_);
  auto y = static_cast<cudnnTensorDescriptor_t>(y_);
  cudnnConvolutionBwdDataAlgoPerf_t perf[kAlgorithmCandidates];
  int returned = 0;
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api, api->GetConvolutionBackwardDataAlgorithm_v7(h, f, y, cd, x, kAlgorithmCandidates, &returned, perf),
      "cudnnGetConvolutionBackwardDataAlgorithm_v7");
  auto size_of = [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
    return api->GetConvolutionBackwardDataWorkspaceSize(h, f, y, cd, x, algo, bytes);
  };
  if (!FirstFitting(perf, returned, max_workspace, size_of, &data_algo_, &data_workspace_bytes_)) {
    return NoAlgorithm("backward-data", max_workspace);
  }
  data_prepared_ = true;
  return Status::OK();
}

Status CudnnConv2d::PrepareBackwardFilter(void* handle, size_t max_workspace) {
  if (filter_prepared_) return Status::OK();
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  auto h = static_cast<cudnnHandle_t>(handle);
  auto x = static_cast<cudnnTensorDescriptor_t>(x_);
  auto f = static_cast<cudnnFilterDescriptor_t>(w_);
  auto cd = static_cast<cudnnConvolutionDescriptor_t>(conv_);
  auto y = static_cast<cudnnTensorDescriptor_t>(y_);
  cudnnConvolutionBwdFilterAlgoPerf_t perf[kAlgorithmCandidates];
  int returned = 0;
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api, api->GetConvolutionBackwardFilterAlgorithm_v7(h, x, y, cd, f, kAlgorithmCandidates, &returned, perf),
      "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
  auto size_of = [&](cudnnConvolutionBwdFilterAlgo_t algo, size_t* bytes) {
    return api->GetConvolutionBackwardFilterWorkspaceSize(h, x, y, cd, f, algo, bytes);
  };
  if (!FirstFitting(perf, returned, max_workspace, size_of, &filter_algo_, &filter_workspace_bytes_)) {
    return NoAlgorithm("backward-filter", max_workspace);
  }
  filter_prepared_ = true;
  return Status::OK();
}

Status CudnnConv2d::RunBackwardData(void* handle, const void* w, const void* dy, void* dx, void* workspace) const {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  if (!data_prepared_) return Internal("CudnnConv2d::RunBackwardData before PrepareBackwardData");
  const Scaling scale(dtype_);
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api,
      api->ConvolutionBackwardData(static_cast<cudnnHandle_t>(handle), scale.one(),
                                   static_cast<cudnnFilterDescriptor_t>(w_), w, static_cast<cudnnTensorDescriptor_t>(y_),
                                   dy, static_cast<cudnnConvolutionDescriptor_t>(conv_),
                                   static_cast<cudnnConvolutionBwdDataAlgo_t>(data_algo_), workspace,
                                   data_workspace_bytes_, scale.zero(), static_cast<cudnnTensorDescriptor_t>(x_), dx),
      "cudnnConvolutionBackwardData");
  return Status::OK();
}

Status CudnnConv2d::RunBackwardFilter(void* handle, const void* x, const void* dy, void* dw, void* workspace) const {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  if (!filter_prepared_) return Internal("CudnnConv2d::RunBackwardFilter before PrepareBackwardFilter");
  const Scaling scale(dtype_);
  EMBER_CUDNN_RETURN_IF_ERROR(
      *api,
      api->ConvolutionBackwardFilter(static_cast<cudnnHandle_t>(handle), scale.one(),
                                     static_cast<cudnnTensorDescriptor_t>(x_), x,
                                     static_cast<cudnnTensorDescriptor_t>(y_), dy,
                                     static_cast<cudnnConvolutionDescriptor_t>(conv_),
                                     static_cast<cudnnConvolutionBwdFilterAlgo_t>(filter_algo_), workspace,
                                     filter_workspace_bytes_, scale.zero(), static_cast<cudnnFilterDescriptor_t>(w_),
                                     dw),
      "cudnnConvolutionBackwardFilter");
  return Status::OK();
}

Status CudnnConv2dGeometry(const shape_fns::Window2D& w, const Shape& filter, DType dtype, CudnnGeometry* g) {
  std::unique_ptr<CudnnConv2d> conv;
  EMBER_RETURN_IF_ERROR(CudnnConv2d::Create(w, filter, dtype, &conv));
  *g = conv->geometry();
  return Status::OK();
}

Status CreateCudnnHandle(void* stream, void** handle) {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  cudnnHandle_t h = nullptr;
  EMBER_CUDNN_RETURN_IF_ERROR(*api, api->Create(&h), "cudnnCreate");
  const cudnnStatus_t s = api->SetStream(h, static_cast<cudaStream_t>(stream));
  if (s != CUDNN_STATUS_SUCCESS) {
    api->Destroy(h);
    return CudnnError(*api, s, "cudnnSetStream");
  }
  *handle = h;
  return Status::OK();
}

Status CudnnPool2dGeometry(const shape_fns::Window2D& w, bool max, DType dtype, CudnnGeometry* g) {
  std::string error;
  const CudnnApi* api = GetCudnn(&error);
  if (api == nullptr) return FailedPrecondition(error);
  cudnnDataType_t type;
  EMBER_RETURN_IF_ERROR(DataType(dtype, &type));
  SplitPadding(w, g);
  const bool asymmetric = g->prepad_top + g->prepad_bottom + g->prepad_left + g->prepad_right > 0;
  if (!max && asymmetric) {
    return Unimplemented("cuDNN cannot exclude asymmetric padding from an average pool's counts");
  }
  int kh, kw, pad_h, pad_w, stride_h, stride_w;
  EMBER_RETURN_IF_ERROR(ToInt(w.k_h, "window", &kh));
  EMBER_RETURN_IF_ERROR(ToInt(w.k_w, "window", &kw));
  EMBER_RETURN_IF_ERROR(ToInt(g->pad_h, "padding", &pad_h));
  EMBER_RETURN_IF_ERROR(ToInt(g->pad_w, "padding", &pad_w));
  EMBER_RETURN_IF_ERROR(ToInt(w.stride_h, "stride", &stride_h));
  EMBER_RETURN_IF_ERROR(ToInt(w.stride_w, "stride", &stride_w));
  cudnnTensorDescriptor_t x = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  Status status = [&]() -> Status {
    EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    EMBER_CUDNN_RETURN_IF_ERROR(*api, api->CreatePoolingDescriptor(&pool), "cudnnCreatePoolingDescriptor");
    EMBER_RETURN_IF_ERROR(InputDescriptor(*api, w, *g, type, x));
    const cudnnPoolingMode_t mode = max ? CUDNN_POOLING_MAX : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
    EMBER_CUDNN_RETURN_IF_ERROR(*api,
                                api->SetPooling2dDescriptor(pool, mode, CUDNN_PROPAGATE_NAN, kh, kw, pad_h, pad_w,
                                                            stride_h, stride_w),
                                "cudnnSetPooling2dDescriptor");
    int on, oc, oh, ow;
    EMBER_CUDNN_RETURN_IF_ERROR(*api, api->GetPooling2dForwardOutputDim(pool, x, &on, &oc, &oh, &ow),
                                "cudnnGetPooling2dForwardOutputDim");
    g->output = OutputShape(w, oc, oh, ow);
    return Status::OK();
  }();
  if (pool != nullptr) api->DestroyPoolingDescriptor(pool);
  if (x != nullptr) api->DestroyTensorDescriptor(x);
  return status;
}
#else
Status CudnnConv2d::Create(const shape_fns::Window2D&, const Shape&, DType, std::unique_ptr<CudnnConv2d>*) {
  return FailedPrecondition("this build found no cuDNN headers");
}
CudnnConv2d::~CudnnConv2d() = default;
Status CudnnConv2d::Prepare(void*, size_t) { return FailedPrecondition("this build found no cuDNN headers"); }
Status CudnnConv2d::Run(void*, const void*, const void*, void*, void*) const {
  return FailedPrecondition("this build found no cuDNN headers");
}
Status CudnnConv2d::PrepareBackwardData(void*, size_t) { return FailedPrecondition("this build found no cuDNN headers"); }
Status CudnnConv2d::PrepareBackwardFilter(void*, size_t) {
  return FailedPrecondition("this build found no cuDNN headers");
}
Status CudnnConv2d::RunBackwardData(void*, const void*, const void*, void*, void*) const {
  return FailedPrecondition("this build found no cuDNN headers");
}
Status CudnnConv2d::RunBackwardFilter(void*, const void*, const void*, void*, void*) const {
  return FailedPrecondition("this build found no cuDNN headers");
}
Status CudnnConv2dGeometry(const shape_fns::Window2D&, const Shape&, DType, CudnnGeometry*) {
  return FailedPrecondition("this build found no cuDNN headers");
}
Status CreateCudnnHandle(void*, void**) { return FailedPrecondition("this build found no cuDNN headers"); }
Status CudnnPool2dGeometry(const shape_fns::Window2D&, bool, DType, CudnnGeometry*) {
  return FailedPrecondition("this build found no cuDNN headers");
}
#endif

}  // namespace ember::cuda
