# ember.train.load_checkpoint / list_variables: a checkpoint's raw tensors by key, from TensorFlow's format or Ember's.

import os

import numpy as np

from ember import dtypes
from ember.errors import NotFoundError
from ember.train import _format, _state
from ember.train._bundle.bundle import BundleReader, is_bundle


class CheckpointReader:
    """The tensors of one checkpoint by key (``tf.train.load_checkpoint``'s reader).

    Reads TensorFlow's tensor bundles (``<prefix>.index`` and
    ``<prefix>.data-*``; keys such as ``model/w/.ATTRIBUTES/VARIABLE_VALUE``)
    and Ember's own checkpoints (``<prefix>.ckpt``; keys such as
    ``model/w``). Values are NumPy arrays; string tensors are object arrays
    of ``bytes`` (a 0-d one is the ``bytes`` itself), as in TensorFlow.
    """

    def __init__(self, prefix):
        self._prefix = os.fspath(prefix)
        self._bundle = None
        if os.path.exists(_format.file_for(self._prefix)):
            self._arrays = _format.read(self._prefix)[1]
        elif is_bundle(self._prefix):
            self._bundle = BundleReader(self._prefix)
        else:
            raise NotFoundError(f"no checkpoint {self._prefix!r}: neither {_format.file_for(self._prefix)!r} "
                                f"(Ember) nor {self._prefix + '.index'!r} (TensorFlow) exists")

    def _keys(self):
        return self._bundle.keys() if self._bundle is not None else list(self._arrays)

    def has_tensor(self, tensor_str):
        return tensor_str in (self._bundle if self._bundle is not None else self._arrays)

    def get_tensor(self, tensor_str):
        """The value saved under ``tensor_str``, a NumPy array."""
        if self._bundle is not None:
            return self._bundle.tensor(tensor_str)
        if tensor_str not in self._arrays:
            raise NotFoundError(f"key {tensor_str!r} not found in checkpoint {self._prefix!r}")
        return np.array(self._arrays[tensor_str])

    def get_variable_to_shape_map(self):
        """{key: shape as a list of ints}."""
        if self._bundle is not None:
            return {k: list(self._bundle.shape(k)) for k in self._keys()}
        return {k: list(a.shape) for k, a in self._arrays.items()}

    def get_variable_to_dtype_map(self):
        """{key: ember DType}; a dtype Ember lacks (string, uint16/32/64, complex128) is given by its name."""
        if self._bundle is None:
            return {k: dtypes.as_dtype(a.dtype) for k, a in self._arrays.items()}
        return {k: _as_dtype(self._bundle.dtype_name(k)) for k in self._keys()}

    def debug_string(self):
        """One line per tensor, ``key (dtype) [shape]``, as bytes."""
        shapes, types = self.get_variable_to_shape_map(), self.get_variable_to_dtype_map()
        lines = [f"{k} ({getattr(types[k], 'name', types[k])}) {shapes[k]}" for k in sorted(shapes)]
        return ("\n".join(lines) + "\n").encode("utf-8")


def _as_dtype(name):
    try:
        return dtypes.as_dtype(name)
    except (TypeError, ValueError, KeyError):
        return name


def _checkpoint_prefix(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = _state.latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path!r}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A ``CheckpointReader`` for a checkpoint prefix, or for a directory's latest checkpoint."""
    return CheckpointReader(_checkpoint_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """[(key, shape)] of every tensor in the checkpoint, sorted by key."""
    return sorted(load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map().items())
