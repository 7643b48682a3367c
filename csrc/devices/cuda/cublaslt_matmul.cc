// This file implements CublasLtGemm (Note [Row-major GEMM on cuBLAS],
// Note [Matmul precision on GPUs]).
#include "devices/cuda/cublaslt_matmul.h"

#include <atomic>
#include <climits>
#include <string>

#include "devices/cuda/cublaslt_api_table.h"

namespace ember::cuda {
namespace {

std::atomic<bool> g_allow_tf32{true};

Status BlasError(const CublasLtApi& api, cublasStatus_t status, const char* what) {
  return Internal(std::string(what) + " failed: " + api.GetStatusName(status));
}

#define EMBER_CUBLAS_RETURN_IF_ERROR(api, call, what)                            \
  do {                                                                           \
    const cublasStatus_t status_ = (call);                                       \
    if (status_ != CUBLAS_STATUS_SUCCESS) return BlasError(api, status_, what); \
  } while (0)

struct Types {
  cudaDataType_t data;
  cublasComputeType_t compute;
  cudaDataType_t scale;
};

Status TypesFor(DType dtype, Types* out) {
  switch (dtype) {
    case DType::kFloat32:
      *out = {CUDA_R_32F, g_allow_tf32.load() ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, CUDA_R_32F};
      return Status::OK();
    case DType::kFloat64: *out = {CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F}; return Status::OK();
    case DType::kFloat16: *out = {CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F}; return Status::OK();
    case DType::kBFloat16: *out = {CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F}; return Status::OK();
    default: return InvalidArgument(std::string("cuBLASLt has no ") + DTypeName(dtype) + " matmul");
  }
}

Status Fits(int64_t value, int64_t limit, const char* what) {
  if (value < 0 || value > limit) return InvalidArgument(std::string(what) + " " + std::to_string(value) + " is too large for cuBLASLt");
  return Status::OK();
}

}  // namespace

std::vector<int64_t> CublasLtEpilogueValues() {
  return {CUBLASLT_EPILOGUE_BIAS, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_EPILOGUE_GELU_BIAS};
}

void SetTensorFloat32Allowed(bool allowed) { g_allow_tf32.store(allowed); }
bool TensorFloat32Allowed() { return g_allow_tf32.load(); }

Status CublasLtGemm::Create(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue,
                            std::unique_ptr<CublasLtGemm>* out) {
  std::string error;
  const CublasLtApi* api = GetCublasLt(&error);
  if (api == nullptr) return FailedPrecondition(error);
  Types types;
  EMBER_RETURN_IF_ERROR(TypesFor(dtype, &types));
  EMBER_RETURN_IF_ERROR(Fits(plan.batch, INT_MAX, "batch count"));
  std::unique_ptr<CublasLtGemm> gemm(new CublasLtGemm());
  gemm->api_ = api;
  gemm->dtype_ = dtype;
  cublasLtMatmulDesc_t desc = nullptr;
  EMBER_CUBLAS_RETURN_IF_ERROR(*api, api->MatmulDescCreate(&desc, types.compute, types.scale), "cublasLtMatmulDescCreate");
  gemm->desc_ = desc;
  const cublasOperation_t op_a = plan.transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = plan.transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  EMBER_CUBLAS_RETURN_IF_ERROR(*api, api->MatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)),
                               "setting TRANSA");
  EMBER_CUBLAS_RETURN_IF_ERROR(*api, api->MatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)),
                               "setting TRANSB");
  const int64_t shapes[3][4] = {{plan.a_rows, plan.a_cols, plan.lda, plan.stride_a},
                                {plan.b_rows, plan.b_cols, plan.ldb, plan.stride_b},
                                {plan.m, plan.n, plan.ldd, plan.stride_d}};
  const int32_t batch = static_cast<int32_t>(plan.batch);
  for (int i = 0; i < 3; ++i) {
    cublasLtMatrixLayout_t layout = nullptr;
    EMBER_CUBLAS_RETURN_IF_ERROR(
        *api,
        api->MatrixLayoutCreate(&layout, types.data, static_cast<uint64_t>(shapes[i][0]),
                                static_cast<uint64_t>(shapes[i][1]), shapes[i][2]),
        "cublasLtMatrixLayoutCreate");
    gemm->layouts_[i] = layout;
    if (plan.batch > 1) {
      EMBER_CUBLAS_RETURN_IF_ERROR(
          *api, api->MatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)),
          "setting the batch count");
      const int64_t stride = shapes[i][3];
      EMBER_CUBLAS_RETURN_IF_ERROR(
          *api,
          api->MatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
          "setting the batch stride");
    }
  }
  gemm->epilogue_ = epilogue;
  if (epilogue != GemmEpilogue::kNone) {
    // Note [Matmul epilogues]: the bias is one value per row of cuBLAS's D.
    const cublasLtEpilogue_t e = epilogue == GemmEpilogue::kBias       ? CUBLASLT_EPILOGUE_BIAS
                                 : epilogue == GemmEpilogue::kReluBias ? CUBLASLT_EPILOGUE_RELU_BIAS
                                                                       : CUBLASLT_EPILOGUE_GELU_BIAS;
    EMBER_CUBLAS_RETURN_IF_ERROR(*api, api->MatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)),
                                 "setting the epilogue");
    const cudaDataType_t bias_type = types.data;
    EMBER_CUBLAS_RETURN_IF_ERROR(
        *api, api->MatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)),
        "setting the bias type");
  }
  *out = std::move(gemm);
  return Status::OK();
}

Status CublasLtGemm::DescribeEpilogue(int64_t* out) const {
  cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_DEFAULT;
  size_t written = 0;
  EMBER_CUBLAS_RETURN_IF_ERROR(*api_,
                               api_->MatmulDescGetAttribute(static_cast<cublasLtMatmulDesc_t>(desc_),
                                                            CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e), &written),
                               "reading the epilogue");
  *out = static_cast<int64_t>(e);
  return Status::OK();
}

CublasLtGemm::~CublasLtGemm() {
  if (api_ == nullptr) return;
  for (void* layout : layouts_) {
    if (layout != nullptr) api_->MatrixLayoutDestroy(static_cast<cublasLtMatrixLayout_t>(layout));
  }
  if (desc_ != nullptr) api_->MatmulDescDestroy(static_cast<cublasLtMatmulDesc_t>(desc_));
}

Status CublasLtGemm::Describe(int64_t out[3][5]) const {
  for (int i = 0; i < 3; ++i) {
    auto layout = static_cast<cublasLtMatrixLayout_t>(layouts_[i]);
    uint64_t rows = 0, cols = 0;
    int64_t ld = 0, stride = 0;
    int32_t batch = 1;
    size_t written = 0;
    EMBER_CUBLAS_RETURN_IF_ERROR(*api_, api_->MatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof(rows), &written), "reading ROWS");
    EMBER_CUBLAS_RETURN_IF_ERROR(*api_, api_->MatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_COLS, &cols, sizeof(cols), &written), "reading COLS");
    EMBER_CUBLAS_RETURN_IF_ERROR(*api_, api_->MatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_LD, &ld, sizeof(ld), &written), "reading LD");
    EMBER_CUBLAS_RETURN_IF_ERROR(*api_, api_->MatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch), &written), "reading BATCH_COUNT");
    EMBER_CUBLAS_RETURN_IF_ERROR(*api_, api_->MatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride), &written), "reading STRIDED_BATCH_OFFSET");
    out[i][0] = static_cast<int64_t>(rows);
    out[i][1] = static_cast<int64_t>(cols);
    out[i][2] = ld;
    out[i][3] = batch;
    out[i][4] = stride;
  }
  return Status::OK();
}

Status CublasLtGemm::Run(void* handle, const void* a, const void* b, void* d, void* workspace, size_t workspace_bytes,
                         void* stream, const void* bias) const {
  const float one_f = 1.0f, zero_f = 0.0f;
  const double one_d = 1.0, zero_d = 0.0;
  const bool wide = dtype_ == DType::kFloat64;
  const void* alpha = wide ? static_cast<const void*>(&one_d) : static_cast<const void*>(&one_f);
  const void* beta = wide ? static_cast<const void*>(&zero_d) : static_cast<const void*>(&zero_f);
  auto la = static_cast<cublasLtMatrixLayout_t>(layouts_[0]);
  auto lb = static_cast<cublasLtMatrixLayout_t>(layouts_[1]);
  auto ld = static_cast<cublasLtMatrixLayout_t>(layouts_[2]);
  // algo null: cuBLASLt runs its heuristic for this shape.
  auto desc = static_cast<cublasLtMatmulDesc_t>(desc_);
  std::unique_lock<std::mutex> lock(bias_mu_, std::defer_lock);
  if (epilogue_ != GemmEpilogue::kNone) {
    if (bias == nullptr) return InvalidArgument("a GEMM with a bias epilogue needs the bias");
    lock.lock();
    EMBER_CUBLAS_RETURN_IF_ERROR(
        *api_, api_->MatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)),
        "setting the bias");
  }
  EMBER_CUBLAS_RETURN_IF_ERROR(
      *api_,
      api_->Matmul(static_cast<cublasLtHandle_t>(handle), desc, alpha, a, la, b, lb, beta, d, ld, d, ld, nullptr,
                   workspace, workspace_bytes, static_cast<cudaStream_t>(stream)),
      "cublasLtMatmul");
  return Status::OK();
}

CublasLtGemmCache::Key CublasLtGemmCache::KeyOf(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue) {
  return {static_cast<int64_t>(dtype), static_cast<int64_t>(epilogue), TensorFloat32Allowed() ? 1 : 0, plan.transpose_a ? 1 : 0,
          plan.transpose_b ? 1 : 0, plan.m, plan.n, plan.a_rows, plan.a_cols, plan.lda, plan.b_rows, plan.b_cols,
          plan.ldb, plan.ldd, plan.batch, plan.stride_a, plan.stride_b, plan.stride_d};
}

Status CublasLtGemmCache::Get(const GemmPlan& plan, DType dtype, GemmEpilogue epilogue,
                              std::shared_ptr<const CublasLtGemm>* out) {
  const Key key = KeyOf(plan, dtype, epilogue);
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = entries_.size(); i-- > 0;) {
      if (entries_[i].key != key) continue;
      *out = entries_[i].gemm;
      if (i + 1 != entries_.size()) {  // most recently used last
        Entry hit = std::move(entries_[i]);
        entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
        entries_.push_back(std::move(hit));
      }
      return Status::OK();
    }
  }
  // Built outside the lock: cuBLASLt calls, and another thread's lookups
  // need not wait for them. Two threads may build the same plan; the
  // second to finish replaces nothing and uses its own.
  std::unique_ptr<CublasLtGemm> made;
  EMBER_RETURN_IF_ERROR(CublasLtGemm::Create(plan, dtype, epilogue, &made));
  std::shared_ptr<const CublasLtGemm> gemm(std::move(made));
  std::shared_ptr<const CublasLtGemm> evicted;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool present = false;
    for (const Entry& e : entries_) present = present || e.key == key;
    if (!present) {
      if (entries_.size() >= capacity_) {
        evicted = std::move(entries_.front().gemm);
        entries_.erase(entries_.begin());
      }
      entries_.push_back(Entry{key, gemm});
    }
  }
  *out = std::move(gemm);
  return Status::OK();
}

size_t CublasLtGemmCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

Status CreateCublasLtHandle(void** handle) {
  std::string error;
  const CublasLtApi* api = GetCublasLt(&error);
  if (api == nullptr) return FailedPrecondition(error);
  cublasLtHandle_t h = nullptr;
  EMBER_CUBLAS_RETURN_IF_ERROR(*api, api->Create(&h), "cublasLtCreate");
  *handle = h;
  return Status::OK();
}

}  // namespace ember::cuda
