// This file implements GetCublasLt (Note [Lazily loaded CUDA libraries]).
#include "devices/cuda/cublaslt_api.h"

#include "devices/cuda/cublaslt_api_table.h"
#include "devices/cuda/dynamic_library.h"

namespace ember::cuda {
namespace {

struct Loaded {
  CublasLtApi api;
  std::string error;  // empty when loaded
};

Loaded Load() {
  Loaded out;
  void* library = LoadLibrary({"libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR), "libcublasLt.so"}, &out.error);
  if (library == nullptr) return out;
#define EMBER_CUBLASLT_LOAD(name)                                                                            \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(LoadSymbol(library, "cublasLt" #name, &out.error)); \
  if (out.api.name == nullptr) return out;
  EMBER_CUBLASLT_FUNCTIONS(EMBER_CUBLASLT_LOAD)
#undef EMBER_CUBLASLT_LOAD
  const size_t version = out.api.GetVersion();
  if (version / 10000 != CUBLAS_VER_MAJOR) {
    out.error = "the loaded cuBLASLt is version " + std::to_string(version) + ", but Ember was built against " +
                std::to_string(CUBLAS_VER_MAJOR) + ".x";
  }
  return out;
}

}  // namespace

const CublasLtApi* GetCublasLt(std::string* error) {
  static const Loaded loaded = Load();
  if (!loaded.error.empty()) {
    *error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

}  // namespace ember::cuda
