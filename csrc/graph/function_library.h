// This file declares the function library: the GraphFunctions that
// call_function's `function` attr refers to, by id.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/graph_function.h"

namespace ember {

// Thread-safe. Ids are never reused. A registered function stays alive while
// registered or while a cached call_function kernel holds it.
int64_t RegisterGraphFunction(std::shared_ptr<const GraphFunction> fn);
std::shared_ptr<const GraphFunction> FindGraphFunction(int64_t id);
void UnregisterGraphFunction(int64_t id);

}  // namespace ember
