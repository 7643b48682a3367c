"""keras.layers: the Layer base class and the built-in layers."""

from ember.keras.engine.layer import Layer
from ember.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from ember.keras.layers.attention import AdditiveAttention, Attention, MultiHeadAttention
from ember.keras.layers.conv import (Conv1D, Conv1DTranspose, Conv2D, Conv2DTranspose, Conv3D, DepthwiseConv2D,
                                     SeparableConv2D)
from ember.keras.layers.core import (Activation, Dense, Dropout, Embedding, Flatten, Identity, Input, InputLayer,
                                     Lambda, Masking, Reshape, Rescaling)
from ember.keras.layers.merging import Add, Average, Concatenate, Maximum, Minimum, Multiply, Subtract
from ember.keras.layers.normalization import BatchNormalization, GroupNormalization, LayerNormalization
from ember.keras.layers.pooling import (AveragePooling1D, AveragePooling2D, AveragePooling3D, AvgPool1D, AvgPool2D,
                                        AvgPool3D, GlobalAveragePooling1D, GlobalAveragePooling2D,
                                        GlobalAveragePooling3D, GlobalAvgPool1D, GlobalAvgPool2D, GlobalAvgPool3D,
                                        GlobalMaxPool1D, GlobalMaxPool2D, GlobalMaxPool3D, GlobalMaxPooling1D,
                                        GlobalMaxPooling2D, GlobalMaxPooling3D, MaxPool1D, MaxPool2D, MaxPool3D,
                                        MaxPooling1D, MaxPooling2D, MaxPooling3D)
from ember.keras.layers.preprocessing import Normalization
from ember.keras.layers.regularization import GaussianDropout, GaussianNoise, SpatialDropout1D, SpatialDropout2D
from ember.keras.layers.reshaping import (Cropping1D, Cropping2D, Permute, RepeatVector, UpSampling1D, UpSampling2D,
                                          ZeroPadding1D, ZeroPadding2D)
from ember.keras.layers.rnn import GRU, LSTM, SimpleRNN
from ember.keras.layers.wrappers import Bidirectional, TimeDistributed

# Keras' long spellings.
Convolution1D, Convolution2D, Convolution3D, Convolution2DTranspose = Conv1D, Conv2D, Conv3D, Conv2DTranspose
SeparableConvolution2D = SeparableConv2D


def serialize(layer):
    from ember.keras.saving import serialize_layer
    return serialize_layer(layer)


def deserialize(config, custom_objects=None):
    from ember.keras.saving import deserialize_layer
    return deserialize_layer(config, custom_objects)
