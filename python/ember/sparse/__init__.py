"""ember.sparse: SparseTensor and the common tf.sparse ops, built on dense Ember ops."""

from ember.sparse._sparse_tensor import SparseTensor
from ember.sparse._ops import add, from_dense, reduce_sum, reorder, sparse_dense_matmul, to_dense, transpose

__all__ = ["SparseTensor", "add", "from_dense", "reduce_sum", "reorder", "sparse_dense_matmul", "to_dense",
           "transpose"]
