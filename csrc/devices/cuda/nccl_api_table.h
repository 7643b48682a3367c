// This file defines NcclApi's table (for .cc files built with NCCL's
// header): one typed pointer per NCCL function Ember calls.
#pragma once

#include <nccl.h>

#include "devices/cuda/nccl_api.h"

namespace ember::cuda {

// X(name): the NCCL function nccl<name>.
#define EMBER_NCCL_FUNCTIONS(X)                                                                          \
  X(GetVersion) X(GetErrorString) X(GetUniqueId) X(CommInitRank) X(CommDestroy) X(CommAbort)             \
  X(CommGetAsyncError) X(AllReduce) X(AllGather) X(Broadcast) X(ReduceScatter) X(Send) X(Recv)          \
  X(GroupStart) X(GroupEnd)

struct NcclApi {
#define EMBER_NCCL_MEMBER(name) decltype(&nccl##name) name = nullptr;
  EMBER_NCCL_FUNCTIONS(EMBER_NCCL_MEMBER)
#undef EMBER_NCCL_MEMBER
};

}  // namespace ember::cuda
