// This file defines CudnnApi's table (for .cc files built with cuDNN's
// headers): one typed pointer per cuDNN function Ember calls.
#pragma once

#include <cudnn.h>

#include "devices/cuda/cudnn_api.h"

namespace ember::cuda {

// X(name): the cuDNN function cudnn<name>.
#define EMBER_CUDNN_FUNCTIONS(X)                                                                                 \
  X(GetVersion) X(GetErrorString) X(CreateTensorDescriptor) X(DestroyTensorDescriptor) X(SetTensor4dDescriptor) \
  X(CreateFilterDescriptor) X(DestroyFilterDescriptor) X(SetFilter4dDescriptor)                                 \
  X(CreateConvolutionDescriptor) X(DestroyConvolutionDescriptor) X(SetConvolution2dDescriptor)                  \
  X(SetConvolutionGroupCount) X(SetConvolutionMathType) X(GetConvolution2dForwardOutputDim)                     \
  X(CreatePoolingDescriptor) X(DestroyPoolingDescriptor) X(SetPooling2dDescriptor)                              \
  X(GetPooling2dForwardOutputDim) X(Create) X(Destroy) X(SetStream) X(GetConvolutionForwardAlgorithm_v7)       \
  X(GetConvolutionForwardWorkspaceSize) X(ConvolutionForward) X(GetConvolutionBackwardDataAlgorithm_v7)        \
  X(GetConvolutionBackwardDataWorkspaceSize) X(ConvolutionBackwardData)                                         \
  X(GetConvolutionBackwardFilterAlgorithm_v7) X(GetConvolutionBackwardFilterWorkspaceSize)                      \
  X(ConvolutionBackwardFilter)

struct CudnnApi {
#define EMBER_CUDNN_MEMBER(name) decltype(&cudnn##name) name = nullptr;
  EMBER_CUDNN_FUNCTIONS(EMBER_CUDNN_MEMBER)
#undef EMBER_CUDNN_MEMBER
};

}  // namespace ember::cuda
