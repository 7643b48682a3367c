// This file defines CublasLtApi's table: one typed pointer per cuBLASLt
// function Ember calls.
#pragma once

#include <cublasLt.h>

#include "devices/cuda/cublaslt_api.h"

namespace ember::cuda {

// X(name): the cuBLASLt function cublasLt<name>.
#define EMBER_CUBLASLT_FUNCTIONS(X)                                                                \
  X(GetVersion) X(Create) X(Destroy) X(MatmulDescCreate) X(MatmulDescDestroy)                      \
  X(MatmulDescSetAttribute) X(MatmulDescGetAttribute) X(MatrixLayoutCreate) X(MatrixLayoutDestroy) X(MatrixLayoutSetAttribute) \
  X(MatrixLayoutGetAttribute) X(Matmul) X(GetStatusName)

struct CublasLtApi {
#define EMBER_CUBLASLT_MEMBER(name) decltype(&cublasLt##name) name = nullptr;
  EMBER_CUBLASLT_FUNCTIONS(EMBER_CUBLASLT_MEMBER)
#undef EMBER_CUBLASLT_MEMBER
};

}  // namespace ember::cuda
