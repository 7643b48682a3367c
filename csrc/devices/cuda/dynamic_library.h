// This file declares LoadLibrary: dlopen with the reason it failed, for the
// CUDA libraries Ember loads on first use (Note [Lazily loaded CUDA
// libraries]).
#pragma once

#include <string>
#include <vector>

namespace ember::cuda {

// Note [Lazily loaded CUDA libraries]
// Like the driver (Note [GPU discovery]), cuDNN and cuBLAS are not linked:
// Ember opens them with dlopen the first time something needs them and
// takes each function it calls by name. A CUDA build thus imports, and
// runs on the CPU, on machines that lack them; what is missing is said by
// the op that needed it (and by build_info). The function tables are typed
// from the headers the build found (decltype of each declaration), so a
// changed signature fails to compile rather than to run.

// Opens the first of `names` that loads; null if none did, with `error`
// naming them and dlerror's reason.
void* LoadLibrary(const std::vector<std::string>& names, std::string* error);

// The address of `symbol` in `library`, or null (then `error` says which).
void* LoadSymbol(void* library, const char* symbol, std::string* error);

}  // namespace ember::cuda
