// This file implements the OpenBLAS loader (Note [OpenBLAS on first use]).
#include "kernels/cpu/openblas.h"

#include "kernels/cpu/blas.h"

#ifdef EMBER_WITH_OPENBLAS

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace ember::cpu {
namespace {

constexpr const char* kLibraryName = "libscipy_openblas.so";

struct Loader {
  std::mutex mu;
  std::string directory;  // from SetOpenBlasDirectory
  std::once_flag once;
  OpenBlasFunctions functions;
  std::atomic<bool> loaded{false};
  std::string error;
};

Loader& GetLoader() {
  static Loader* loader = new Loader;  // never destroyed: kernels may run during exit
  return *loader;
}

// OPENBLAS_NUM_THREADS=1 for the duration of the load, unless the user set it.
class SingleThreadedLoad {
 public:
  SingleThreadedLoad() : set_(std::getenv("OPENBLAS_NUM_THREADS") == nullptr) {
    if (set_) setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  }
  ~SingleThreadedLoad() {
    if (set_) unsetenv("OPENBLAS_NUM_THREADS");
  }

 private:
  bool set_;
};

void* OpenLibrary(const std::string& directory, std::string* tried) {
  std::vector<std::string> candidates;
  if (const char* chosen = std::getenv("EMBER_OPENBLAS_LIBRARY"); chosen != nullptr && *chosen != '\0') {
    candidates.push_back(chosen);  // the user's choice, and only it
  } else {
    candidates.push_back(kLibraryName);
    if (!directory.empty()) candidates.push_back(directory + "/" + kLibraryName);
#ifdef EMBER_OPENBLAS_BUILD_LIBRARY
    candidates.push_back(EMBER_OPENBLAS_BUILD_LIBRARY);
#endif
  }
  SingleThreadedLoad single_threaded;
  for (const std::string& path : candidates) {
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* reason = dlerror();
    *tried += (tried->empty() ? "" : "; ") + std::string(reason != nullptr ? reason : path);
  }
  return nullptr;
}

void Load(Loader& loader) {
  std::string directory;
  {
    std::lock_guard<std::mutex> lock(loader.mu);
    directory = loader.directory;
  }
  std::string tried;
  void* handle = OpenLibrary(directory, &tried);
  if (handle == nullptr) {
    loader.error = "OpenBLAS (scipy-openblas32) could not be loaded: " + tried +
                   " (`pip install scipy-openblas32`, or reinstall it)";
    return;
  }
  OpenBlasFunctions& f = loader.functions;
  std::string missing;
#define EMBER_OPENBLAS_RESOLVE(name)                                          \
  f.name = reinterpret_cast<decltype(f.name)>(dlsym(handle, #name));          \
  if (f.name == nullptr) missing += (missing.empty() ? "" : ", ") + std::string(#name);
  EMBER_OPENBLAS_FUNCTIONS(EMBER_OPENBLAS_RESOLVE)
#undef EMBER_OPENBLAS_RESOLVE
  if (!missing.empty()) {
    loader.error = "the OpenBLAS library lacks " + missing + ": reinstall scipy-openblas32";
    return;
  }
  // Single-threaded per call (Note [BLAS GEMM]); NaN is a value, not an
  // argument error (Note [LAPACK for decompositions]).
  f.scipy_openblas_set_num_threads(1);
  f.scipy_LAPACKE_set_nancheck(0);
  loader.loaded.store(true, std::memory_order_release);
}

}  // namespace

const OpenBlasFunctions* OpenBlas() {
  Loader& loader = GetLoader();
  if (loader.loaded.load(std::memory_order_acquire)) return &loader.functions;
  std::call_once(loader.once, [&loader] { Load(loader); });
  return loader.loaded.load(std::memory_order_acquire) ? &loader.functions : nullptr;
}

const std::string& OpenBlasError() {
  OpenBlas();
  return GetLoader().error;
}

bool OpenBlasLoaded() { return GetLoader().loaded.load(std::memory_order_acquire); }

void SetOpenBlasDirectory(std::string directory) {
  Loader& loader = GetLoader();
  std::lock_guard<std::mutex> lock(loader.mu);
  loader.directory = std::move(directory);
}

}  // namespace ember::cpu

#endif  // EMBER_WITH_OPENBLAS
