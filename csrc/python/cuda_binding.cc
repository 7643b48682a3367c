// This file binds the CUDA library's host-side checks for tests: the cuDNN
// geometry of a conv2d or pooling call (Note [cuDNN convolution geometry])
// and the cuBLASLt layouts of a matmul (Note [Row-major GEMM on cuBLAS]),
// which need the libraries but no GPU; and whether GPU discovery ran the
// kernels' deferred registration (Note [Deferred CUDA registration]).
// Compiled into CUDA builds only.
#ifdef EMBER_WITH_CUDA
#include "python/cuda_binding.h"

#include <pybind11/stl.h>

#include "devices/cuda/cublaslt_matmul.h"
#include "devices/cuda/cuda_device.h"
#include "devices/cuda/cuda_init.h"
#include "devices/cuda/cudnn_conv.h"
#include "kernels/cuda/gemm_plan.h"
#include "python/status_to_python.h"

namespace py = pybind11;

namespace ember::python {
namespace {

void Check(const Status& s) {
  if (!s.ok()) {
    SetPythonError(s);
    throw py::error_already_set();
  }
}

// `op` is "conv2d", "max_pool2d" or "avg_pool2d"; `window` the filter's
// HWIO shape (conv2d) or ksize (pooling); the rest the op's attrs.
py::dict CudnnGeometry(const std::string& op, const std::vector<int64_t>& input, const std::vector<int64_t>& window,
                       const std::vector<int64_t>& strides, const std::string& padding,
                       const std::vector<int64_t>& explicit_paddings, const std::string& data_format,
                       const std::vector<int64_t>& dilations, const std::string& dtype_name) {
  bool nchw = false;
  Check(shape_fns::ParseDataFormat2D(data_format, &nchw));
  DType dtype;
  Check(ParseDType(dtype_name, &dtype));
  const bool conv = op == "conv2d";
  if (!conv && op != "max_pool2d" && op != "avg_pool2d") throw py::value_error("unknown op " + op);
  int64_t k_h, k_w, s_h, s_w, d_h = 1, d_w = 1;
  if (conv) {
    if (window.size() != 4) throw py::value_error("conv2d filters must be HWIO");
    k_h = window[0];
    k_w = window[1];
  } else {
    Check(shape_fns::SpatialPair(window, nchw, "ksize", &k_h, &k_w));
  }
  Check(shape_fns::SpatialPair(strides, nchw, "strides", &s_h, &s_w));
  if (!dilations.empty()) Check(shape_fns::SpatialPair(dilations, nchw, "dilations", &d_h, &d_w));
  shape_fns::Window2D w;
  Check(shape_fns::MakeWindow2D(Shape(input), nchw, k_h, k_w, s_h, s_w, d_h, d_w, padding, explicit_paddings, !conv, &w));
  cuda::CudnnGeometry g;
  if (conv) {
    Check(cuda::CudnnConv2dGeometry(w, Shape(window), dtype, &g));
  } else {
    Check(cuda::CudnnPool2dGeometry(w, op == "max_pool2d", dtype, &g));
  }
  py::dict out;
  out["output"] = g.output.ToVector();
  out["pads"] = std::vector<int64_t>{g.pad_h, g.pad_w};
  out["prepad"] = std::vector<int64_t>{g.prepad_top, g.prepad_bottom, g.prepad_left, g.prepad_right};
  out["groups"] = g.groups;
  return out;
}

// The GemmPlan of a matmul (Note [Row-major GEMM on cuBLAS]) and the
// layouts cuBLASLt built from it, read back from the library.
py::dict GemmLayouts(const std::vector<int64_t>& a, const std::vector<int64_t>& b, const std::vector<int64_t>& c,
                     bool transpose_a, bool transpose_b, const std::string& dtype_name) {
  DType dtype;
  Check(ParseDType(dtype_name, &dtype));
  cuda::GemmPlan plan;
  Check(cuda::MakeGemmPlan(Shape(a), Shape(b), Shape(c), transpose_a, transpose_b, &plan));
  py::dict out;
  out["m"] = plan.m;
  out["n"] = plan.n;
  out["k"] = plan.k;
  out["transpose_a"] = plan.transpose_a;
  out["transpose_b"] = plan.transpose_b;
  out["batch"] = plan.batch;
  out["offsets_a"] = plan.offsets_a;
  out["offsets_b"] = plan.offsets_b;
  out["offsets_d"] = plan.offsets_d;
  out["empty"] = plan.empty;
  if (plan.empty || plan.k == 0) return out;
  std::unique_ptr<cuda::CublasLtGemm> gemm;
  Check(cuda::CublasLtGemm::Create(plan, dtype, &gemm));
  int64_t layouts[3][5];
  Check(gemm->Describe(layouts));
  py::list described;
  for (auto& l : layouts) described.append(std::vector<int64_t>(l, l + 5));
  out["layouts"] = described;  // A, B, D: rows, cols, ld, batch, stride
  return out;
}

// Note [Matmul epilogues], for tests: the epilogue a fused_matmul's
// descriptor holds for `activation`, read back from cuBLASLt, with the
// value cuBLASLt's header gives each epilogue (bias, relu + bias, gelu +
// bias).
py::tuple GemmEpilogue(const std::string& activation, const std::string& dtype_name) {
  DType dtype;
  Check(ParseDType(dtype_name, &dtype));
  cuda::GemmPlan plan;
  Check(cuda::MakeGemmPlan(Shape({4, 3}), Shape({3, 5}), Shape({4, 5}), false, false, &plan));
  const cuda::GemmEpilogue e = activation == "relu"               ? cuda::GemmEpilogue::kReluBias
                               : activation == "gelu_approximate" ? cuda::GemmEpilogue::kGeluBias
                                                                  : cuda::GemmEpilogue::kBias;
  std::unique_ptr<cuda::CublasLtGemm> gemm;
  Check(cuda::CublasLtGemm::Create(plan, dtype, e, &gemm));
  int64_t got = 0;
  Check(gemm->DescribeEpilogue(&got));
  return py::make_tuple(got, cuda::CublasLtEpilogueValues());
}

// Note [GEMM descriptor cache], for tests: runs each (a, b, c, transpose_a,
// transpose_b, dtype, tf32) plan through one cache of `capacity` and
// returns the address of the descriptors each got, and the cache's size.
py::tuple GemmCacheProbe(const std::vector<py::tuple>& plans, size_t capacity) {
  cuda::CublasLtGemmCache cache(capacity);
  std::vector<std::shared_ptr<const cuda::CublasLtGemm>> kept;  // no address is reused meanwhile
  std::vector<uintptr_t> addresses;
  const bool tf32 = cuda::TensorFloat32Allowed();
  for (const py::tuple& p : plans) {
    DType dtype;
    Check(ParseDType(p[5].cast<std::string>(), &dtype));
    cuda::GemmPlan plan;
    Check(cuda::MakeGemmPlan(Shape(p[0].cast<std::vector<int64_t>>()), Shape(p[1].cast<std::vector<int64_t>>()),
                             Shape(p[2].cast<std::vector<int64_t>>()), p[3].cast<bool>(), p[4].cast<bool>(), &plan));
    cuda::SetTensorFloat32Allowed(p[6].cast<bool>());
    std::shared_ptr<const cuda::CublasLtGemm> gemm;
    const Status s = cache.Get(plan, dtype, &gemm);
    cuda::SetTensorFloat32Allowed(tf32);
    Check(s);
    addresses.push_back(reinterpret_cast<uintptr_t>(gemm.get()));
    kept.push_back(std::move(gemm));
  }
  return py::make_tuple(addresses, cache.size());
}

}  // namespace

void RegisterCudaBindings(py::module_& m) {
  m.def("_cudnn_geometry", &CudnnGeometry);
  m.def("_cublaslt_layouts", &GemmLayouts);
  m.def("_cublaslt_cache_probe", &GemmCacheProbe);
  m.def("_cublaslt_epilogue", &GemmEpilogue);
  // ember.config.experimental.enable_tensor_float_32_execution.
  m.def("_set_tensor_float_32", &cuda::SetTensorFloat32Allowed);
  m.def("_tensor_float_32", &cuda::TensorFloat32Allowed);
  m.def("_deferred_cuda_registration", [] {
    const DeferredCudaRegistration deferred = GetDeferredCudaRegistration();
    return py::make_tuple(deferred.constructors, deferred.ran);
  });
}

}  // namespace ember::python
#endif  // EMBER_WITH_CUDA
