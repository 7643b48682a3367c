"""TensorFlow spellings that ported programs use: top_k's namedtuple, one-argument where,
boolean_mask, TensorShape, sliced variable assignment, name_scope, one_hot's dtype rules,
sigmoid_cross_entropy_with_logits, rank-generic pooling, string inputs. The expected values
are TensorFlow's documented behaviour (checked by hand against TensorFlow 2.21)."""

import pickle

import numpy as np
import pytest

import ember


# --- top_k ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [ember.math.top_k, ember.nn.top_k])
def test_top_k_returns_named_tuple(fn):
    result = fn(ember.constant([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), k=2)
    assert type(result).__name__ == "TopKV2"
    assert result._fields == ("values", "indices")
    np.testing.assert_array_equal(result.values.numpy(), [[3.0, 2.0], [5.0, 4.0]])
    np.testing.assert_array_equal(result.indices.numpy(), [[0, 2], [1, 2]])
    values, indices = result  # still unpacks like a tuple
    assert values is result[0] and indices is result[1]
    assert indices.dtype == ember.int32


def test_top_k_named_tuple_inside_function():
    @ember.function
    def f(x):
        return ember.math.top_k(x, k=1).indices

    np.testing.assert_array_equal(f(ember.constant([1.0, 7.0, 3.0])).numpy(), [1])


# --- where ------------------------------------------------------------------------------------

def test_where_one_argument_gives_coordinates():
    out = ember.where(ember.constant([[True, False], [False, True]]))
    assert out.dtype == ember.int64 and out.shape == (2, 2)
    np.testing.assert_array_equal(out.numpy(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(ember.where([1, 0, 3]).numpy(), [[0], [2]])  # nonzero counts as true
    empty = ember.where(np.zeros((0, 2), bool))
    assert empty.shape == (0, 2) and empty.dtype == ember.int64
    none_true = ember.where(np.zeros((2, 3), bool))
    assert none_true.shape == (0, 2)


def test_where_three_arguments_unchanged():
    out = ember.where([True, False, True], ember.constant([1.0, 2.0, 3.0]), 0.0)
    np.testing.assert_array_equal(out.numpy(), [1.0, 0.0, 3.0])


def test_where_needs_both_x_and_y():
    with pytest.raises(ValueError, match="x and y must both be given"):
        ember.where([True], x=ember.constant([1.0]))


def test_where_one_argument_on_traced_tensor_is_a_clear_error():
    @ember.function(input_signature=[ember.TensorSpec((3,), ember.bool)])
    def f(c):
        return ember.where(c)

    with pytest.raises(NotImplementedError, match="where: the result's shape depends on the values"):
        f(ember.constant([True, False, True]))


# --- newaxis and boolean_mask -----------------------------------------------------------------

def test_newaxis():
    assert ember.newaxis is None
    x = ember.constant([1.0, 2.0])
    assert x[ember.newaxis, :].shape == (1, 2)
    assert x[:, ember.newaxis].shape == (2, 1)


def test_boolean_mask_first_dims():
    t = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    np.testing.assert_array_equal(ember.boolean_mask(t, [True, False, True]).numpy(), [[1, 2], [5, 6]])
    np.testing.assert_array_equal(ember.boolean_mask(t[:2], [[True, False], [False, True]]).numpy(), [1, 4])


def test_boolean_mask_axis():
    t = np.arange(24).reshape(2, 3, 4)
    mask = np.array([[True, False, True, True], [False, False, True, False], [True, True, True, True]])
    out = ember.boolean_mask(t, mask, axis=1)
    np.testing.assert_array_equal(out.numpy(), t.reshape(2, 12)[:, mask.reshape(-1)])
    assert out.shape == (2, int(mask.sum()))
    np.testing.assert_array_equal(ember.boolean_mask(t, [False, True, True], axis=-2).numpy(), t[:, 1:])


def test_boolean_mask_errors():
    with pytest.raises(ValueError, match="incompatible"):
        ember.boolean_mask([1, 2], [True])
    with pytest.raises(ValueError, match="scalar"):
        ember.boolean_mask([1, 2], True)
    with pytest.raises(TypeError, match="bool"):
        ember.boolean_mask([1, 2], [1, 0])


def test_boolean_mask_gradient():
    x = ember.constant([1.0, 2.0, 3.0])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.reduce_sum(ember.boolean_mask(x, [True, False, True]) * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 0.0, 2.0])


# --- TensorShape ------------------------------------------------------------------------------

def test_shape_is_a_tensor_shape_and_a_tuple():
    x = ember.zeros([2, 3])
    s = x.shape
    assert isinstance(s, ember.TensorShape) and isinstance(s, tuple)
    assert x.get_shape() == s
    assert s == (2, 3) and s == [2, 3] and s == ember.TensorShape([2, 3])
    assert s != (3, 2) and s != [2] and not (s == ember.TensorShape(None))
    assert hash(s) == hash((2, 3))
    assert {s: 1}[(2, 3)] == 1
    rows, cols = s
    assert (rows, cols) == (2, 3)
    assert s.as_list() == [2, 3] and s.rank == 2 and s.ndims == 2 and len(s) == 2 and list(s) == [2, 3]
    assert s[0] == 2 and s[-1] == 3 and type(s[0]) is int
    assert isinstance(s[1:], ember.TensorShape) and s[1:] == (3,)
    assert str(s) == "(2, 3)" and repr(s) == "TensorShape([2, 3])" and f"{s}" == "(2, 3)"
    assert s.num_elements() == 6 and s.is_fully_defined()
    assert np.zeros(s).shape == (2, 3)


def test_shape_concatenation_keeps_tensor_shape():
    s = ember.zeros([2, 3]).shape
    assert s + (1,) == (2, 3, 1) and isinstance(s + (1,), ember.TensorShape)
    assert (1,) + s == (1, 2, 3) and isinstance((1,) + s, ember.TensorShape)
    assert s.concatenate([4]) == (2, 3, 4)


def test_shape_pickles():
    s = ember.zeros([2, 3]).shape
    back = pickle.loads(pickle.dumps(s))
    assert back == s and type(back) is ember.TensorShape
    unknown = pickle.loads(pickle.dumps(ember.TensorShape(None)))
    assert unknown.rank is None


def test_partial_shapes():
    s = ember.TensorShape([2, None, 3])
    assert str(s) == "(2, None, 3)" and s[1] is None
    assert not s.is_fully_defined() and s.num_elements() is None
    assert s == (2, None, 3) and s == ember.TensorShape([2, None, 3])
    assert s.is_compatible_with([2, 7, 3]) and not s.is_compatible_with([2, 7])
    assert not s.is_compatible_with([3, 7, 3])
    assert s.merge_with([2, 5, None]) == (2, 5, 3)
    with pytest.raises(ValueError, match="not compatible"):
        s.merge_with([3, 1, 1])
    assert s.with_rank(3) is s
    with pytest.raises(ValueError, match="must have rank 2"):
        s.with_rank(2)
    assert s.with_rank_at_least(1) is s and s.with_rank_at_most(3) is s
    assert s.as_list() == [2, None, 3]


def test_unknown_rank_shape():
    s = ember.TensorShape(None)
    assert s.rank is None and s.ndims is None and s.dims is None
    assert str(s) == "<unknown>" and repr(s) == "TensorShape(None)"
    assert s.is_compatible_with([1, 2]) and not s.is_fully_defined()
    assert s.merge_with([1, 2]) == (1, 2)
    assert s.with_rank(2) == (None, None)
    with pytest.raises(ValueError):
        s.as_list()
    with pytest.raises(ValueError):
        len(s)


def test_tensor_shape_truth_is_tensorflows():
    assert ember.constant(1.0).shape and ember.TensorShape([]) and ember.zeros([2]).shape
    assert not ember.TensorShape(None)


def test_tensor_shape_is_a_nest_leaf():
    s = ember.zeros([2, 3]).shape
    assert ember.nest.flatten([s, (1, 2)]) == [s, 1, 2]
    assert not ember.nest.is_nested(s)
    assert ember.nest.map_structure(lambda v: v, {"a": s})["a"] is s


def test_tensor_shape_construction():
    assert ember.TensorShape([]) == () and ember.TensorShape([]).rank == 0
    assert ember.TensorShape(3) == (3,)
    assert ember.TensorShape([np.int64(2), None]) == (2, None)
    with pytest.raises(TypeError):
        ember.TensorShape([1.5])


def test_spec_and_symbolic_shapes_are_tensor_shapes():
    spec = ember.TensorSpec((None, 2))
    assert isinstance(spec.shape, ember.TensorShape) and spec.shape == (None, 2)
    seen = []

    @ember.function(input_signature=[spec])
    def f(x):
        seen.append(x.shape)
        return x * 2.0

    f(ember.zeros([3, 2]))
    assert isinstance(seen[0], ember.TensorShape)
    assert seen[0].as_list() == [None, 2] and seen[0].rank == 2 and not seen[0].is_fully_defined()


# --- Indexing a tensor whose first dim is unknown ------------------------------------------------

def test_indexing_symbolic_tensor_with_unknown_dim():
    @ember.function(input_signature=[ember.TensorSpec((None, 2))])
    def f(x):
        return x[0], x[-1], x[1:], x[:, 1]

    first, last, rest, column = f(ember.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    np.testing.assert_array_equal(first.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(last.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(rest.numpy(), [[3.0, 4.0], [5.0, 6.0]])
    np.testing.assert_array_equal(column.numpy(), [2.0, 4.0, 6.0])


def test_array_indexing_symbolic_tensor_with_unknown_dim():
    @ember.function(input_signature=[ember.TensorSpec((None, 2))])
    def f(x):
        return x[[2, 0]]

    np.testing.assert_array_equal(f(ember.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).numpy(),
                                  [[5.0, 6.0], [1.0, 2.0]])

    @ember.function(input_signature=[ember.TensorSpec((None, 2))])
    def g(x):
        return x[[-1]]

    with pytest.raises(IndexError, match="non-negative"):
        g(ember.constant([[1.0, 2.0]]))


def test_indexing_symbolic_tensor_out_of_range_fails_when_run():
    @ember.function(input_signature=[ember.TensorSpec((None, 2))])
    def f(x):
        return x[2]

    with pytest.raises(ember.errors.InvalidArgumentError, match="out of bounds"):
        f(ember.constant([[1.0, 2.0]])).numpy()


# --- Variable slices ----------------------------------------------------------------------------

def test_variable_getitem_reads_like_a_tensor():
    v = ember.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(v[0].numpy(), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v[:, 1].numpy(), [2.0, 5.0])
    np.testing.assert_array_equal((v[1] * 2.0).numpy(), [8.0, 10.0, 12.0])
    assert v[0].shape == (3,) and v[0][1].numpy() == 2.0


def test_variable_shape_is_a_tensor_shape():
    v = ember.Variable(np.zeros((2, 3), np.float32))
    assert isinstance(v.shape, ember.TensorShape) and v.get_shape() == (2, 3)
    assert isinstance(v[0].shape, ember.TensorShape) and v[0].shape.as_list() == [3]


def test_variable_slice_is_a_snapshot():
    v = ember.Variable([1.0, 2.0])
    s = v[0]
    v.assign([5.0, 6.0])
    assert float(s) == 1.0


def test_sliced_assign():
    v = ember.Variable(np.zeros((3, 4), np.float32))
    assert v[0].assign([1.0, 2.0, 3.0, 4.0]) is v
    v[1:3].assign(7.0)  # broadcast
    v[:, 0].assign_add([10.0, 10.0, 10.0])
    v[-1, ::2].assign_sub(1.0)
    expected = np.zeros((3, 4), np.float32)
    expected[0] = [1, 2, 3, 4]
    expected[1:3] = 7
    expected[:, 0] += 10
    expected[-1, ::2] -= 1
    np.testing.assert_array_equal(v.numpy(), expected)
    v[..., 1].assign([0.0, 0.0, 0.0])
    expected[..., 1] = 0
    np.testing.assert_array_equal(v.numpy(), expected)


def test_sliced_assign_errors():
    v = ember.Variable(np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="cannot be assigned to a slice of shape"):
        v[0].assign([1.0, 2.0])
    with pytest.raises(TypeError, match="sliced assignment supports"):
        v[[0, 1]].assign(1.0)
    with pytest.raises(IndexError):
        v[5].assign(1.0)


def test_sliced_assign_inside_function_and_gradient():
    v = ember.Variable([[1.0, 2.0], [3.0, 4.0]])

    @ember.function
    def step():
        v[0, 1].assign(9.0)
        return v[0] + 1.0

    np.testing.assert_array_equal(step().numpy(), [2.0, 10.0])
    np.testing.assert_array_equal(v.numpy(), [[1.0, 9.0], [3.0, 4.0]])
    with ember.GradientTape() as tape:
        y = ember.reduce_sum(v[1] * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [[0.0, 0.0], [3.0, 3.0]])


# --- name_scope ------------------------------------------------------------------------------------

def test_name_scope_yields_scope_string():
    with ember.name_scope("outer") as scope:
        assert scope == "outer/"
        assert ember.get_current_name_scope() == "outer"
        with ember.name_scope("inner") as inner:
            assert inner == "outer/inner/"
        with ember.name_scope("abs/") as absolute:
            assert absolute == "abs/"
        y = ember.constant(1.0) + 1.0  # ops run as usual
    assert float(y) == 2.0
    assert ember.get_current_name_scope() == ""
    assert ember.name_scope("x").name == "x"
    with pytest.raises(ValueError):
        ember.name_scope(3)


# --- one_hot ------------------------------------------------------------------------------------------

def test_one_hot_default_float32():
    out = ember.one_hot([0, 2, -1, 3], 3)
    assert out.dtype == ember.float32
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])


@pytest.mark.parametrize("kwargs, dtype", [
    ({"on_value": 5}, ember.int32),
    ({"off_value": -1}, ember.int32),
    ({"on_value": 2.0}, ember.float32),
    ({"on_value": np.int64(3)}, ember.int64),
    ({"on_value": np.float64(2.0)}, ember.float64),
    ({"on_value": np.int16(3), "off_value": np.int16(1)}, ember.int16),
    ({"on_value": ember.constant(5, ember.int64)}, ember.int64),
    ({"on_value": 3, "dtype": ember.float32}, ember.float32),  # a Python int converts to dtype
    ({"dtype": ember.int32}, ember.int32),
    ({"dtype": "bool"}, ember.bool),
])
def test_one_hot_dtype_follows_values(kwargs, dtype):
    out = ember.one_hot([0, 1], 2, **kwargs)
    assert out.dtype == dtype
    on = kwargs.get("on_value", 1)
    off = kwargs.get("off_value", 0)
    on, off = np.asarray(on).item(), np.asarray(off).item()
    np.testing.assert_array_equal(out.numpy(), np.array([[on, off], [off, on]]).astype(dtype.as_numpy_dtype))


def test_one_hot_int64_is_exact():
    big = 2**53 + 1
    out = ember.one_hot([0, 1], 2, on_value=np.int64(big), off_value=np.int64(0))
    assert out.dtype == ember.int64
    assert out.numpy()[0, 0] == big and out.numpy()[1, 1] == big


def test_one_hot_dtype_mismatches():
    with pytest.raises(TypeError, match="dtype int32 of on_value does not match dtype float32 of off_value"):
        ember.one_hot([0, 1], 2, on_value=1, off_value=0.5)
    with pytest.raises(TypeError, match="dtype float32 of on_value does not match dtype parameter int32"):
        ember.one_hot([0, 1], 2, on_value=1.0, dtype=ember.int32)


def test_one_hot_axis_and_traced():
    np.testing.assert_array_equal(ember.one_hot([[0, 1]], 2, axis=0).numpy(), [[[1.0, 0.0]], [[0.0, 1.0]]])

    @ember.function
    def f(i):
        return ember.one_hot(i, 3, on_value=7, off_value=1)

    np.testing.assert_array_equal(f(ember.constant([2, 0])).numpy(), [[1, 1, 7], [7, 1, 1]])


# --- sigmoid_cross_entropy_with_logits -----------------------------------------------------------

def _sigmoid_xent_reference(z, x):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


def test_sigmoid_cross_entropy_values():
    z = np.array([1.0, 0.0, 0.5, 1.0, 0.0], np.float32)
    x = np.array([100.0, -100.0, 0.0, -3.0, 2.5], np.float32)
    out = ember.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x)
    assert out.dtype == ember.float32
    np.testing.assert_allclose(out.numpy(), _sigmoid_xent_reference(z, x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.numpy()[:3], [0.0, 0.0, np.log(2.0)], rtol=1e-6, atol=1e-30)
    big = ember.nn.sigmoid_cross_entropy_with_logits(labels=[0.0], logits=[1000.0])  # no overflow
    np.testing.assert_allclose(big.numpy(), [1000.0])


def test_sigmoid_cross_entropy_gradient():
    z = ember.constant([1.0, 0.0, 0.5, 1.0])
    x = ember.constant([0.3, -2.0, 0.0, 5.0])
    with ember.GradientTape() as tape:
        tape.watch([x, z])
        loss = ember.reduce_sum(ember.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x))
    dx, dz = tape.gradient(loss, [x, z])
    xs, zs = x.numpy(), z.numpy()
    np.testing.assert_allclose(dx.numpy(), 1 / (1 + np.exp(-xs)) - zs, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dz.numpy(), -xs, rtol=1e-6)


def test_sigmoid_cross_entropy_errors():
    with pytest.raises(ValueError, match="same shape"):
        ember.nn.sigmoid_cross_entropy_with_logits(labels=[1.0, 0.0], logits=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="both labels and logits"):
        ember.nn.sigmoid_cross_entropy_with_logits(logits=[1.0])


# --- Rank-generic pooling -----------------------------------------------------------------------------

def test_max_pool_and_avg_pool_1d():
    x = np.array([[[1.0], [3.0], [2.0], [5.0]]], np.float32)  # NWC
    np.testing.assert_array_equal(ember.nn.max_pool(x, 2, 2, "VALID").numpy(), [[[3.0], [5.0]]])
    np.testing.assert_array_equal(ember.nn.avg_pool(x, [2], [1], "SAME").numpy(), [[[2.0], [2.5], [3.5], [5.0]]])
    np.testing.assert_array_equal(ember.nn.max_pool1d(x, 2, 2, "VALID").numpy(), [[[3.0], [5.0]]])
    np.testing.assert_array_equal(ember.nn.avg_pool1d(x, 2, 2, "VALID").numpy(), [[[2.0], [3.5]]])
    ncw = np.transpose(x, (0, 2, 1))
    np.testing.assert_array_equal(ember.nn.max_pool(ncw, 2, 2, "VALID", data_format="NCW").numpy(), [[[3.0, 5.0]]])


def test_max_pool_and_avg_pool_2d():
    x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    out = ember.nn.max_pool(x, 2, 2, "VALID")
    np.testing.assert_array_equal(out.numpy()[0, :, :, 0], [[5.0, 7.0], [13.0, 15.0]])
    np.testing.assert_array_equal(ember.nn.max_pool(x, [2, 2], [1, 2, 2, 1], "VALID").numpy(), out.numpy())
    np.testing.assert_array_equal(ember.nn.avg_pool(x, 2, 2, "VALID").numpy()[0, :, :, 0], [[2.5, 4.5], [10.5, 12.5]])
    nchw = ember.nn.max_pool(np.zeros((1, 3, 4, 4), np.float32), 2, 2, "VALID", data_format="NCHW")
    assert nchw.shape == (1, 3, 2, 2)


def test_pool_rank_errors():
    # Rank 5 is 3-D pooling (tests/python/test_nn3d.py); ranks outside 3-5 are errors.
    assert ember.nn.max_pool(np.zeros((1, 4, 4, 4, 1), np.float32), 2, 2, "VALID").shape == (1, 2, 2, 2, 1)
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        ember.nn.max_pool(np.zeros((1, 2, 2, 2, 2, 1), np.float32), 2, 2, "VALID")
    with pytest.raises(ValueError, match="rank 3, 4 or 5"):
        ember.nn.avg_pool(np.zeros(4, np.float32), 2, 2, "VALID")


def test_pool_1d_gradient():
    x = ember.constant([[[1.0], [3.0], [2.0], [5.0]]])
    with ember.GradientTape() as tape:
        tape.watch(x)
        y = ember.reduce_sum(ember.nn.max_pool(x, 2, 2, "VALID"))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().reshape(-1), [0.0, 1.0, 0.0, 1.0])


# --- Strings -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["abc", b"abc", ["a", "b"], [["a"], ["b"]], np.array(["a", "b"]),
                                   np.array([b"a"])])
def test_string_values_make_host_string_tensors(value):
    # Strings are host-side string tensors (ember/_strings/), not C++ tensors.
    assert ember.constant(value).dtype == ember.string
    assert ember.convert_to_tensor(value).dtype == ember.string


def test_string_operand_of_a_numeric_op_raises_a_clear_type_error():
    with pytest.raises(TypeError, match="string tensors are not supported"):
        ember.add(ember.constant(1.0), "a")
