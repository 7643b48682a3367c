// This file declares NcclApi: the NCCL functions the GPU collective kernels
// call, loaded on first use (Note [Lazily loaded CUDA libraries]). The
// table's definition needs NCCL's header (nccl_api_table.h); this header
// does not.
#pragma once

#include <string>

namespace ember::cuda {

struct NcclApi;

// NCCL's function table, loaded on the first call; null if this build
// found no NCCL header or the library cannot be loaded, with `error`
// saying which.
const NcclApi* GetNccl(std::string* error);

// "NCCL 2.27.3" for the loaded library, or why there is none; for
// ember.config.build_info().
std::string NcclStatus();

}  // namespace ember::cuda
