"""ember.data.experimental: the names tf.data.experimental still holds for everyday code."""

from ember.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from ember.data._dataset import Dataset as _Dataset


def cardinality(dataset):
    """``dataset.cardinality()`` (``tf.data.experimental.cardinality``)."""
    if not isinstance(dataset, _Dataset):
        raise TypeError(f"cardinality: expected an ember.data.Dataset, got {type(dataset).__name__}")
    return dataset.cardinality()


__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality"]
