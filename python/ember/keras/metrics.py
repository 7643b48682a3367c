"""keras.metrics: stateful metrics (state in ember Variables, so they update inside a traced step)."""

import numpy as _np

import ember
from ember._variables import Variable as _Variable
from ember.function import init_scope as _init_scope
from ember.keras import losses as _losses


class Metric:
    """``update_state(...)`` accumulates, ``result()`` reads, ``reset_state()`` zeroes.
    Calling a metric updates it and returns the result."""

    def __init__(self, name=None, dtype=None):
        from ember.keras.engine.naming import to_snake_case
        self.name = name or to_snake_case(type(self).__name__)
        self.dtype = dtype or "float32"
        self._variables = []

    def add_variable(self, shape, initializer="zeros", dtype=None, name=None):
        with _init_scope():  # a metric first used inside a traced step makes its state eagerly
            value = _np.zeros(shape, dtype=_np.dtype(dtype or self.dtype))
            # Under a strategy, as in TensorFlow: each replica accumulates its own copy inside
            # strategy.run, and result() (cross-replica) reads their sum (docs/distributed.md).
            policy = ({"synchronization": ember.VariableSynchronization.ON_READ,
                       "aggregation": ember.VariableAggregation.SUM} if value.dtype.kind == "f" else {})
            v = _Variable(value, trainable=False, name=f"{self.name}/{name}", **policy)
        self._variables.append(v)
        return v

    @property
    def variables(self):
        return list(self._variables)

    def reset_state(self):
        for v in self._variables:
            v.assign(_np.zeros(tuple(v.shape), v.dtype.as_numpy_dtype))

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


def _divide_no_nan(a, b):
    # 0 where the denominator is 0 (a metric read before any update), a / b elsewhere.
    safe = ember.where(ember.equal(b, 0.0), ember.ones_like(b), b)
    return ember.where(ember.equal(b, 0.0), ember.zeros_like(a), a / safe)


def _weighted(values, sample_weight):
    values = ember.cast(ember.convert_to_tensor(values), "float32")
    if sample_weight is None:
        return ember.reduce_sum(values), ember.cast(ember.size(values), "float32")
    sw = ember.cast(ember.convert_to_tensor(sample_weight), "float32")
    while len(sw.shape) > len(values.shape):
        sw = ember.squeeze(sw, [-1])
    sw = sw * ember.ones_like(values)
    return ember.reduce_sum(values * sw), ember.reduce_sum(sw)


class Sum(Metric):
    def __init__(self, name="sum", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable((), name="total")

    def update_state(self, values, sample_weight=None):
        self.total.assign_add(_weighted(values, sample_weight)[0])

    def result(self):
        return self.total.read_value()


class Mean(Metric):
    """The (weighted) mean of every value seen."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name, dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def update_state(self, values, sample_weight=None):
        total, count = _weighted(values, sample_weight)
        self.total.assign_add(total)
        self.count.assign_add(count)

    def result(self):
        return _divide_no_nan(self.total.read_value(), self.count.read_value())


class MeanMetricWrapper(Mean):
    """The mean of ``fn(y_true, y_pred)`` per example."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        super().__init__(name=name or fn.__name__, dtype=dtype)
        self._fn, self._fn_kwargs = fn, kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(self._fn(y_true, y_pred, **self._fn_kwargs), sample_weight)

    def get_config(self):
        return {**super().get_config(), **self._fn_kwargs}


# --- Accuracy functions: 1.0 where right, per example ----------------------
def accuracy(y_true, y_pred):
    y_pred = ember.convert_to_tensor(y_pred)
    y_true = ember.cast(ember.convert_to_tensor(y_true), y_pred.dtype)
    return ember.cast(ember.equal(y_true, y_pred), "float32")


def binary_accuracy(y_true, y_pred, threshold=0.5):
    y_pred = ember.convert_to_tensor(y_pred)
    y_true = ember.cast(ember.convert_to_tensor(y_true), "float32")
    predicted = ember.cast(ember.greater(y_pred, threshold), "float32")
    return ember.reduce_mean(ember.cast(ember.equal(y_true, predicted), "float32"), axis=-1)


def categorical_accuracy(y_true, y_pred):
    return ember.cast(ember.equal(ember.argmax(y_true, axis=-1), ember.argmax(y_pred, axis=-1)), "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    y_true = ember.convert_to_tensor(y_true)
    y_pred = ember.convert_to_tensor(y_pred)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = ember.squeeze(y_true, [-1])
    predicted = ember.argmax(y_pred, axis=-1)
    return ember.cast(ember.equal(ember.cast(y_true, "int64"), ember.cast(predicted, "int64")), "float32")


class Accuracy(MeanMetricWrapper):
    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name, dtype)


class BinaryAccuracy(MeanMetricWrapper):
    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(binary_accuracy, name, dtype, threshold=threshold)


class CategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name, dtype)


class SparseCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name, dtype)


class MeanSquaredError(MeanMetricWrapper):
    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_losses.mean_squared_error, name, dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_losses.mean_absolute_error, name, dtype)


class AUC(Metric):
    """Area under the ROC (or PR) curve from true/false positive/negative counts at
    ``num_thresholds`` evenly spaced thresholds (a prediction counts as positive
    when above a threshold), integrated with the trapezoid rule."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name="auc", dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        super().__init__(name, dtype)
        if curve not in ("ROC", "PR"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR', got {curve!r}")
        self.curve, self.num_thresholds, self.from_logits = curve, int(num_thresholds), from_logits
        eps = 1e-7  # the end thresholds sit just outside [0, 1], as in Keras
        inner = [(i + 1) / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
        self.thresholds = _np.array([-eps] + inner + [1.0 + eps], _np.float32)
        n = self.num_thresholds
        self.true_positives = self.add_variable((n,), name="true_positives")
        self.false_positives = self.add_variable((n,), name="false_positives")
        self.true_negatives = self.add_variable((n,), name="true_negatives")
        self.false_negatives = self.add_variable((n,), name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = ember.cast(ember.convert_to_tensor(y_pred), "float32")
        if self.from_logits:
            y_pred = ember.sigmoid(y_pred)
        y_true = ember.cast(ember.convert_to_tensor(y_true), "float32")
        pred = ember.reshape(y_pred, [-1, 1])
        truth = ember.reshape(y_true, [-1, 1])
        w = ember.ones_like(truth) if sample_weight is None else ember.reshape(
            ember.cast(ember.convert_to_tensor(sample_weight), "float32") * ember.ones_like(y_true), [-1, 1])
        above = ember.cast(ember.greater(pred, ember.constant(self.thresholds)[None, :]), "float32")
        self.true_positives.assign_add(ember.reduce_sum(above * truth * w, axis=0))
        self.false_positives.assign_add(ember.reduce_sum(above * (1.0 - truth) * w, axis=0))
        self.true_negatives.assign_add(ember.reduce_sum((1.0 - above) * (1.0 - truth) * w, axis=0))
        self.false_negatives.assign_add(ember.reduce_sum((1.0 - above) * truth * w, axis=0))

    def result(self):
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        div = _divide_no_nan
        if self.curve == "ROC":
            x, y = div(fp, fp + tn), div(tp, tp + fn)
        else:
            x, y = div(tp, tp + fn), div(tp, tp + fp)
        return ember.reduce_sum((x[:-1] - x[1:]) * (y[:-1] + y[1:]) * 0.5)

    def get_config(self):
        return {**super().get_config(), "num_thresholds": self.num_thresholds, "curve": self.curve,
                "from_logits": self.from_logits}


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return sparse_top_k_categorical_accuracy(ember.argmax(y_true, axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    y_true = ember.convert_to_tensor(y_true)
    y_pred = ember.convert_to_tensor(y_pred)
    if len(y_true.shape) == len(y_pred.shape) and y_true.shape[-1] == 1:
        y_true = ember.squeeze(y_true, [-1])
    _, top = ember.math.top_k(y_pred, k=min(k, y_pred.shape[-1]))
    hits = ember.equal(ember.cast(top, "int64"), ember.expand_dims(ember.cast(y_true, "int64"), -1))
    return ember.cast(ember.reduce_any(hits, axis=-1), "float32")


class TopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(top_k_categorical_accuracy, name, dtype, k=k)


class SparseTopKCategoricalAccuracy(MeanMetricWrapper):
    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None):
        super().__init__(sparse_top_k_categorical_accuracy, name, dtype, k=k)


class _Confusion(Metric):
    """True/false positives and negatives of predictions above ``thresholds`` (default 0.5)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name, dtype)
        self.thresholds = 0.5 if thresholds is None else thresholds
        self.true_positives = self.add_variable((), name="true_positives")
        self.false_positives = self.add_variable((), name="false_positives")
        self.false_negatives = self.add_variable((), name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        pred = ember.cast(ember.greater(ember.cast(ember.convert_to_tensor(y_pred), "float32"), self.thresholds),
                          "float32")
        truth = ember.cast(ember.convert_to_tensor(y_true), "float32")
        w = ember.ones_like(pred) if sample_weight is None else ember.reshape(
            ember.cast(ember.convert_to_tensor(sample_weight), "float32"), [-1] + [1] * (len(pred.shape) - 1)
        ) * ember.ones_like(pred)
        self.true_positives.assign_add(ember.reduce_sum(pred * truth * w))
        self.false_positives.assign_add(ember.reduce_sum(pred * (1.0 - truth) * w))
        self.false_negatives.assign_add(ember.reduce_sum((1.0 - pred) * truth * w))

    def get_config(self):
        return {**super().get_config(), "thresholds": self.thresholds}


class Precision(_Confusion):
    """tp / (tp + fp)."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision", dtype=None):
        super().__init__(thresholds, name, dtype)

    def result(self):
        tp = self.true_positives.read_value()
        return _divide_no_nan(tp, tp + self.false_positives.read_value())


class Recall(_Confusion):
    """tp / (tp + fn)."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        super().__init__(thresholds, name, dtype)

    def result(self):
        tp = self.true_positives.read_value()
        return _divide_no_nan(tp, tp + self.false_negatives.read_value())


_BY_NAME = {
    "accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
    "categorical_accuracy": CategoricalAccuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
    "mean_squared_error": MeanSquaredError, "mse": MeanSquaredError, "mean_absolute_error": MeanAbsoluteError,
    "mae": MeanAbsoluteError, "auc": AUC, "AUC": AUC, "Mean": Mean, "Sum": Sum, "Accuracy": Accuracy,
    "BinaryAccuracy": BinaryAccuracy, "CategoricalAccuracy": CategoricalAccuracy,
    "SparseCategoricalAccuracy": SparseCategoricalAccuracy, "MeanSquaredError": MeanSquaredError,
    "MeanAbsoluteError": MeanAbsoluteError, "precision": Precision, "Precision": Precision, "recall": Recall,
    "Recall": Recall, "top_k_categorical_accuracy": TopKCategoricalAccuracy,
    "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
    "TopKCategoricalAccuracy": TopKCategoricalAccuracy, "SparseTopKCategoricalAccuracy": SparseTopKCategoricalAccuracy,
}


def get(identifier):
    """A Metric from a name, a config dict, a Metric, or a function of (y_true, y_pred)."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"metrics.get: unknown metric {identifier!r}")
        return _BY_NAME[identifier]()
    if isinstance(identifier, dict):
        return _BY_NAME[identifier["class_name"]].from_config(identifier.get("config", {}))
    if callable(identifier):
        return MeanMetricWrapper(identifier)
    raise ValueError(f"metrics.get: cannot interpret {identifier!r} as a metric")


def _resolve_accuracy(name, loss, y_true_shape, y_pred_shape):
    """Keras' choice for "accuracy": from the loss when it says, else from the shapes."""
    loss_name = getattr(loss, "name", "") or ""
    if "sparse_categorical" in loss_name:
        cls = SparseCategoricalAccuracy
    elif "binary_crossentropy" in loss_name:
        cls = BinaryAccuracy
    elif "categorical_crossentropy" in loss_name:
        cls = CategoricalAccuracy
    elif y_pred_shape[-1] == 1:
        cls = BinaryAccuracy
    elif len(y_true_shape) < len(y_pred_shape) or y_true_shape[-1] == 1:
        cls = SparseCategoricalAccuracy
    else:
        cls = CategoricalAccuracy
    return cls(name=name)
