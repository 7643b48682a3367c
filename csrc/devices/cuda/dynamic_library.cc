// This file implements LoadLibrary and LoadSymbol.
#include "devices/cuda/dynamic_library.h"

#include <dlfcn.h>

namespace ember::cuda {

void* LoadLibrary(const std::vector<std::string>& names, std::string* error) {
  std::string reasons;
  for (const std::string& name : names) {
    if (void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return handle;
    const char* why = dlerror();
    reasons += (reasons.empty() ? "" : "; ") + std::string(why != nullptr ? why : name + ": not found");
  }
  *error = "could not load " + (names.empty() ? std::string("a library") : names.front()) + " (" + reasons + ")";
  return nullptr;
}

void* LoadSymbol(void* library, const char* symbol, std::string* error) {
  dlerror();
  void* address = dlsym(library, symbol);
  if (address == nullptr) *error = std::string("missing symbol ") + symbol;
  return address;
}

}  // namespace ember::cuda
