// This file implements GetNccl (Note [Lazily loaded CUDA libraries]).
#include "devices/cuda/nccl_api.h"

#ifdef EMBER_HAVE_NCCL_HEADERS
#include <atomic>

#include "devices/cuda/dynamic_library.h"
#include "devices/cuda/nccl_api_table.h"
#endif

namespace ember::cuda {

#ifdef EMBER_HAVE_NCCL_HEADERS
namespace {

struct Loaded {
  NcclApi api;
  std::string error;  // empty when loaded
  int version = 0;
};

Loaded Load() {
  Loaded out;
  void* library = LoadLibrary({"libnccl.so." + std::to_string(NCCL_MAJOR), "libnccl.so"}, &out.error);
  if (library == nullptr) return out;
#define EMBER_NCCL_LOAD(name)                                                                           \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(LoadSymbol(library, "nccl" #name, &out.error)); \
  if (out.api.name == nullptr) return out;
  EMBER_NCCL_FUNCTIONS(EMBER_NCCL_LOAD)
#undef EMBER_NCCL_LOAD
  if (out.api.GetVersion(&out.version) != ncclSuccess) {
    out.error = "ncclGetVersion failed";
  } else if (out.version / 10000 != NCCL_MAJOR) {  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z
    out.error = "the loaded NCCL is version " + std::to_string(out.version) + ", but Ember was built against " +
                std::to_string(NCCL_MAJOR) + ".x";
  }
  return out;
}

std::atomic<bool> g_loaded{false};

const Loaded& Get() {
  static const Loaded loaded = Load();
  g_loaded.store(true);
  return loaded;
}

}  // namespace

const NcclApi* GetNccl(std::string* error) {
  const Loaded& loaded = Get();
  if (!loaded.error.empty()) {
    *error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

std::string NcclStatus() {
  if (!g_loaded.load()) return "not loaded yet (loaded by the first collective on a GPU)";
  const Loaded& loaded = Get();
  if (!loaded.error.empty()) return loaded.error;
  const int v = loaded.version;
  return "NCCL " + std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." + std::to_string(v % 100);
}
#else
const NcclApi* GetNccl(std::string* error) {
  *error = "this build found no NCCL header";
  return nullptr;
}

std::string NcclStatus() { return "this build found no NCCL header"; }
#endif

}  // namespace ember::cuda
