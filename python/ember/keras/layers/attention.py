"""MultiHeadAttention: Keras' projections per head, scaled dot-product attention, output projection."""

import math

import ember
from ember import nn
from ember.keras import initializers
from ember.keras.engine.layer import Layer
from ember.keras.engine.serialization import serialize


class MultiHeadAttention(Layer):
    """``layer(query, value, key=None, attention_mask=None, return_attention_scores=False)``.

    Weights as Keras names them: query/key/value kernels [dim, heads, key_dim]
    with biases [heads, key_dim], and an output kernel [heads, value_dim, out]
    (out = the query's last dim unless ``output_shape``). attention_mask is
    [batch, T, S] (or broadcastable), True where attention is allowed.
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros", **kwargs):
        for unused in ("kernel_regularizer", "bias_regularizer", "activity_regularizer", "kernel_constraint",
                       "bias_constraint", "seed"):
            kwargs.pop(unused, None)
        super().__init__(**kwargs)
        if attention_axes is not None:
            raise NotImplementedError("MultiHeadAttention: attention_axes is not supported")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim else self.key_dim
        self.dropout, self.use_bias, self.output_shape = float(dropout), use_bias, output_shape
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)

    def build(self, query_shape, value_shape=None, key_shape=None):
        pass  # built in call, where the value's and key's shapes are known

    def _projection(self, name, dim, heads, size):
        kernel = self.add_weight(shape=(dim, heads, size), initializer=self.kernel_initializer,
                                 name=f"{name}_kernel")
        bias = self.add_weight(shape=(heads, size), initializer=self.bias_initializer, name=f"{name}_bias") \
            if self.use_bias else None
        return kernel, bias

    def _build_weights(self, q_dim, k_dim, v_dim):
        h = self.num_heads
        self.query_kernel, self.query_bias = self._projection("query", q_dim, h, self.key_dim)
        self.key_kernel, self.key_bias = self._projection("key", k_dim, h, self.key_dim)
        self.value_kernel, self.value_bias = self._projection("value", v_dim, h, self.value_dim)
        out = self.output_shape if self.output_shape is not None else q_dim
        out = out[-1] if isinstance(out, (list, tuple)) else int(out)
        self.output_kernel = self.add_weight(shape=(h, self.value_dim, out), initializer=self.kernel_initializer,
                                             name="output_kernel")
        self.output_bias = self.add_weight(shape=(out,), initializer=self.bias_initializer, name="output_bias") \
            if self.use_bias else None
        self._weights_ready = True

    @staticmethod
    def _project(x, kernel, bias):
        y = ember.einsum("btd,dhk->bthk", x, kernel)
        return y + bias if bias is not None else y

    def call(self, query, value, key=None, attention_mask=None, return_attention_scores=False, training=False):
        key = value if key is None else key
        if not getattr(self, "_weights_ready", False):
            self._build_weights(query.shape[-1], key.shape[-1], value.shape[-1])
        q = self._project(query, self.query_kernel, self.query_bias) * (1.0 / math.sqrt(self.key_dim))
        k = self._project(key, self.key_kernel, self.key_bias)
        v = self._project(value, self.value_kernel, self.value_bias)
        scores = ember.einsum("bthk,bshk->bhts", q, k)
        if attention_mask is not None:
            mask = ember.cast(attention_mask, "bool")
            if len(mask.shape) == 3:
                mask = ember.expand_dims(mask, 1)  # the same mask for every head
            scores = ember.where(mask, scores, ember.fill(ember.shape(scores), -1e9))
        weights = nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = nn.dropout(weights, self.dropout)
        context = ember.einsum("bhts,bshk->bthk", weights, v)
        out = ember.einsum("bthk,hko->bto", context, self.output_kernel)
        if self.output_bias is not None:
            out = out + self.output_bias
        return (out, weights) if return_attention_scores else out

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout, "use_bias": self.use_bias,
                "output_shape": self.output_shape, "kernel_initializer": serialize(self.kernel_initializer),
                "bias_initializer": serialize(self.bias_initializer)}
