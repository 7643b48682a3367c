// This file declares EinsumSpec, an einsum equation resolved against its
// operands' shapes; the shape function and the CPU kernel share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/shape.h"
#include "core/status.h"

namespace ember::shape_fns {

// Labels are small ints: first the dims that '...' stands for (0 .. E-1,
// in broadcast order, E = the most dims any operand's '...' covers), then
// 'A'-'Z', then 'a'-'z'. Ascending ids are therefore the implicit output
// order ('...' first, then the letters in ASCII order, as in NumPy).
struct EinsumSpec {
  std::vector<std::vector<int>> inputs;  // one label per dim of each operand (may repeat)
  std::vector<int> output;               // one label per output dim (unique)
  std::vector<int64_t> sizes;            // per label: its broadcast size (kUnknownDim if unknown)
  int num_ellipsis_dims = 0;             // E

  int num_labels() const { return static_cast<int>(sizes.size()); }
};

// Parses `equation` for `num_operands` operands of the given shapes and
// checks it: characters, term count, ranks, label sizes (exact for letters,
// broadcast for '...'), output labels. Errors are InvalidArgument.
Status ParseEinsum(const std::string& equation, const Shape* shapes, int num_operands,
                   EinsumSpec* spec);

// What the kernels (CPU and GPU) share of their order of work: operands
// join left to right, and each pair's labels split by where they occur.
// Per operand i: the labels the output or operands after i use.
std::vector<std::vector<bool>> EinsumLaterLabels(const EinsumSpec& spec);
// The labels of a pair (a, b) by role, each in first-appearance order
// without repeats; `later` marks the labels used after the pair.
struct EinsumPairLabels {
  std::vector<int> batch;       // in both, used later
  std::vector<int> contracted;  // in both, not used later
  std::vector<int> a_free, a_sum;  // only in a: used later, or summed now
  std::vector<int> b_free, b_sum;  // only in b
};
EinsumPairLabels SplitEinsumPair(const std::vector<int>& a, const std::vector<int>& b, const std::vector<bool>& later,
                                 int num_labels);
// The labels of `labels` not in `keep`, in first-appearance order without repeats.
std::vector<int> EinsumLabelsOutside(const std::vector<int>& labels, const std::vector<int>& keep, int num_labels);
// a then b.
std::vector<int> ConcatLabels(std::vector<int> a, const std::vector<int>& b);

}  // namespace ember::shape_fns
