"""ember.TensorArray (ember/_tensor_array.py): TensorFlow's eager semantics, and the array
as a while_loop variable inside @ember.function (Note [TensorArray representation])."""

import numpy as np
import pytest

import ember as tf
from ember import errors


def test_write_read_stack_size_eagerly():
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta = ta.write(0, [1.0, 2.0]).write(2, tf.constant([5.0, 6.0]))
    assert int(ta.size()) == 3 and ta.element_shape == tf.TensorShape([2])
    np.testing.assert_array_equal(ta.stack().numpy(), [[1, 2], [0, 0], [5, 6]])  # unwritten: zeros
    np.testing.assert_array_equal(ta.read(2).numpy(), [5, 6])
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[5, 6], [1, 2]])
    np.testing.assert_array_equal(ta.concat().numpy(), [1, 2, 0, 0, 5, 6])


def test_clear_after_read_is_the_eager_default():
    ta = tf.TensorArray(tf.float32, size=1).write(0, 1.0)
    assert float(ta.read(0)) == 1.0
    with pytest.raises(errors.InvalidArgumentError, match="twice"):
        ta.read(0)
    kept = tf.TensorArray(tf.float32, size=1, clear_after_read=False).write(0, 1.0)
    assert float(kept.read(0)) == float(kept.read(0)) == 1.0


def test_size_dtype_and_shape_are_checked():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(errors.OutOfRangeError, match="dynamic_size=False"):
        ta.write(2, 1.0)
    with pytest.raises(errors.InvalidArgumentError, match="dtype"):
        ta.write(0, tf.constant(1))
    ta.write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match="element shape"):
        ta.write(1, [1.0, 2.0, 3.0])
    grown = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in range(4):
        grown = grown.write(i, i * i)
    np.testing.assert_array_equal(grown.stack().numpy(), [0, 1, 4, 9])


def test_unstack_scatter_split():
    value = np.arange(6, dtype=np.float32).reshape(3, 2)
    ta = tf.TensorArray(tf.float32, size=3).unstack(value)
    np.testing.assert_array_equal(ta.stack().numpy(), value)
    ta = tf.TensorArray(tf.float32, size=4).scatter([3, 1], tf.constant(value[:2]))
    np.testing.assert_array_equal(ta.stack().numpy(), [[0, 0], [2, 3], [0, 0], [0, 1]])
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(tf.constant([1.0, 2.0, 3.0]), [1, 2])
    np.testing.assert_array_equal(ta.read(1).numpy(), [2, 3])


def test_empty_array_stacks_with_a_known_element_shape():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[3])
    assert tuple(ta.stack().shape) == (0, 3)
    with pytest.raises(ValueError, match="element_shape"):
        tf.TensorArray(tf.float32, size=0, dynamic_size=True).stack()


@pytest.mark.parametrize("mode", ["eager", "function"])
def test_loop_variable_of_while_loop(mode):
    # TensorFlow's idiom: the element shape is only known from the writes in the body.
    def squares(x):
        ta = tf.TensorArray(tf.float32, size=4)

        def body(i, ta):
            return i + 1, ta.write(i, x * tf.cast(i, tf.float32))

        _, ta = tf.while_loop(lambda i, _: i < 4, body, [tf.constant(0), ta])
        return ta.stack()

    f = squares if mode == "eager" else tf.function(squares)
    np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [[0, 0], [1, 2], [2, 4], [3, 6]])


def test_dynamic_array_grows_in_a_traced_loop():
    @tf.function
    def total(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(3):  # AutoGraph: one while_loop
            ta = ta.write(i, x + tf.cast(i, tf.float32))
        return tf.reduce_sum(ta.stack(), 0), ta.size()

    sums, size = total(tf.constant([1.0, 10.0]))
    np.testing.assert_array_equal(sums.numpy(), [6.0, 33.0])
    assert int(size) == 3


def test_read_previous_element_in_a_traced_loop_and_gradient():
    @tf.function
    def powers(x):
        ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).write(0, x)

        def body(i, ta):
            return i + 1, ta.write(i, ta.read(i - 1) * x)

        _, ta = tf.while_loop(lambda i, _: i < 4, body, [tf.constant(1), ta])
        return ta.stack()

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        p = powers(x)
        y = tf.reduce_sum(p)
    np.testing.assert_array_equal(p.numpy(), [2, 4, 8, 16])
    assert float(tape.gradient(y, x)) == pytest.approx(1 + 2 * 2 + 3 * 4 + 4 * 8)


def test_size_computed_in_the_trace():
    # TensorFlow programs size arrays from tf.shape(x)[0] and index rows with the loop counter.
    @tf.function
    def doubled_total(x):
        n = tf.shape(x)[0]
        ta = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            ta = ta.write(i, x[i] * 2.0)
        return tf.reduce_sum(ta.stack()), ta.size()

    total, size = doubled_total(tf.constant([1.0, 2.0, 3.0]))
    assert float(total) == 12.0 and int(size) == 3
