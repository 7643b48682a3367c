"""The public segment, bincount, unique and sampling functions: what the op database cannot
express (sizes computed from values, errors found by kernels, randomness checked
statistically). The ops themselves are checked against NumPy in op_db_segments.py and
op_db_sampling.py."""

import numpy as np
import pytest

import ember

_SEGMENT_REFS = {
    "segment_sum": (np.add, 0), "segment_prod": (np.multiply, 1),
    "segment_max": (np.maximum, None), "segment_min": (np.minimum, None),
}


def _segment_ref(name, data, ids):
    n = ids[-1] + 1 if ids.size else 0
    out = np.zeros((n,) + data.shape[1:], data.dtype)
    for s in range(n):
        rows = data[ids == s]
        if name == "segment_mean":
            out[s] = rows.mean(axis=0) if len(rows) else 0
        else:
            ufunc, empty = _SEGMENT_REFS[name]
            out[s] = ufunc.reduce(rows, axis=0) if len(rows) else (empty or 0)
    return out


@pytest.mark.parametrize("name", ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"])
def test_sorted_segments_size_comes_from_the_last_id(name):
    data = np.arange(12, dtype=np.float64).reshape(6, 2) - 4
    ids = np.array([0, 0, 2, 2, 3, 5])
    out = getattr(ember.math, name)(data, ids)
    assert out.shape == (6, 2)
    np.testing.assert_allclose(out.numpy(), _segment_ref(name, data, ids))
    # Empty segments (1 and 4) are 0, or 1 for prod, as TensorFlow documents.
    assert (out.numpy()[[1, 4]] == (1 if name == "segment_prod" else 0)).all()


def test_sorted_segments_take_tensors_and_empty_ids():
    ids = ember.constant([0, 1, 1], dtype=ember.int64)
    np.testing.assert_array_equal(ember.math.segment_sum(ember.constant([1, 2, 3]), ids).numpy(), [1, 5])
    assert ember.math.segment_sum(np.zeros((0, 3), np.float32), np.zeros(0, np.int32)).shape == (0, 3)


def test_segment_mean_of_integers_truncates():
    np.testing.assert_array_equal(ember.math.segment_mean([1, 2, -1, -2], [0, 0, 1, 1]).numpy(), [1, -1])


@pytest.mark.parametrize("ids, message", [
    ([0, 2, 1], "segment_sum: segment ids are not increasing"),
    ([-1, 0, 0], "segment_sum: segment ids must be >= 0"),
    ([[0, 0, 1]], "segment_sum: segment_ids must be 1-D"),
])
def test_sorted_segments_reject_bad_ids_at_the_call(ids, message):
    with pytest.raises(ember.errors.InvalidArgumentError, match=message):
        ember.math.segment_sum([1.0, 2.0, 3.0], ids)


def test_sorted_segment_kernel_checks_ids_too():
    # The op called directly (num_segments given) still refuses unsorted ids.
    from ember._generated import ops
    with pytest.raises(ember.errors.InvalidArgumentError, match="segment_max: segment ids are not increasing"):
        ops.segment_max(np.ones(3), np.array([1, 0, 1]), 2).numpy()


def test_unsorted_segments_drop_negative_ids_and_use_identities():
    data = np.array([[1.0, -2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
    ids = np.array([1, -1, 1])
    np.testing.assert_array_equal(ember.math.unsorted_segment_sum(data, ids, 3).numpy(),
                                  [[0, 0], [6, 4], [0, 0]])
    out = ember.math.unsorted_segment_max(data, ids, 3).numpy()
    np.testing.assert_array_equal(out[1], [5, 6])
    assert (out[[0, 2]] == np.finfo(np.float32).min).all()  # TF: numeric_limits<T>::lowest()
    assert (ember.math.unsorted_segment_min(data, ids, 3).numpy()[0] == np.finfo(np.float32).max).all()
    np.testing.assert_allclose(ember.math.unsorted_segment_sqrt_n(data, ids, 3).numpy()[1],
                               np.array([6, 4]) / np.sqrt(2))
    np.testing.assert_array_equal(ember.math.unsorted_segment_mean(data, ids, 2).numpy(), [[0, 0], [3, 2]])


def test_unsorted_segments_take_a_tensor_num_segments():
    out = ember.math.unsorted_segment_prod([2, 3, 4], [0, 0, 2], ember.constant(3))
    np.testing.assert_array_equal(out.numpy(), [6, 1, 4])


def test_unsorted_segment_id_past_num_segments_is_an_error():
    with pytest.raises(ember.errors.InvalidArgumentError,
                       match=r"unsorted_segment_sum: segment_ids\[1\] = 3 is out of range \[0, 3\)"):
        ember.math.unsorted_segment_sum([1.0, 2.0], [0, 3], 3).numpy()


def test_unsorted_segments_trace_in_functions():
    f = ember.function(lambda d, i: ember.math.unsorted_segment_sum(d, i, 2))
    np.testing.assert_array_equal(f(ember.constant([1.0, 2.0, 4.0]), ember.constant([1, 0, 1])).numpy(), [2, 5])


def test_segment_gradients_against_tensorflow_formulas():
    data = ember.constant([[1.0, 5.0], [3.0, 2.0], [3.0, 0.0]])
    ids = ember.constant([0, 0, 1])
    with ember.GradientTape(persistent=True) as tape:
        tape.watch(data)
        total = ember.reduce_sum(ember.math.segment_sum(data, ids) * [[1.0, 2.0], [3.0, 4.0]])
        mean = ember.reduce_sum(ember.math.unsorted_segment_mean(data, ids, 3))
        top = ember.reduce_sum(ember.math.unsorted_segment_max(data, ember.constant([0, 0, 0]), 1))
    np.testing.assert_array_equal(tape.gradient(total, data).numpy(), [[1, 2], [1, 2], [3, 4]])
    np.testing.assert_array_equal(tape.gradient(mean, data).numpy(), [[0.5, 0.5], [0.5, 0.5], [1, 1]])
    # Column 0's maximum 3 is tied between rows 1 and 2: the gradient is split, as in TensorFlow.
    np.testing.assert_array_equal(tape.gradient(top, data).numpy(), [[0, 1], [0.5, 0], [0.5, 0]])


def test_sorted_segments_need_concrete_ids_in_functions():
    f = ember.function(lambda d, i: ember.math.segment_sum(d, i))
    with pytest.raises(NotImplementedError, match="segment_sum"):
        f(ember.constant([1.0, 2.0]), ember.constant([0, 1]))


# --- bincount ------------------------------------------------------------------------


def test_bincount_matches_numpy_with_minlength_maxlength_and_weights():
    arr = np.array([[1, 1, 4], [0, 7, 1]], np.int32)
    np.testing.assert_array_equal(ember.math.bincount(arr).numpy(), np.bincount(arr.ravel()))
    assert ember.math.bincount(arr).dtype == ember.int32
    np.testing.assert_array_equal(ember.math.bincount(arr, minlength=10).numpy(),
                                  np.bincount(arr.ravel(), minlength=10))
    np.testing.assert_array_equal(ember.math.bincount(arr, maxlength=3).numpy(), [1, 3, 0])
    w = np.array([[0.5, 1.0, 2.0], [3.0, 4.0, 5.0]], np.float32)
    out = ember.math.bincount(arr, weights=w)
    assert out.dtype == ember.float32
    np.testing.assert_allclose(out.numpy(), np.bincount(arr.ravel(), w.ravel()))
    np.testing.assert_array_equal(ember.math.bincount(arr, dtype=ember.int64, binary_output=True).numpy(),
                                  [1, 1, 0, 0, 1, 0, 0, 1])
    assert ember.math.bincount([], minlength=2).numpy().tolist() == [0, 0]


def test_bincount_axis_minus_one_counts_each_row():
    arr = np.array([[1, 1, 2], [0, 3, 3]])
    np.testing.assert_array_equal(ember.math.bincount(arr, axis=-1).numpy(), [[0, 2, 1, 0], [1, 0, 0, 2]])
    np.testing.assert_array_equal(ember.math.bincount(arr, axis=-1, binary_output=True).numpy(),
                                  [[0, 1, 1, 0], [1, 0, 0, 1]])


@pytest.mark.parametrize("kwargs, exc, message", [
    ({"arr": [1, -1]}, ember.errors.InvalidArgumentError, "non-negative"),
    ({"arr": [1, 2], "weights": [1.0, 2.0], "binary_output": True}, ValueError, "mutually exclusive"),
    ({"arr": [1, 2], "axis": 1}, ValueError, "Unsupported axis"),
    ({"arr": [1.5]}, TypeError, "int32 or int64"),
])
def test_bincount_errors(kwargs, exc, message):
    with pytest.raises(exc, match=f"bincount: .*{message}"):
        ember.math.bincount(**kwargs)


# --- unique ----------------------------------------------------------------------------


def test_unique_in_first_occurrence_order():
    result = ember.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    assert type(result).__name__ == "Unique"
    np.testing.assert_array_equal(result.y.numpy(), [1, 2, 4, 7, 8])
    np.testing.assert_array_equal(result.idx.numpy(), [0, 0, 1, 2, 2, 2, 3, 4, 4])
    assert result.idx.dtype == ember.int32
    y, idx, count = ember.unique_with_counts(np.array([5.0, -0.0, 5.0, 0.0, 3.0]), out_idx=ember.int64)
    np.testing.assert_array_equal(y.numpy(), [5.0, 0.0, 3.0])
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 0, 1, 2])
    np.testing.assert_array_equal(count.numpy(), [2, 2, 1])
    assert count.dtype == idx.dtype == ember.int64
    empty = ember.unique(np.zeros(0, np.float32))
    assert empty.y.shape == (0,) and empty.idx.shape == (0,)


def test_unique_gives_each_nan_its_own_value():
    y, idx = ember.unique([np.nan, 1.0, np.nan])
    assert y.shape == (3,)
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 2])


def test_unique_needs_a_vector():
    with pytest.raises(ValueError, match="unique_index: x must be 1-D"):
        ember.unique([[1, 2]])


# --- random.shuffle and random.categorical ---------------------------------------------


def test_shuffle_permutes_rows_and_is_reproducible():
    value = np.arange(40).reshape(20, 2)
    ember.random.set_seed(7)
    first = ember.random.shuffle(value, seed=3).numpy()
    second = ember.random.shuffle(value, seed=3).numpy()
    ember.random.set_seed(7)
    again = ember.random.shuffle(value, seed=3).numpy()
    np.testing.assert_array_equal(first, again)  # set_seed restarts the sequence
    assert not np.array_equal(first, second)  # each call draws a new order
    assert sorted(first[:, 0].tolist()) == value[:, 0].tolist()
    np.testing.assert_array_equal(first[:, 1], first[:, 0] + 1)  # rows move whole


def test_shuffle_positions_are_uniform():
    # Where element 0 lands over many shuffles of 10 rows: a chi-square test at a fixed seed.
    ember.random.set_seed(1234)
    trials, n = 2000, 10
    landed = np.zeros(n)
    for _ in range(trials):
        landed[int(np.argmax(ember.random.shuffle(np.arange(n)).numpy() == 0))] += 1
    chi2 = ((landed - trials / n) ** 2 / (trials / n)).sum()
    assert chi2 < 27.9  # the 0.999 quantile with 9 degrees of freedom


def test_categorical_frequencies_follow_softmax():
    with np.errstate(divide="ignore"):
        logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.0, 0.2, 0.1]]))
    ember.random.set_seed(42)
    samples = ember.random.categorical(logits, 20000, seed=1)
    assert samples.dtype == ember.int64 and samples.shape == (2, 20000)
    for row, probs in zip(samples.numpy(), np.exp(logits)):
        counts = np.bincount(row, minlength=4)
        nonzero = probs > 0
        expected = probs[nonzero] * row.size
        chi2 = ((counts[nonzero] - expected) ** 2 / expected).sum()
        assert chi2 < 16.3  # the 0.999 quantile with 3 degrees of freedom
        assert counts[~nonzero].sum() == 0  # a -inf logit is never drawn


def test_categorical_dtype_and_seeding():
    logits = np.zeros((3, 5), np.float32)
    ember.random.set_seed(5)
    a = ember.random.categorical(logits, 4, dtype=ember.int32, seed=9)
    ember.random.set_seed(5)
    b = ember.random.categorical(logits, 4, dtype=ember.int32, seed=9)
    assert a.dtype == ember.int32
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    stateless = ember.random.stateless_categorical(logits, 4, seed=[1, 2])
    np.testing.assert_array_equal(stateless.numpy(), ember.random.stateless_categorical(logits, 4, [1, 2]).numpy())


def test_categorical_rejects_rows_without_mass():
    with pytest.raises(ember.errors.InvalidArgumentError, match="stateless_categorical: every logit of row 0"):
        ember.random.categorical([[-np.inf, -np.inf]], 2).numpy()
