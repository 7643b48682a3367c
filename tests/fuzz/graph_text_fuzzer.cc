// This file holds the libFuzzer target for Graph::FromText: arbitrary bytes
// must read into a valid graph or give InvalidArgument, never crash; a
// graph that reads must print and read back to the same text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "graph/graph.h"
#include "tests/fuzz/fuzz_env.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  ember::fuzz::InitFuzzEnvironment();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using ember::Graph;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Graph graph;
  ember::Status s = Graph::FromText(text, &graph);
  if (!s.ok()) {
    if (s.code() != ember::StatusCode::kInvalidArgument) __builtin_trap();
    return 0;
  }
  if (!ember::ValidateGraph(graph).ok()) __builtin_trap();
  const std::string printed = graph.ToText();
  Graph again;
  if (!Graph::FromText(printed, &again).ok() || again.ToText() != printed) __builtin_trap();
  return 0;
}
