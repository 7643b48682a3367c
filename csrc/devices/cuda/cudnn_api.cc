// This file implements GetCudnn (Note [Lazily loaded CUDA libraries]).
#include "devices/cuda/cudnn_api.h"

#ifdef EMBER_HAVE_CUDNN_HEADERS
#include "devices/cuda/cudnn_api_table.h"
#include "devices/cuda/dynamic_library.h"
#endif

namespace ember::cuda {

#ifdef EMBER_HAVE_CUDNN_HEADERS
namespace {

struct Loaded {
  CudnnApi api;
  std::string error;  // empty when loaded
};

Loaded Load() {
  Loaded out;
  void* library = LoadLibrary({"libcudnn.so." + std::to_string(CUDNN_MAJOR), "libcudnn.so"}, &out.error);
  if (library == nullptr) return out;
#define EMBER_CUDNN_LOAD(name)                                                                            \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(LoadSymbol(library, "cudnn" #name, &out.error)); \
  if (out.api.name == nullptr) return out;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_LOAD)
#undef EMBER_CUDNN_LOAD
  // The major version must be the headers': cuDNN changes its API between
  // majors.
  const size_t version = out.api.GetVersion();
  if (version / 10000 != CUDNN_MAJOR) {
    out.error = "the loaded cuDNN is version " + std::to_string(version) + ", but Ember was built against " +
                std::to_string(CUDNN_MAJOR) + ".x";
  }
  return out;
}

}  // namespace

const CudnnApi* GetCudnn(std::string* error) {
  static const Loaded loaded = Load();
  if (!loaded.error.empty()) {
    *error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}
#else
const CudnnApi* GetCudnn(std::string* error) {
  *error = "this build found no cuDNN headers";
  return nullptr;
}
#endif

}  // namespace ember::cuda
