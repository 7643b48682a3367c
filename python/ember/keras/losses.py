"""keras.losses: loss classes (per-example values reduced over the batch) and their function forms."""

import ember
from ember import nn as _nn

EPSILON = 1e-7  # Keras' backend epsilon: probabilities are clipped to [eps, 1 - eps]


def _prepare(y_true, y_pred):
    y_pred = ember.convert_to_tensor(y_pred)
    y_true = ember.convert_to_tensor(y_true)
    if y_true.dtype != y_pred.dtype:
        y_true = ember.cast(y_true, y_pred.dtype)
    return y_true, y_pred


# --- Function forms: per-example losses (mean over the last axis) ------------
def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _prepare(y_true, y_pred)
    return ember.reduce_mean(ember.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _prepare(y_true, y_pred)
    return ember.reduce_mean(ember.abs(y_pred - y_true), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _prepare(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        values = _nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = ember.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        values = -(y_true * ember.log(p) + (1.0 - y_true) * ember.log(1.0 - p))
    return ember.reduce_mean(values, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _prepare(y_true, y_pred)
    if label_smoothing:
        n = y_pred.shape[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / n
    if from_logits:
        return -ember.reduce_sum(y_true * _nn.log_softmax(y_pred, axis=axis), axis=axis)
    p = y_pred / ember.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = ember.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -ember.reduce_sum(y_true * ember.log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    y_pred = ember.convert_to_tensor(y_pred)
    y_true = ember.convert_to_tensor(y_true)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = ember.squeeze(y_true, [-1])
    labels = ember.cast(y_true, "int32")
    if from_logits:
        values = _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=y_pred)
    else:
        p = y_pred / ember.reduce_sum(y_pred, axis=-1, keepdims=True)
        p = ember.clip_by_value(p, EPSILON, 1.0 - EPSILON)
        values = -ember.reduce_sum(ember.one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype) * ember.log(p),
                                   axis=-1)
    if ignore_class is not None:
        values = values * ember.cast(ember.not_equal(labels, ignore_class), values.dtype)
    return values


def huber(y_true, y_pred, delta=1.0):
    y_true, y_pred = _prepare(y_true, y_pred)
    err = ember.abs(y_pred - y_true)
    quad = ember.minimum(err, delta)
    return ember.reduce_mean(0.5 * ember.square(quad) + delta * (err - quad), axis=-1)


def hinge(y_true, y_pred):
    """mean(max(1 - y_true * y_pred, 0)); labels 0/1 become -1/1 as in Keras."""
    y_true, y_pred = _prepare(y_true, y_pred)
    y_true = ember.where(ember.equal(y_true, 0.0), -ember.ones_like(y_true), y_true)
    return ember.reduce_mean(ember.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _prepare(y_true, y_pred)
    t = ember.clip_by_value(y_true, EPSILON, 1.0)
    p = ember.clip_by_value(y_pred, EPSILON, 1.0)
    return ember.reduce_sum(t * ember.log(t / p), axis=-1)


def log_cosh(y_true, y_pred):
    y_true, y_pred = _prepare(y_true, y_pred)
    d = y_pred - y_true
    return ember.reduce_mean(d + _nn.softplus(-2.0 * d) - 0.6931471805599453, axis=-1)  # stable log(cosh(d))


def cosine_similarity(y_true, y_pred, axis=-1):
    """-cos(y_true, y_pred): Keras' loss form (minimizing it aligns the vectors)."""
    y_true, y_pred = _prepare(y_true, y_pred)

    def unit(v):
        return v * ember.rsqrt(ember.maximum(ember.reduce_sum(ember.square(v), axis=axis, keepdims=True), 1e-12))
    return -ember.reduce_sum(unit(y_true) * unit(y_pred), axis=axis)


mse, mae = mean_squared_error, mean_absolute_error
kld = kl_divergence


# --- Classes ---------------------------------------------------------------
class Loss:
    """``loss(y_true, y_pred, sample_weight=None)``: ``call`` gives per-example
    values, weighted by sample_weight, then reduced: "sum_over_batch_size"
    (the mean, Keras' default), "sum", or None/"none" (no reduction)."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in ("sum_over_batch_size", "sum", "none", None, "mean"):
            raise ValueError(f"{type(self).__name__}: unknown reduction {reduction!r}")
        self.name = name or _snake(type(self).__name__)
        self.reduction = reduction
        self.dtype = dtype

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        values = self.call(y_true, y_pred)
        if sample_weight is not None:
            sw = ember.cast(ember.convert_to_tensor(sample_weight), values.dtype)
            while len(sw.shape) > len(values.shape):
                sw = ember.squeeze(sw, [-1])
            values = values * sw
        if self.reduction in ("none", None):
            return values
        total = ember.reduce_sum(values)
        if self.reduction == "sum":
            return total
        return total / ember.cast(ember.size(values), values.dtype)

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _snake(name):
    from ember.keras.engine.naming import to_snake_case
    return to_snake_case(name)


class LossFunctionWrapper(Loss):
    def __init__(self, fn, name=None, reduction="sum_over_batch_size", **kwargs):
        super().__init__(name=name, reduction=reduction)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, reduction=reduction)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, reduction=reduction)


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        super().__init__(huber, name=name, reduction=reduction, delta=delta)


class Hinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name=name, reduction=reduction)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, reduction=reduction)


class LogCosh(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name=name, reduction=reduction)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None):
        super().__init__(cosine_similarity, name=name, reduction=reduction, axis=axis)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_crossentropy", dtype=None):
        super().__init__(binary_crossentropy, name=name, reduction=reduction, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy", dtype=None):
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction, from_logits=from_logits,
                         ignore_class=ignore_class)


_BY_NAME = {
    "mean_squared_error": MeanSquaredError, "mse": MeanSquaredError, "MeanSquaredError": MeanSquaredError,
    "mean_absolute_error": MeanAbsoluteError, "mae": MeanAbsoluteError, "MeanAbsoluteError": MeanAbsoluteError,
    "binary_crossentropy": BinaryCrossentropy, "BinaryCrossentropy": BinaryCrossentropy,
    "categorical_crossentropy": CategoricalCrossentropy, "CategoricalCrossentropy": CategoricalCrossentropy,
    "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
    "SparseCategoricalCrossentropy": SparseCategoricalCrossentropy,
    "huber": Huber, "Huber": Huber, "hinge": Hinge, "Hinge": Hinge, "kl_divergence": KLDivergence,
    "kld": KLDivergence, "KLDivergence": KLDivergence, "log_cosh": LogCosh, "LogCosh": LogCosh,
    "cosine_similarity": CosineSimilarity, "CosineSimilarity": CosineSimilarity,
}


def get(identifier):
    """A Loss from a name ("mse"), a config dict, a Loss, or a function (wrapped)."""
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"losses.get: unknown loss {identifier!r}")
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        return _BY_NAME[identifier["class_name"]].from_config(identifier.get("config", {}))
    if callable(identifier):
        return LossFunctionWrapper(identifier, name=getattr(identifier, "__name__", None))
    raise ValueError(f"losses.get: cannot interpret {identifier!r} as a loss")


def serialize(loss):
    if isinstance(loss, LossFunctionWrapper) and type(loss) is LossFunctionWrapper:
        return loss.fn.__name__
    return {"module": "keras.losses", "class_name": type(loss).__name__, "config": loss.get_config(),
            "registered_name": None}
