// This file implements Shape.
#include "core/shape.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/checked_math.h"

namespace ember {

Shape::Shape(std::initializer_list<int64_t> dims) : Shape(dims.begin(), static_cast<int>(dims.size())) {}

Shape::Shape(const std::vector<int64_t>& dims) : Shape(dims.data(), static_cast<int>(dims.size())) {}

Shape::Shape(const int64_t* dims, int rank) {
  Resize(rank);
  std::copy(dims, dims + rank, data());
}

// Copies are on the per-op path: inline shapes copy as one fixed block.
void Shape::CopyHeap(const Shape& other) {
  heap_.reset(new int64_t[rank_]);
  std::copy(other.begin(), other.end(), heap_.get());
}

Shape& Shape::AssignSlow(const Shape& other) {
  if (this == &other) return *this;
  Resize(other.rank());
  std::copy(other.begin(), other.end(), data());
  return *this;
}

void Shape::Resize(int rank) {
  if (rank > kInlineRank && (!heap_ || rank > rank_)) {
    std::unique_ptr<int64_t[]> grown(new int64_t[rank]());
    std::copy(data(), data() + std::min(rank_, rank), grown.get());
    heap_ = std::move(grown);
  } else if (rank <= kInlineRank && heap_) {
    std::copy(heap_.get(), heap_.get() + std::min(rank_, rank), inline_);
    heap_.reset();
  }
  for (int i = rank_; i < rank; ++i) data()[i] = 0;
  rank_ = rank;
}

void Shape::AddDim(int64_t value) {
  Resize(rank_ + 1);
  data()[rank_ - 1] = value;
}

int64_t Shape::NumElementsOfMatrixOrMore() const {
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : *this) {
    if (d < 0) return -1;
    if (d == 0) return 0;
    overflow = overflow || !CheckedMul(n, d, &n);
  }
  return overflow ? std::numeric_limits<int64_t>::max() : n;
}

Status ValidateShape(const Shape& shape, int64_t element_size, bool allow_unknown) {
  if (shape.rank() > kMaxRank) {
    return InvalidArgument("rank " + std::to_string(shape.rank()) + " exceeds the maximum of " +
                           std::to_string(kMaxRank));
  }
  int64_t nonzero_product = 1;
  bool empty = false;
  for (int64_t d : shape) {
    empty = empty || d == 0;
    if (d < 0) {
      if (d == Shape::kUnknownDim && allow_unknown) continue;
      return InvalidArgument("shape " + shape.ToString() + " has a negative dimension");
    }
    if (d != 0 && !CheckedMul(nonzero_product, d, &nonzero_product)) {
      return InvalidArgument("shape " + shape.ToString() + " has too many elements (more than 2^63 - 1)");
    }
  }
  int64_t bytes;
  if (!empty && !CheckedMul(nonzero_product, element_size, &bytes)) {
    return ResourceExhausted("a tensor of shape " + shape.ToString() + " would need more than 2^63 - 1 bytes");
  }
  return Status::OK();
}

bool Shape::IsFullyKnown() const {
  return std::all_of(begin(), end(), [](int64_t d) { return d >= 0; });
}

std::string Shape::ToString() const {
  std::string s = "[";
  for (int i = 0; i < rank_; ++i) {
    if (i) s += ", ";
    s += dim(i) < 0 ? "?" : std::to_string(dim(i));
  }
  return s + "]";
}

bool Shape::IsCompatibleWith(const Shape& other) const {
  if (rank_ != other.rank_) return false;
  for (int i = 0; i < rank_; ++i) {
    if (dim(i) != kUnknownDim && other.dim(i) != kUnknownDim && dim(i) != other.dim(i)) return false;
  }
  return true;
}

std::vector<int64_t> ContiguousStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.rank());
  int64_t stride = 1;
  for (int i = shape.rank() - 1; i >= 0; --i) {
    strides[i] = stride;
    // Zero dims are skipped so that, for a valid shape, no partial product
    // overflows (Note [Shape limits]); strides of an empty tensor are unused.
    if (shape.dim(i) != 0) stride *= shape.dim(i);
  }
  return strides;
}

}  // namespace ember
