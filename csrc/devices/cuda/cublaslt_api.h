// This file declares CublasLtApi: the cuBLASLt functions Ember calls,
// loaded on first use (Note [Lazily loaded CUDA libraries]). The table's
// definition needs cuBLAS's headers (cublaslt_api_table.h).
#pragma once

#include <string>

namespace ember::cuda {

struct CublasLtApi;

// Loaded on the first call; null if the library cannot be loaded, with
// `error` saying why.
const CublasLtApi* GetCublasLt(std::string* error);

}  // namespace ember::cuda
