"""ember.data.experimental: the names tf.data.experimental still holds for everyday code."""

from ember.data._dataset import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from ember.data._dataset import Dataset as _Dataset
from ember.data._csv_dataset import CsvDataset, make_csv_dataset


def cardinality(dataset):
    """``dataset.cardinality()`` (``tf.data.experimental.cardinality``)."""
    if not isinstance(dataset, _Dataset):
        raise TypeError(f"cardinality: expected an ember.data.Dataset, got {type(dataset).__name__}")
    return dataset.cardinality()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    """``ember.data.Dataset.sample_from_datasets`` (``tf.data.experimental.sample_from_datasets``)."""
    return _Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    """``ember.data.Dataset.choose_from_datasets`` (``tf.data.experimental.choose_from_datasets``)."""
    return _Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


__all__ = ["AUTOTUNE", "CsvDataset", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "cardinality",
           "choose_from_datasets", "make_csv_dataset", "sample_from_datasets"]
