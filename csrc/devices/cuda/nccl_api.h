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

// For ember.config.build_info(): "NCCL 2.27.3" once the library is
// loaded, why it could not be, or that it is loaded on first use. It never
// loads NCCL itself: a process that loads the system's libnccl.so.2 first
// makes a later PyTorch import, which needs its own newer NCCL by the same
// soname, fail.
std::string NcclStatus();

}  // namespace ember::cuda
