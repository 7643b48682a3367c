// This file declares CudnnApi: the cuDNN functions Ember calls, loaded on
// first use (Note [Lazily loaded CUDA libraries]). The table's definition
// needs cuDNN's headers (cudnn_api_table.h); this header does not.
#pragma once

#include <string>

namespace ember::cuda {

struct CudnnApi;

// cuDNN's function table, loaded on the first call; null if this build
// found no cuDNN headers or the library cannot be loaded, with `error`
// saying which.
const CudnnApi* GetCudnn(std::string* error);

}  // namespace ember::cuda
