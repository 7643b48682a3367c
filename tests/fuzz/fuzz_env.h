// This file declares the environment the fuzz targets share: a host device
// named "cpu:0" without kernels, and two registered sub-graph functions
// for cond / while_loop / call_function nodes to refer to.
#pragma once

#include <memory>
#include <string>

#include "core/device.h"
#include "graph/function_library.h"
#include "graph/graph.h"

namespace ember::fuzz {

// A device that only exists: the fuzzers never run kernels, so it has no
// allocator or executor; placement finds no kernel on it.
class FuzzDevice final : public Device {
 public:
  FuzzDevice() : Device(kCpuDeviceType, 0, 0) {}
  Allocator* allocator() override { return nullptr; }
  Executor* executor() override { return nullptr; }
  bool host_memory() const override { return true; }
};

// Function 1: (bool[]) -> bool[], a cond for a loop or a branch.
// Function 2: (float32[]) -> float32[], a loop body or a branch.
inline const char* const kFunctionTexts[] = {
    "ember.graph 1\narg 0 0 bool[] cpu:0\nreturn 0:0\n",
    "ember.graph 1\narg 0 0 float32[] cpu:0\nnode 1 negative 0:0 - - float32 - float32[] cpu:0 %\nreturn 1:0\n",
};

inline void InitFuzzEnvironment() {
  static bool done = [] {
    DeviceManager::Global().Add(std::make_unique<FuzzDevice>());
    for (const char* text : kFunctionTexts) {
      Graph g;
      if (!Graph::FromText(text, &g).ok()) __builtin_trap();  // the fixtures themselves must read
      RegisterGraphFunction(std::make_shared<GraphFunction>(std::move(g)));
    }
    return true;
  }();
  (void)done;
}

}  // namespace ember::fuzz
