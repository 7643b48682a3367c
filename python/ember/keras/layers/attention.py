"""Attention layers: MultiHeadAttention (Keras' per-head projections), Attention and AdditiveAttention."""

import math

import numpy as np

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


class _BaseAttention(Layer):
    """``layer([query, value])`` or ``layer([query, value, key])``: softmax over the
    value steps of the scores, times the values. ``use_causal_mask`` hides later steps."""

    def __init__(self, use_scale=False, dropout=0.0, **kwargs):
        super().__init__(**kwargs)
        self.use_scale, self.dropout = use_scale, float(dropout)

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        scores = self._scores(query, key)
        t, s = scores.shape[-2], scores.shape[-1]
        hide = None
        if use_causal_mask:  # query step i sees value steps <= i
            hide = ember.constant(np.triu(np.ones((t, s), bool), 1))
        if mask is not None and len(mask) > 1 and mask[1] is not None:  # the value's padding
            pad = ember.logical_not(ember.expand_dims(ember.cast(mask[1], "bool"), -2))
            hide = pad if hide is None else ember.logical_or(hide, pad)
        if hide is not None:
            scores = ember.where(hide, ember.fill(ember.shape(scores), -1e9), scores)
        weights = nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = nn.dropout(weights, self.dropout)
        out = ember.matmul(weights, value)
        return (out, weights) if return_attention_scores else out

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale, "dropout": self.dropout}


class Attention(_BaseAttention):
    """Dot-product (Luong) attention: scores = query . key (times a learned scalar when
    ``use_scale``); ``score_mode="concat"`` scores with tanh(query + key) summed instead."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Attention: score_mode must be 'dot' or 'concat', got {score_mode!r}")
        self.score_mode = score_mode

    def build(self, input_shape):
        self.scale = self.add_weight(shape=(), initializer="ones", name="scale") if self.use_scale else None
        self.concat_score_weight = self.add_weight(shape=(), initializer="ones", name="concat_score_weight") \
            if self.score_mode == "concat" else None
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = ember.matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        joined = ember.expand_dims(query, -2) + ember.expand_dims(key, -3)
        if self.scale is not None:
            joined = joined * self.scale
        return self.concat_score_weight * ember.reduce_sum(ember.tanh(joined), axis=-1)

    def get_config(self):
        return {**super().get_config(), "score_mode": self.score_mode}


class AdditiveAttention(_BaseAttention):
    """Bahdanau attention: scores = sum(scale * tanh(query + key)) over features (scale
    a learned vector when ``use_scale``, the default)."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        dim = input_shape[0][-1]
        self.scale = self.add_weight(shape=(dim,), initializer="glorot_uniform", name="scale") \
            if self.use_scale else None
        self.built = True

    def _scores(self, query, key):
        joined = ember.tanh(ember.expand_dims(query, -2) + ember.expand_dims(key, -3))
        if self.scale is not None:
            joined = joined * self.scale
        return ember.reduce_sum(joined, axis=-1)
