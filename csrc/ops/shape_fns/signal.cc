// This file implements the shape functions of the Fourier transforms
// (op_defs/signal.yaml): fft/ifft keep the shape, rfft/irfft resize the
// innermost dim from fft_length.
#include "ops/shape_fns/signal.h"

#include <string>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

Status CheckRankAtLeastOne(const Shape& in) {
  if (in.rank() == 0) return InvalidArgument("input must have rank >= 1, got a scalar");
  return Status::OK();
}

std::optional<std::vector<int64_t>> OptionalIntList(const AttrValue& v) {
  if (v.is_none()) return std::nullopt;
  return v.as_int_list();
}

}  // namespace

Status ResolveFftLength(const Shape& in, const std::optional<std::vector<int64_t>>& fft_length, bool inverse,
                        int64_t* n) {
  const int64_t inner = in.dim(in.rank() - 1);
  if (fft_length) {
    if (fft_length->size() != 1) {
      return InvalidArgument("fft_length must hold exactly one int, got " + IntListToString(*fft_length));
    }
    *n = (*fft_length)[0];
    if (*n < 0) return InvalidArgument("fft_length must be non-negative, got " + std::to_string(*n));
  } else if (inner == Shape::kUnknownDim) {
    *n = Shape::kUnknownDim;
    return Status::OK();
  } else if (!inverse) {
    *n = inner;
  } else {
    if (inner == 0) {
      return InvalidArgument("an input of shape " + in.ToString() +
                             " has no frequency terms: give fft_length or at least one term");
    }
    *n = 2 * (inner - 1);
  }
  if (*n > kMaxFftLength) {
    return InvalidArgument("fft_length " + std::to_string(*n) + " is too large (at most 2^31 - 1)");
  }
  return Status::OK();
}

Status Fft(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckRankAtLeastOne(in));
  if (in.dim(in.rank() - 1) > kMaxFftLength) {
    return InvalidArgument("the innermost dim of shape " + in.ToString() + " is too long (at most 2^31 - 1)");
  }
  ctx.set_output_shape(0, in);
  return Status::OK();
}

Status Rfft(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckRankAtLeastOne(in));
  int64_t n;
  EMBER_RETURN_IF_ERROR(ResolveFftLength(in, OptionalIntList(ctx.attr(0)), false, &n));
  Shape out = in;
  out.set_dim(in.rank() - 1, n == Shape::kUnknownDim ? n : n / 2 + 1);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status Irfft(ShapeContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckRankAtLeastOne(in));
  int64_t n;
  EMBER_RETURN_IF_ERROR(ResolveFftLength(in, OptionalIntList(ctx.attr(0)), true, &n));
  Shape out = in;
  out.set_dim(in.rank() - 1, n);
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns
