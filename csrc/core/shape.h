// This file declares Shape, a tensor's dimensions with inline storage.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace ember {

// Note [Shape limits]
// A shape is valid when every dim is >= 0 (or -1, unknown, while tracing)
// and the product of its nonzero dims fits in int64_t. Requiring the
// nonzero product to fit (TensorFlow asks it of the whole product) keeps
// every partial product -- strides, offsets, row counts -- in range, so
// kernels may multiply dims freely even when another dim is 0. A tensor's
// byte size must fit as well. Execute checks every output shape a shape
// function computes (ValidateShape), so no kernel ever sees an invalid one;
// shape functions use core/checked_math.h where their own arithmetic could
// wrap before that check.
inline constexpr int64_t kMaxRank = 254;

// A dimension of -1 is unknown (graph tracing); eager shapes are always
// fully known. Shapes up to kInlineRank dims live inline so the per-op path
// does not allocate; larger ranks spill to the heap.
class Shape {
 public:
  static constexpr int kInlineRank = 6;
  static constexpr int64_t kUnknownDim = -1;

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims);
  explicit Shape(const std::vector<int64_t>& dims);
  Shape(const int64_t* dims, int rank);
  // Inline: every tensor copy copies its shape.
  Shape(const Shape& other) : rank_(other.rank_) {
    if (other.heap_) {
      CopyHeap(other);
    } else {
      std::memcpy(inline_, other.inline_, sizeof(inline_));
    }
  }
  Shape& operator=(const Shape& other) {
    if (other.heap_ || heap_) return AssignSlow(other);
    rank_ = other.rank_;
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    return *this;
  }
  // A moved-from shape is a scalar.
  Shape(Shape&& other) noexcept : rank_(other.rank_), heap_(std::move(other.heap_)) {
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    other.rank_ = 0;
  }
  Shape& operator=(Shape&& other) noexcept {
    if (this == &other) return *this;
    rank_ = other.rank_;
    std::memcpy(inline_, other.inline_, sizeof(inline_));
    heap_ = std::move(other.heap_);
    other.rank_ = 0;
    return *this;
  }
  ~Shape() = default;

  int rank() const { return rank_; }
  int64_t dim(int i) const { return data()[i]; }
  void set_dim(int i, int64_t value) { data()[i] = value; }
  const int64_t* data() const { return heap_ ? heap_.get() : inline_; }
  int64_t* data() { return heap_ ? heap_.get() : inline_; }
  const int64_t* begin() const { return data(); }
  const int64_t* end() const { return data() + rank_; }

  void AddDim(int64_t value);
  void Resize(int rank);  // new dims are 0

  // Product of dims; -1 if any dim is unknown. Valid shapes (Note [Shape
  // limits]) never overflow; an invalid one saturates at INT64_MAX.
  // Scalars and vectors inline: a small op asks several times per call.
  int64_t NumElements() const {
    if (rank_ == 0) return 1;
    if (rank_ == 1) return data()[0] < 0 ? -1 : data()[0];
    return NumElementsOfMatrixOrMore();
  }
  bool IsFullyKnown() const;

  std::vector<int64_t> ToVector() const { return {begin(), end()}; }
  std::string ToString() const;  // "[2, 3]", unknown dims as "?"

  // Same rank, and equal dims wherever both are known (an unknown dim
  // matches any size): does a value of `other` fit this traced shape?
  bool IsCompatibleWith(const Shape& other) const;

  // Inline, a loop: memcmp's call costs more than a small op's few dims.
  bool operator==(const Shape& other) const {
    if (rank_ != other.rank_) return false;
    const int64_t* a = data();
    const int64_t* b = other.data();
    for (int i = 0; i < rank_; ++i) {
      if (a[i] != b[i]) return false;
    }
    return true;
  }
  bool operator!=(const Shape& other) const { return !(*this == other); }

 private:
  int64_t NumElementsOfMatrixOrMore() const;
  void CopyHeap(const Shape& other);
  Shape& AssignSlow(const Shape& other);

  int rank_ = 0;
  int64_t inline_[kInlineRank] = {};
  std::unique_ptr<int64_t[]> heap_;
};

// Checks Note [Shape limits] for a value of `dtype` (InvalidArgument for a
// bad dim or too many elements, ResourceExhausted for a byte size past
// int64_t). `allow_unknown` admits -1 dims (traced shapes).
Status ValidateShape(const Shape& shape, int64_t element_size, bool allow_unknown = false);

// Row-major strides (in elements) of a contiguous tensor of `shape`.
std::vector<int64_t> ContiguousStrides(const Shape& shape);

}  // namespace ember
