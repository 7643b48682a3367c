"""ember.SparseTensor: a tensor stored as its entries' coordinates and values (``tf.sparse.SparseTensor``).

A Python composite of three tensors, as in TensorFlow: `indices` (int64,
[N, rank], row-major order), `values` ([N]) and `dense_shape` (int64,
[rank]). Ops on it (ember.sparse) are written with dense Ember ops on those
tensors, so a gradient tape sees the values.
"""

import numpy as np

from ember import _C
from ember._tensor import Tensor
from ember._tensor_shape import TensorShape
from ember.dtypes import int64
from ember._generated import ops


def _as_int64(value, what):
    if isinstance(value, Tensor):
        return value if value.dtype == int64 else ops.cast(value, int64)
    array = np.asarray(value)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"SparseTensor: {what} must be integers, got {array.dtype}")
    return _C.convert_to_tensor(array.astype(np.int64), int64)


class SparseTensor:
    """``tf.sparse.SparseTensor(indices, values, dense_shape)``."""

    def __init__(self, indices, values, dense_shape):
        self._indices = _as_int64(indices, "indices")
        self._values = values if isinstance(values, Tensor) else _C.convert_to_tensor(values, None)
        self._dense_shape = _as_int64(dense_shape, "dense_shape")
        if len(self._indices.shape) != 2 or len(self._values.shape) != 1 or len(self._dense_shape.shape) != 1:
            raise ValueError(f"SparseTensor: indices must be [N, rank], values [N] and dense_shape [rank], got "
                             f"{tuple(self._indices.shape)}, {tuple(self._values.shape)} and "
                             f"{tuple(self._dense_shape.shape)}")
        n, rank = self._indices.shape
        if None not in (n, self._values.shape[0]) and n != self._values.shape[0]:
            raise ValueError(f"SparseTensor: {n} indices but {self._values.shape[0]} values")
        if None not in (rank, self._dense_shape.shape[0]) and rank != self._dense_shape.shape[0]:
            raise ValueError(f"SparseTensor: indices have rank {rank} but dense_shape has {self._dense_shape.shape[0]}")
        # The static shape: known when dense_shape has a value (not symbolic).
        if _C._is_symbolic(self._dense_shape):
            self._shape = TensorShape([None] * (self._dense_shape.shape[0] or 0))
        else:
            self._shape = TensorShape([int(d) for d in self._dense_shape.numpy()])

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def shape(self):
        return self._shape

    def get_shape(self):
        return self._shape

    def with_values(self, new_values):
        """The same coordinates with other values."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    # The composite protocols: while_loop variables (Note [Structured loop
    # variables]) and function arguments and results (Note [Composite arguments]).
    def _components(self):
        return [self._indices, self._values, self._dense_shape]

    def _component_invariants(self, components):
        return [tuple(c.shape) for c in components]

    def _from_components(self, components):
        return SparseTensor(*components)

    def _arg_key(self):
        return ("SparseTensor", tuple(self._shape))

    def _arg_parts(self):
        return [self._indices, self._values]

    def _from_arg_parts(self, parts):
        return SparseTensor(parts[0], parts[1], self._dense_shape)

    def _static_dims(self, what):
        if any(d is None for d in self._shape):
            raise ValueError(f"{what}: the SparseTensor's dense_shape must be known (not computed in a traced "
                             "function)")
        return [int(d) for d in self._shape]

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")
