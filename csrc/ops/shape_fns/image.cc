// This file implements the shape functions of the image resizing ops
// (op_defs/image.yaml): [batch, height, width, channels] in and out.
#include <string>

#include "ops/shape_fns/shape_fns.h"

namespace ember::shape_fns {
namespace {

// The kernels index rows and columns with int64 but compute source positions
// in float32, as TensorFlow does; it caps sizes at int32's range.
constexpr int64_t kMaxImageDim = (int64_t{1} << 31) - 1;

Status CheckImages(const Shape& images, const char* what) {
  if (images.rank() != 4) {
    return InvalidArgument(std::string(what) + " must have rank 4 [batch, height, width, channels], got shape " +
                           images.ToString());
  }
  for (int i : {1, 2}) {
    const int64_t d = images.dim(i);
    if (d == 0 || d > kMaxImageDim) {
      return InvalidArgument(std::string(what) + " must have a height and width in [1, 2^31 - 1], got shape " +
                             images.ToString());
    }
  }
  return Status::OK();
}

// Checks `size` ([height, width], positive) and returns images' shape with them.
Status ResizedShape(const Shape& images, const std::vector<int64_t>& size, const char* what, Shape* out) {
  if (size.size() != 2) {
    return InvalidArgument(std::string(what) + " must be [height, width], got " + IntListToString(size));
  }
  for (int64_t d : size) {
    if (d <= 0 || d > kMaxImageDim) {
      return InvalidArgument(std::string(what) + " must be positive (and below 2^31), got " + IntListToString(size));
    }
  }
  *out = images;
  out->set_dim(1, size[0]);
  out->set_dim(2, size[1]);
  return Status::OK();
}

}  // namespace

Status ImageResize(ShapeContext& ctx) {
  const Shape& images = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckImages(images, "images"));
  Shape out;
  EMBER_RETURN_IF_ERROR(ResizedShape(images, ctx.attr(0).as_int_list(), "size", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

Status ImageResizeGrad(ShapeContext& ctx) {
  const Shape& grads = ctx.input_shape(0);
  EMBER_RETURN_IF_ERROR(CheckImages(grads, "grads"));
  Shape out;
  EMBER_RETURN_IF_ERROR(ResizedShape(grads, ctx.attr(0).as_int_list(), "original_size", &out));
  ctx.set_output_shape(0, std::move(out));
  return Status::OK();
}

}  // namespace ember::shape_fns
