// This file declares the function library: the GraphFunctions that
// call_function's `function` attr refers to, by id.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "graph/graph_function.h"

namespace ember {

// Thread-safe. Ids are never reused. The library does not own functions
// (Note [Function lifetime]): an id resolves while anything holds its
// function — the Python object, a calling GraphFunction, a cached kernel.
int64_t RegisterGraphFunction(const std::shared_ptr<const GraphFunction>& fn);
// The function, or null once nothing holds it.
std::shared_ptr<const GraphFunction> FindGraphFunction(int64_t id);

// FindGraphFunction, or InvalidArgument naming the missing id.
Status FindFunctionForCall(int64_t id, std::shared_ptr<const GraphFunction>* fn);

// Checks the inputs of `ctx` at `inputs` (dtypes, and shapes up to unknown
// dims) against g's arguments; gives g's output shapes for them.
Status InferCallShapes(const Graph& g, const ShapeContext& ctx, const std::vector<int>& inputs,
                       std::vector<Shape>* out);
// The indices [first, last).
std::vector<int> InputRange(int first, int last);

// Runs `fn` on `args` (one per graph argument) with its executor.
// `caller`: the device the arguments live on; results produced on other
// devices are copied to `results_device` (null: left where they are).
Status RunGraphFunction(const GraphFunction& fn, const std::vector<Tensor>& args, std::vector<Tensor>* results,
                        Device* caller, Device* results_device);

}  // namespace ember
