"""ember.SparseTensor / ember.sparse and ember.RaggedTensor / ember.ragged (Python composites)
against NumPy references and the examples of TensorFlow's guides."""

import numpy as np
import pytest

import ember as tf
from ember import errors

# The tf.sparse guide's example: a 3x4 matrix with two entries.
ST = dict(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
DENSE = np.array([[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]], np.float32)


def test_sparse_tensor_components():
    st = tf.SparseTensor(**ST)
    assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64
    assert st.dtype == tf.float32 and st.shape == tf.TensorShape([3, 4])
    np.testing.assert_array_equal(st.values.numpy(), [1, 2])
    with pytest.raises(ValueError, match="indices"):
        tf.SparseTensor([[0, 0]], [1.0, 2.0], [3, 4])


def test_to_dense_and_from_dense():
    st = tf.SparseTensor(**ST)
    np.testing.assert_array_equal(tf.sparse.to_dense(st).numpy(), DENSE)
    np.testing.assert_array_equal(tf.sparse.to_dense(st, default_value=-1.0).numpy(),
                                  np.where(DENSE == 0, -1, DENSE))
    back = tf.sparse.from_dense(DENSE)
    np.testing.assert_array_equal(back.indices.numpy(), ST["indices"])
    np.testing.assert_array_equal(back.values.numpy(), ST["values"])
    np.testing.assert_array_equal(back.dense_shape.numpy(), ST["dense_shape"])


def test_add_with_dense_and_sparse():
    st = tf.SparseTensor(**ST)
    other = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(tf.sparse.add(st, tf.constant(other)).numpy(), DENSE + other)
    np.testing.assert_array_equal(tf.sparse.add(tf.constant(other), st).numpy(), DENSE + other)
    st2 = tf.SparseTensor([[1, 2], [2, 3]], [5.0, 1.0], [3, 4])
    total = tf.sparse.add(st, st2)
    assert isinstance(total, tf.SparseTensor)
    np.testing.assert_array_equal(total.indices.numpy(), [[0, 0], [1, 2], [2, 3]])
    np.testing.assert_array_equal(tf.sparse.to_dense(total).numpy(),
                                  DENSE + tf.sparse.to_dense(st2).numpy())


def test_reduce_sum():
    st = tf.SparseTensor(**ST)
    assert float(tf.sparse.reduce_sum(st)) == 3.0
    np.testing.assert_array_equal(tf.sparse.reduce_sum(st, axis=1).numpy(), DENSE.sum(1))
    np.testing.assert_array_equal(tf.sparse.reduce_sum(st, axis=0, keepdims=True).numpy(),
                                  DENSE.sum(0, keepdims=True))


def test_sparse_dense_matmul_and_its_gradient():
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    values = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(values)
        st = tf.SparseTensor(ST["indices"], values, ST["dense_shape"])
        out = tf.sparse.sparse_dense_matmul(st, b)
        loss = tf.reduce_sum(out)
    np.testing.assert_array_equal(out.numpy(), DENSE @ b)
    np.testing.assert_array_equal(tape.gradient(loss, values).numpy(), [b[0].sum(), b[2].sum()])
    c = np.ones((3, 5), np.float32)
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(st, c, adjoint_a=True).numpy(), DENSE.T @ c)
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(st, b.T, adjoint_b=True).numpy(), DENSE @ b)


def test_ragged_constant_and_partitions():
    # The tf.ragged guide's example.
    rt = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert isinstance(rt, tf.RaggedTensor) and rt.dtype == tf.int32
    assert rt.shape == tf.TensorShape([5, None]) and rt.ragged_rank == 1
    np.testing.assert_array_equal(rt.row_lengths().numpy(), [4, 0, 3, 1, 0])
    np.testing.assert_array_equal(rt.row_splits.numpy(), [0, 4, 4, 7, 8, 8])
    assert rt.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    np.testing.assert_array_equal(rt[2].numpy(), [5, 9, 2])


def test_from_row_lengths_and_row_splits():
    values = [3, 1, 4, 1, 5, 9, 2, 6]
    expected = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    assert tf.RaggedTensor.from_row_lengths(values, row_lengths=[4, 0, 3, 1, 0]).to_list() == expected
    assert tf.RaggedTensor.from_row_splits(values, row_splits=[0, 4, 4, 7, 8, 8]).to_list() == expected
    with pytest.raises(errors.InvalidArgumentError, match="row_splits"):
        tf.RaggedTensor.from_row_splits(values, row_splits=[0, 4, 3, 8])


def test_to_tensor_with_default_value_and_nesting():
    rt = tf.ragged.constant([[1.0, 2.0, 3.0], [], [4.0, 5.0]])
    np.testing.assert_array_equal(rt.to_tensor().numpy(), [[1, 2, 3], [0, 0, 0], [4, 5, 0]])
    np.testing.assert_array_equal(rt.to_tensor(default_value=-1.0).numpy(), [[1, 2, 3], [-1, -1, -1], [4, 5, -1]])
    nested = tf.ragged.constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert nested.ragged_rank == 2
    np.testing.assert_array_equal(nested.to_tensor().numpy(), [[[1, 2, 0], [3, 0, 0]], [[4, 5, 6], [0, 0, 0]]])
    assert nested.to_list() == [[[1, 2], [3]], [[4, 5, 6]]]


def test_elementwise_arithmetic_and_map_flat_values():
    rt = tf.ragged.constant([[1, 2, 3], [], [4, 5]])
    assert (rt * 2 + 1).to_list() == [[3, 5, 7], [], [9, 11]]
    assert (10 - rt).to_list() == [[9, 8, 7], [], [6, 5]]
    assert (rt + rt * rt).to_list() == [[2, 6, 12], [], [20, 30]]
    assert tf.ragged.map_flat_values(tf.square, rt).to_list() == [[1, 4, 9], [], [16, 25]]
    with pytest.raises(errors.InvalidArgumentError, match="row partitions"):
        rt + tf.ragged.constant([[1], [2], [3]])


def test_gradient_through_ragged_values():
    values = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(values)
        rt = tf.RaggedTensor.from_row_lengths(values, [2, 1])
        loss = tf.reduce_sum(rt.to_tensor(default_value=5.0) * tf.constant([[1.0, 10.0], [100.0, 1000.0]]))
    assert float(loss) == 1 + 20 + 300 + 5000
    np.testing.assert_array_equal(tape.gradient(loss, values).numpy(), [1, 10, 100])


def test_composites_as_function_arguments_and_results():
    # Note [Composite arguments]: a new batch of the same structure reuses the trace.
    @tf.function
    def dense_product(st, b):
        return tf.sparse.sparse_dense_matmul(st, b)

    b = np.ones((4, 2), np.float32)
    for values in ([1.0, 2.0], [3.0, 4.0]):
        st = tf.SparseTensor(ST["indices"], values, ST["dense_shape"])
        np.testing.assert_array_equal(dense_product(st, b).numpy(), tf.sparse.to_dense(st).numpy() @ b)
    assert dense_product.experimental_get_tracing_count() == 1

    @tf.function
    def scaled(rt):
        return rt * 3.0, rt.to_tensor()

    first, _ = scaled(tf.ragged.constant([[1.0], [2.0, 3.0]]))
    second, padded = scaled(tf.ragged.constant([[4.0], [5.0, 6.0]]))
    assert isinstance(first, tf.RaggedTensor)
    assert first.to_list() == [[3.0], [6.0, 9.0]] and second.to_list() == [[12.0], [15.0, 18.0]]
    np.testing.assert_array_equal(padded.numpy(), [[4, 0], [5, 6]])
    assert scaled.experimental_get_tracing_count() == 1


def test_reorder_and_transpose():
    st = tf.SparseTensor([[1, 2], [0, 0], [0, 3]], [1.0, 2.0, 3.0], [2, 4])
    ordered = tf.sparse.reorder(st)
    np.testing.assert_array_equal(ordered.indices.numpy(), [[0, 0], [0, 3], [1, 2]])
    np.testing.assert_array_equal(ordered.values.numpy(), [2.0, 3.0, 1.0])
    flipped = tf.sparse.transpose(st)
    assert flipped.shape == tf.TensorShape([4, 2])
    np.testing.assert_array_equal(tf.sparse.to_dense(flipped).numpy(), tf.sparse.to_dense(st).numpy().T)


def test_from_value_rowids_from_tensor_bounding_shape():
    # TensorFlow's docstring examples.
    rt = tf.RaggedTensor.from_value_rowids([3, 1, 4, 1, 5, 9, 2, 6], [0, 0, 0, 0, 2, 2, 2, 3], nrows=5)
    assert rt.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    dense = [[1, 2, 0], [3, 0, 0], [0, 0, 0]]
    assert tf.RaggedTensor.from_tensor(dense, padding=0).to_list() == [[1, 2], [3], []]
    assert tf.RaggedTensor.from_tensor(dense, lengths=[1, 3, 0]).to_list() == [[1], [3, 0, 0], []]
    assert tf.RaggedTensor.from_tensor([[1, 0, 2]], padding=0).to_list() == [[1, 0, 2]]  # only trailing padding
    np.testing.assert_array_equal(tf.ragged.constant([[1, 2, 3], [4]]).bounding_shape().numpy(), [2, 3])
