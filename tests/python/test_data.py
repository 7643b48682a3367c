"""ember.data: datasets against values computed independently with NumPy and Python."""

import collections
import gc
import threading
import time

import numpy as np
import pytest

import ember
from ember.data import Dataset

Point = collections.namedtuple("Point", ["x", "y"])


def values(dataset):
    return list(dataset.as_numpy_iterator())


def ints(dataset):
    return [int(v) for v in dataset.as_numpy_iterator()]


def assert_elements_equal(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert type(g) is type(e) or isinstance(e, (np.ndarray, np.generic)), (g, e)
        if isinstance(e, dict):
            assert list(g) == list(e)
            assert_elements_equal([g[k] for k in e], [e[k] for k in e])
        elif isinstance(e, tuple):
            assert_elements_equal(list(g), list(e))
        else:
            np.testing.assert_array_equal(g, e)
            assert np.asarray(g).dtype == np.asarray(e).dtype, (g, e)


def spec(shape, dtype):
    return ember.TensorSpec(shape, dtype)


def prefetch_threads():
    return [t for t in threading.enumerate() if t.name == "ember.data.prefetch" and t.is_alive()]


def wait_for_no_prefetch_threads(timeout=5.0):
    deadline = time.monotonic() + timeout
    while prefetch_threads() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.01)
    return prefetch_threads()


@pytest.fixture
def global_seed():
    """Lets a test set the global seed, and puts back non-deterministic seeding after it."""
    yield ember.random.set_seed
    ember.random.set_seed(None)


# --- Sources -----------------------------------------------------------------


def test_from_tensor_slices_of_an_array_yields_its_rows():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    ds = Dataset.from_tensor_slices(x)
    assert_elements_equal(values(ds), [x[i] for i in range(4)])
    assert ds.element_spec == spec((3,), ember.float32)
    assert len(ds) == 4 and int(ds.cardinality()) == 4
    assert all(isinstance(t, ember.Tensor) for t in ds)


def test_from_tensor_slices_of_a_tuple_yields_tuples():
    x, y = np.arange(10).reshape(5, 2), np.linspace(0, 1, 5)
    ds = Dataset.from_tensor_slices((x, y))
    assert_elements_equal(values(ds), [(x[i], y[i]) for i in range(5)])
    assert ds.element_spec == (spec((2,), ember.int64), spec((), ember.float64))
    for a, b in ds:  # unpacks like TensorFlow's
        assert isinstance(a, ember.Tensor) and isinstance(b, ember.Tensor)


def test_from_tensor_slices_of_dicts_and_named_tuples_keeps_the_structure():
    feats = {"b": np.arange(3, dtype=np.int32), "a": (np.ones((3, 2), np.float32), np.arange(3.0))}
    ds = Dataset.from_tensor_slices((feats, np.array([7, 8, 9])))
    expected = [({"b": feats["b"][i], "a": (feats["a"][0][i], feats["a"][1][i])}, np.int64(7 + i))
                for i in range(3)]
    got = values(ds)
    assert_elements_equal(got, expected)
    assert list(got[0][0]) == ["b", "a"]  # the dict's own key order
    assert ds.element_spec == ({"b": spec((), ember.int32), "a": (spec((2,), ember.float32), spec((), ember.float64))},
                               spec((), ember.int64))
    points = values(Dataset.from_tensor_slices(Point(np.arange(2), np.arange(2) * 10)))
    assert all(type(p) is Point for p in points)
    assert [(int(p.x), int(p.y)) for p in points] == [(0, 0), (1, 10)]


def test_a_list_is_one_tensor_with_python_dtype_rules():
    ds = Dataset.from_tensor_slices([[1, 2], [3, 4]])
    assert ds.element_spec == spec((2,), ember.int32)
    assert_elements_equal(values(ds), [np.array([1, 2], np.int32), np.array([3, 4], np.int32)])
    assert Dataset.from_tensor_slices([0.5, 1.5]).element_spec == spec((), ember.float32)
    tensor = ember.constant([[1.0], [2.0]])
    assert_elements_equal(values(Dataset.from_tensor_slices(tensor)), [np.array([1.0], np.float32),
                                                                       np.array([2.0], np.float32)])


def test_from_tensor_slices_with_mismatched_first_dims_names_them():
    with pytest.raises(ValueError, match=r"same size in their first dimension.*\[0\] has 3.*\[1\] has 4"):
        Dataset.from_tensor_slices((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match=r"\['label'\] has 2"):
        Dataset.from_tensor_slices({"image": np.zeros((5, 2)), "label": np.zeros(2)})


def test_from_tensor_slices_rejects_scalars_empty_structures_and_none():
    with pytest.raises(ValueError, match="scalar"):
        Dataset.from_tensor_slices((np.zeros(3), 1.0))
    with pytest.raises(ValueError, match="at least one tensor"):
        Dataset.from_tensor_slices(())
    with pytest.raises(TypeError, match="None"):
        Dataset.from_tensor_slices((np.zeros(3), None))


def test_from_tensors_is_one_element():
    x = np.arange(6).reshape(2, 3)
    ds = Dataset.from_tensors((x, [1.5, 2.5]))
    assert_elements_equal(values(ds), [(x, np.array([1.5, 2.5], np.float32))])
    assert ds.element_spec == (spec((2, 3), ember.int64), spec((2,), ember.float32))
    assert len(ds) == 1


@pytest.mark.parametrize("args", [(5,), (2, 7), (1, 10, 3), (5, 1, -2), (3, 3), (4, 0), (-3, 3, 2)])
def test_range_matches_python_range(args):
    ds = Dataset.range(*args)
    assert ints(ds) == list(range(*args))
    assert len(ds) == len(range(*args))
    assert ds.element_spec == spec((), ember.int64)
    assert all(isinstance(v, np.int64) for v in ds.as_numpy_iterator())


def test_range_output_type_and_argument_errors():
    ds = Dataset.range(3, output_type=ember.int32)
    assert ds.element_spec == spec((), ember.int32)
    assert_elements_equal(values(ds), [np.int32(0), np.int32(1), np.int32(2)])
    assert_elements_equal(values(Dataset.range(2, output_type=ember.float32)), [np.float32(0), np.float32(1)])
    with pytest.raises(ValueError, match="step must not be 0"):
        Dataset.range(0, 5, 0)
    with pytest.raises(TypeError, match="1 to 3"):
        Dataset.range()
    with pytest.raises(TypeError, match="int"):
        Dataset.range(2.5)
    with pytest.raises(TypeError, match="output_type"):
        Dataset.range(3, output_type=ember.bool)


def test_from_generator_converts_to_the_signature_and_restarts_per_pass():
    calls = []

    def gen(n, scale):
        calls.append((int(n), float(scale)))
        for i in range(int(n)):
            yield np.arange(i + 1) * scale, i  # a ragged first component

    signature = (ember.TensorSpec([None], ember.float32), ember.TensorSpec([], ember.int32))
    ds = Dataset.from_generator(gen, args=(3, 0.5), output_signature=signature)
    expected = [(np.arange(i + 1, dtype=np.float32) * 0.5, np.int32(i)) for i in range(3)]
    assert_elements_equal(values(ds), expected)
    assert_elements_equal(values(ds.prefetch(1)), expected)
    assert calls == [(3, 0.5), (3, 0.5)]
    assert ds.element_spec == signature
    assert int(ds.cardinality()) == ember.data.UNKNOWN_CARDINALITY
    assert_elements_equal(values(ds.padded_batch(2)), [
        (np.array([[0, 0], [0, 0.5]], np.float32), np.array([0, 1], np.int32)),
        (np.array([[0, 0.5, 1.0]], np.float32), np.array([2], np.int32))])
    old_style = Dataset.from_generator(lambda: iter([{"a": 1}, {"a": 2}]), output_types={"a": ember.int64},
                                       output_shapes={"a": []})
    assert_elements_equal(values(old_style), [{"a": np.int64(1)}, {"a": np.int64(2)}])


def test_from_generator_errors():
    spec_ = ember.TensorSpec([2], ember.int32)
    with pytest.raises(ember.errors.InvalidArgumentError, match="shape"):
        list(Dataset.from_generator(lambda: iter([[1, 2, 3]]), output_signature=spec_))
    with pytest.raises(TypeError, match="cannot be converted to int32"):
        list(Dataset.from_generator(lambda: iter([[1.5, 2.0]]), output_signature=spec_))
    with pytest.raises(TypeError, match="tuple of 2"):
        list(Dataset.from_generator(lambda: iter([1]), output_signature=(spec_, spec_)))
    with pytest.raises(TypeError, match="callable"):
        Dataset.from_generator(iter([1]), output_signature=spec_)
    with pytest.raises(TypeError, match="output_signature"):
        Dataset.from_generator(lambda: iter([1]))
    with pytest.raises(ValueError, match="output_shapes"):
        Dataset.from_generator(lambda: iter([1]), output_types=ember.int32)


def test_zip_pairs_elements_and_stops_at_the_shortest():
    a, b = Dataset.range(5), Dataset.from_tensor_slices(np.arange(3) * 10.0)
    assert_elements_equal(values(Dataset.zip(a, b)), [(np.int64(i), np.float64(10.0 * i)) for i in range(3)])
    assert_elements_equal(values(Dataset.zip((a, b))), values(Dataset.zip(a, b)))
    nested = Dataset.zip({"n": a, "pair": (b, a)})
    assert_elements_equal(values(nested), [{"n": np.int64(i), "pair": (np.float64(10.0 * i), np.int64(i))}
                                           for i in range(3)])
    assert nested.element_spec == {"n": spec((), ember.int64), "pair": (spec((), ember.float64), spec((), ember.int64))}
    assert len(Dataset.zip(a, b)) == 3
    assert ints(Dataset.zip(datasets=a)) == list(range(5))
    with pytest.raises(TypeError, match="expected datasets"):
        Dataset.zip(a, np.arange(3))
    with pytest.raises(TypeError):
        Dataset.zip()


def test_concatenate_joins_and_merges_specs():
    a = Dataset.from_tensor_slices(np.zeros((2, 3), np.float32))
    b = Dataset.from_tensor_slices(np.ones((3, 5), np.float32))
    ds = a.concatenate(b)
    got = values(ds)
    assert [g.shape for g in got] == [(3,), (3,), (5,), (5,), (5,)]
    assert ds.element_spec == spec((None,), ember.float32)
    assert len(ds) == 5
    assert ints(Dataset.range(3).concatenate(Dataset.range(10, 12))) == [0, 1, 2, 10, 11]
    with pytest.raises(TypeError, match="incompatible"):
        Dataset.range(3).concatenate(Dataset.from_tensors(1.0))
    with pytest.raises(TypeError, match="incompatible"):
        Dataset.range(3).concatenate(Dataset.zip(Dataset.range(3), Dataset.range(3)))


# --- map, filter, enumerate -------------------------------------------------------


def test_map_unpacks_tuples_and_passes_dicts_whole():
    x, y = np.arange(4), np.arange(4) * 2
    ds = Dataset.from_tensor_slices((x, y)).map(lambda a, b: a * 10 + b)
    assert ints(ds) == list(x * 10 + y)
    d = Dataset.from_tensor_slices({"a": x, "b": y}).map(lambda e: e["a"] - e["b"])
    assert ints(d) == list(x - y)
    p = Dataset.from_tensor_slices(Point(x, y)).map(lambda pt: pt.x + pt.y)  # a named tuple is one argument
    assert ints(p) == list(x + y)


def test_map_results_lists_become_tuples_and_scalars_tensors():
    ds = Dataset.range(3).map(lambda v: [v, 1.5, {"sq": v * v}])
    got = values(ds)
    assert_elements_equal(got, [(np.int64(i), np.float32(1.5), {"sq": np.int64(i * i)}) for i in range(3)])
    assert ds.element_spec == (spec((), ember.int64), spec((), ember.float32), {"sq": spec((), ember.int64)})


def test_map_with_an_ember_function_traces_once():
    @ember.function
    def scale(x, y):
        return x * 2.0, y + 1

    x = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    y = np.arange(6, dtype=np.int32)
    ds = Dataset.from_tensor_slices((x, y)).map(scale)
    assert_elements_equal(values(ds), [(x[i] * 2, np.int32(y[i] + 1)) for i in range(6)])
    assert scale.experimental_get_tracing_count() == 1
    assert ds.element_spec == (spec((3,), ember.float32), spec((), ember.int32))


def test_map_element_spec_follows_shapes_through_batch():
    ds = Dataset.from_tensor_slices(np.zeros((8, 4), np.float32)).batch(3).map(
        lambda b: ember.reduce_sum(b, axis=1))
    assert ds.element_spec == spec((None,), ember.float32)
    assert [v.shape for v in values(ds)] == [(3,), (3,), (2,)]


def test_an_untraceable_map_function_still_iterates():
    ds = Dataset.range(3).map(lambda v: np.asarray(v) + 1)  # reads the value: runs eagerly only
    assert ints(ds) == [1, 2, 3]
    with pytest.raises(ValueError, match="symbolic") as info:
        ds.element_spec
    notes = getattr(info.value, "__notes__", None)
    if notes is not None:
        assert any("element_spec" in n for n in notes)
    assert "element_spec=?" in repr(ds)


def test_map_errors():
    with pytest.raises(TypeError, match="callable"):
        Dataset.range(3).map(5)
    with pytest.raises(ValueError, match="num_parallel_calls"):
        Dataset.range(3).map(lambda v: v, num_parallel_calls=0)
    ds = Dataset.range(3).map(lambda v: v, num_parallel_calls=ember.data.AUTOTUNE, deterministic=False)
    assert ints(ds) == [0, 1, 2]

    def fail(v):
        if int(v) == 2:
            raise KeyError("no such record")
        return v

    it = iter(Dataset.range(5).map(fail))
    assert [int(next(it)), int(next(it))] == [0, 1]
    with pytest.raises(KeyError, match="no such record"):
        next(it)


def test_filter_keeps_true_elements():
    x = np.random.default_rng(1).integers(0, 100, 50)
    ds = Dataset.from_tensor_slices(x).filter(lambda v: v % 3 == 0)
    assert ints(ds) == [int(v) for v in x if v % 3 == 0]
    pairs = Dataset.from_tensor_slices((x, -x)).filter(lambda a, b: a > 50)
    assert_elements_equal(values(pairs), [(a, -a) for a in x if a > 50])
    assert ints(Dataset.range(4).filter(lambda v: True)) == [0, 1, 2, 3]
    assert ds.element_spec == spec((), ember.int64)
    assert int(ds.cardinality()) == ember.data.UNKNOWN_CARDINALITY


def test_filter_predicate_must_return_a_bool_scalar():
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.range(3).filter(lambda v: v))
    with pytest.raises(ValueError, match="scalar bool"):
        list(Dataset.from_tensor_slices(np.zeros((2, 2))).filter(lambda v: v > 0))
    with pytest.raises(TypeError, match="callable"):
        Dataset.range(3).filter(None)


def test_enumerate_counts_from_start():
    ds = Dataset.from_tensor_slices(np.array([5.0, 6.0], np.float32)).enumerate(start=3)
    assert_elements_equal(values(ds), [(np.int64(3), np.float32(5.0)), (np.int64(4), np.float32(6.0))])
    assert ds.element_spec == (spec((), ember.int64), spec((), ember.float32))
    assert len(ds) == 2


# --- batch, padded_batch, unbatch ---------------------------------------------------


@pytest.mark.parametrize("n,size,drop", [(10, 3, False), (10, 3, True), (9, 3, False), (9, 3, True), (2, 5, False),
                                         (2, 5, True), (0, 4, False)])
def test_batch_remainder(n, size, drop):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    ds = Dataset.from_tensor_slices((x, np.arange(n))).batch(size, drop_remainder=drop) if n else \
        Dataset.range(0).map(lambda v: (ember.zeros([2]), v)).batch(size, drop_remainder=drop)
    stops = range(0, n - size + 1 if drop else n, size)
    expected = [(x[i:i + size], np.arange(n)[i:i + size]) for i in stops]
    assert_elements_equal(values(ds), expected)
    assert len(ds) == len(expected)
    assert ds.element_spec == (spec((size if drop else None, 2), ember.float32), spec((size if drop else None,),
                                                                                       ember.int64))


def test_batch_of_dicts_and_batch_errors():
    ds = Dataset.from_tensor_slices({"a": np.arange(5), "b": np.arange(5) * 1.0}).batch(2)
    assert_elements_equal(values(ds), [{"a": np.arange(5)[i:i + 2], "b": np.arange(5)[i:i + 2] * 1.0}
                                       for i in (0, 2, 4)])
    ragged = Dataset.range(1, 4).map(lambda v: ember.fill([v], v))
    with pytest.raises(ember.errors.InvalidArgumentError, match="different shapes in component 0.*padded_batch"):
        list(ragged.batch(2))
    with pytest.raises(ValueError, match="batch_size"):
        Dataset.range(3).batch(0)
    assert int(Dataset.range(3).repeat().batch(2).cardinality()) == ember.data.INFINITE_CARDINALITY


def test_padded_batch_pads_to_the_longest_or_to_padded_shapes():
    lengths = [1, 3, 2, 0, 4]
    ds = Dataset.from_tensor_slices(np.array(lengths)).map(lambda n: (ember.fill([n], n + 1), n))

    def expected(width, pad):
        out = []
        for i in range(0, len(lengths), 2):
            chunk = lengths[i:i + 2]
            w = width or max(chunk)
            rows = np.full((len(chunk), w), pad, np.int64)
            for r, n in enumerate(chunk):
                rows[r, :n] = n + 1
            out.append((rows, np.array(chunk)))
        return out

    assert_elements_equal(values(ds.padded_batch(2)), expected(None, 0))
    assert_elements_equal(values(ds.padded_batch(2, padded_shapes=([5], []), padding_values=(-1, 0))), expected(5, -1))
    assert_elements_equal(values(ds.padded_batch(2, padded_shapes=([None], []), padding_values=-7)), expected(None, -7))
    assert len(ds.padded_batch(2)) == 3 and len(ds.padded_batch(2, drop_remainder=True)) == 2
    # ember.fill with a symbolic length cannot be traced, so that map has no element_spec;
    # specs are checked on a ragged dataset made without a map.
    ragged = Dataset.from_tensors((np.zeros(3, np.int64), 1.0)).concatenate(
        Dataset.from_tensors((np.zeros(5, np.int64), 2.0)))
    assert ragged.padded_batch(2).element_spec == (spec((None, None), ember.int64), spec((None,), ember.float32))
    assert ragged.padded_batch(2, padded_shapes=([6], []), drop_remainder=True).element_spec == (
        spec((2, 6), ember.int64), spec((2,), ember.float32))
    assert_elements_equal(values(ragged.padded_batch(2, padding_values=(np.int64(4), 0.0))), [
        (np.array([[0, 0, 0, 4, 4], [0, 0, 0, 0, 0]]), np.array([1.0, 2.0], np.float32))])


def test_padded_batch_errors():
    ds = Dataset.from_tensors(np.arange(3))
    with pytest.raises(ValueError, match="not compatible"):
        ds.padded_batch(2, padded_shapes=[2])
    with pytest.raises(ValueError, match="not compatible"):
        ds.padded_batch(2, padded_shapes=[3, 1])
    ragged = Dataset.range(1, 4).map(lambda v: ember.fill([v], v))
    with pytest.raises(ember.errors.InvalidArgumentError, match="larger than its padded shape"):
        list(ragged.padded_batch(3, padded_shapes=[2]))
    with pytest.raises(TypeError, match="is float32 but the component is int64"):
        list(ragged.padded_batch(2, padding_values=np.float32(1)))


def test_unbatch_inverts_batch():
    x = np.arange(14).reshape(7, 2)
    ds = Dataset.from_tensor_slices((x, x[:, 0] * 1.0)).batch(3).unbatch()
    assert_elements_equal(values(ds), [(x[i], np.float64(x[i, 0])) for i in range(7)])
    assert ds.element_spec == (spec((2,), ember.int64), spec((), ember.float64))
    assert int(ds.cardinality()) == ember.data.UNKNOWN_CARDINALITY
    with pytest.raises(ValueError, match="scalar"):
        list(Dataset.range(3).unbatch())
    with pytest.raises(ValueError, match="scalar"):
        Dataset.range(3).unbatch().element_spec
    with pytest.raises(ember.errors.InvalidArgumentError, match="same first dim"):
        list(Dataset.from_tensors((np.zeros(2), np.zeros(3))).unbatch())


# --- shuffle -------------------------------------------------------------------------


def test_shuffle_is_a_permutation_and_seeded_orders_repeat():
    data = np.arange(100)
    first = ints(Dataset.from_tensor_slices(data).shuffle(30, seed=7))
    assert sorted(first) == list(data)
    assert first != list(data)
    assert ints(Dataset.from_tensor_slices(data).shuffle(30, seed=7)) == first
    assert ints(Dataset.from_tensor_slices(data).shuffle(30, seed=8)) != first


def test_shuffle_with_buffer_size_one_keeps_the_order():
    assert ints(Dataset.range(50).shuffle(1, seed=3)) == list(range(50))


@pytest.mark.parametrize("buffer_size", [2, 5, 17])
def test_shuffle_buffer_bounds_how_far_elements_move_ahead(buffer_size):
    # Output k is picked from a buffer holding at most input k + buffer_size - 1:
    # a fill-and-replace buffer never emits an element it has not read yet.
    for seed in range(20):
        out = ints(Dataset.range(60).shuffle(buffer_size, seed=seed))
        assert sorted(out) == list(range(60))
        assert all(v < k + buffer_size for k, v in enumerate(out))


def test_a_full_buffer_picks_the_first_element_uniformly():
    counts = np.zeros(5)
    for seed in range(1000):
        counts[int(next(iter(Dataset.range(5).shuffle(5, seed=seed))))] += 1
    assert counts.min() > 150 and counts.max() < 250  # expected 200 each


def test_shuffle_unknown_cardinality_buffer_is_the_whole_dataset():
    out = ints(Dataset.range(40).shuffle(ember.data.UNKNOWN_CARDINALITY, seed=1))
    assert sorted(out) == list(range(40)) and out != list(range(40))
    with pytest.raises(ValueError, match="buffer_size"):
        Dataset.range(3).shuffle(0)


def test_reshuffle_each_iteration():
    ds = Dataset.range(30).shuffle(30, seed=5)
    epochs = [ints(ds) for _ in range(3)]
    assert all(sorted(e) == list(range(30)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]
    again = Dataset.range(30).shuffle(30, seed=5)  # a new dataset replays the same sequence of orders
    assert [ints(again) for _ in range(3)] == epochs
    fixed = Dataset.range(30).shuffle(30, seed=5, reshuffle_each_iteration=False)
    assert ints(fixed) == ints(fixed) == epochs[0]
    passes = ints(Dataset.range(30).shuffle(30, seed=5).repeat(3))  # each pass of repeat is an epoch
    assert passes == epochs[0] + epochs[1] + epochs[2]
    fixed_passes = ints(Dataset.range(30).shuffle(30, seed=5, reshuffle_each_iteration=False).repeat(2))
    assert fixed_passes == epochs[0] * 2


def test_shuffle_after_repeat_mixes_epochs():
    out = ints(Dataset.range(10).repeat(2).shuffle(20, seed=4))
    assert sorted(out) == sorted(list(range(10)) * 2)
    assert sorted(out[:10]) != list(range(10))  # with this seed the first ten mix both epochs


def test_global_seed_rules(global_seed):
    global_seed(1)
    a1, a2 = ints(Dataset.range(40).shuffle(40)), ints(Dataset.range(40).shuffle(40))
    assert a1 != a2  # without an op seed, each dataset takes the global generator's next draw
    global_seed(1)
    assert [ints(Dataset.range(40).shuffle(40)), ints(Dataset.range(40).shuffle(40))] == [a1, a2]
    with_op_seed = ints(Dataset.range(40).shuffle(40, seed=9))
    assert ints(Dataset.range(40).shuffle(40, seed=9)) == with_op_seed  # an op seed fixes the order
    global_seed(2)
    assert ints(Dataset.range(40).shuffle(40, seed=9)) != with_op_seed  # the global seed is part of it
    global_seed(None)
    unseeded = [ints(Dataset.range(40).shuffle(40)) for _ in range(2)]
    assert unseeded[0] != unseeded[1]


def test_an_op_seed_without_a_global_seed_is_deterministic():
    ember.random.set_seed(None)
    assert ints(Dataset.range(40).shuffle(40, seed=3)) == ints(Dataset.range(40).shuffle(40, seed=3))
    with pytest.raises(TypeError, match="seed"):
        Dataset.range(3).shuffle(3, seed=1.5)


# --- repeat, take, skip ---------------------------------------------------------------


@pytest.mark.parametrize("build,expected", [
    (lambda d: d.repeat(3), np.tile(np.arange(10), 3)),
    (lambda d: d.repeat(3).skip(5).take(12), np.tile(np.arange(10), 3)[5:17]),
    (lambda d: d.take(4).repeat(2), np.tile(np.arange(4), 2)),
    (lambda d: d.skip(7).repeat(2), np.tile(np.arange(7, 10), 2)),
    (lambda d: d.repeat().take(25), np.tile(np.arange(10), 3)[:25]),
    (lambda d: d.repeat().skip(13).take(4), np.tile(np.arange(10), 3)[13:17]),
    (lambda d: d.take(-1), np.arange(10)),
    (lambda d: d.take(0), np.arange(0)),
    (lambda d: d.take(50), np.arange(10)),
    (lambda d: d.skip(-1), np.arange(0)),
    (lambda d: d.skip(0), np.arange(10)),
    (lambda d: d.skip(50), np.arange(0)),
    (lambda d: d.repeat(0), np.arange(0)),
    (lambda d: d.batch(4).repeat(2).unbatch().take(13), np.tile(np.arange(10), 2)[:13]),
])
def test_repeat_take_skip(build, expected):
    ds = build(Dataset.range(10))
    assert ints(ds) == list(expected)
    assert int(ds.cardinality()) in (len(expected), ember.data.UNKNOWN_CARDINALITY)


def test_repeat_of_an_empty_dataset_ends():
    assert ints(Dataset.range(0).repeat()) == []
    assert ints(Dataset.range(5).filter(lambda v: v > 10).repeat()) == []


def test_count_arguments():
    with pytest.raises(ValueError, match="count"):
        Dataset.range(3).take(-2)
    with pytest.raises(TypeError, match="count"):
        Dataset.range(3).skip(1.0)
    assert ints(Dataset.range(5).take(ember.constant(2))) == [0, 1]


# --- cardinality ---------------------------------------------------------------------------

INF, UNK = ember.data.INFINITE_CARDINALITY, ember.data.UNKNOWN_CARDINALITY


@pytest.mark.parametrize("build,expected", [
    (lambda: Dataset.range(10), 10),
    (lambda: Dataset.range(10).repeat(), INF),
    (lambda: Dataset.range(10).repeat(2).batch(3), 7),
    (lambda: Dataset.range(10).batch(3, drop_remainder=True), 3),
    (lambda: Dataset.range(10).filter(lambda v: True), UNK),
    (lambda: Dataset.range(10).filter(lambda v: True).repeat(), INF),
    (lambda: Dataset.range(10).filter(lambda v: True).repeat(3), UNK),
    (lambda: Dataset.range(10).repeat().take(5), 5),
    (lambda: Dataset.range(10).repeat().skip(5), INF),
    (lambda: Dataset.range(10).filter(lambda v: True).take(5), UNK),
    (lambda: Dataset.range(0).repeat(), 0),
    (lambda: Dataset.range(10).repeat(0), 0),
    (lambda: Dataset.range(10).shuffle(3).map(lambda v: v).prefetch(1).enumerate(), 10),
    (lambda: Dataset.zip(Dataset.range(3), Dataset.range(5).repeat()), 3),
    (lambda: Dataset.zip(Dataset.range(3).repeat(), Dataset.range(5).repeat()), INF),
    (lambda: Dataset.zip(Dataset.range(3), Dataset.range(5).filter(lambda v: True)), UNK),
    (lambda: Dataset.range(3).repeat().concatenate(Dataset.range(2)), INF),
    (lambda: Dataset.range(3).concatenate(Dataset.range(2).filter(lambda v: True)), UNK),
    (lambda: Dataset.range(10).batch(3).unbatch(), UNK),
    (lambda: Dataset.range(10).padded_batch(4), 3),
])
def test_cardinality(build, expected):
    ds = build()
    c = ds.cardinality()
    assert isinstance(c, ember.Tensor) and c.dtype == ember.int64 and int(c) == expected
    assert int(ember.data.experimental.cardinality(ds)) == expected
    if expected >= 0:
        assert len(ds) == expected


def test_len_of_infinite_and_unknown_datasets_raises_type_error():
    assert (ember.data.INFINITE_CARDINALITY, ember.data.UNKNOWN_CARDINALITY) == (-1, -2)
    with pytest.raises(TypeError, match="infinite"):
        len(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.range(3).filter(lambda v: True))
    assert bool(Dataset.range(3).repeat()) and bool(Dataset.range(0))  # truth does not call len


# --- Iteration --------------------------------------------------------------------------------


def test_each_iteration_starts_over_and_iterators_are_independent():
    ds = Dataset.range(4)
    a, b = iter(ds), iter(ds)
    assert [int(next(a)), int(next(a)), int(next(b))] == [0, 1, 0]
    assert ints(ds) == ints(ds) == [0, 1, 2, 3]


def test_iterator_get_next_and_element_spec():
    it = iter(Dataset.range(1))
    assert it.element_spec == spec((), ember.int64)
    assert int(it.get_next()) == 0
    with pytest.raises(ember.errors.OutOfRangeError):
        it.get_next()
    with pytest.raises(StopIteration):
        next(it)
    assert isinstance(it, ember.data.Iterator)


def test_as_numpy_iterator_gives_writable_numpy_values():
    got = values(Dataset.from_tensor_slices((np.ones((2, 3), np.float32), np.arange(2))))
    array, scalar = got[0]
    assert isinstance(array, np.ndarray) and array.flags.writeable
    assert isinstance(scalar, np.int64)


def test_cache_runs_its_input_once():
    made = []

    def record(v):
        made.append(int(v))
        return v * 2

    ds = Dataset.range(4).map(record).cache()
    assert ints(ds) == [0, 2, 4, 6]
    assert ints(ds.shuffle(4, seed=1).repeat(3)) and sorted(ints(ds)) == [0, 2, 4, 6]
    assert made == [0, 1, 2, 3]
    partial = Dataset.range(4).map(record).cache()
    made.clear()
    assert ints(partial.take(2)) == [0, 2]
    assert ints(partial) == [0, 2, 4, 6]  # a partial pass is not cached
    assert made == [0, 1, 0, 1, 2, 3]
    assert len(partial) == 4
    with pytest.raises(NotImplementedError, match="in-memory"):
        Dataset.range(3).cache("/tmp/cache")


def test_reduce_and_get_single_element():
    assert int(Dataset.range(5).reduce(0, lambda s, v: s + ember.cast(v, ember.int32))) == 10
    total, count = Dataset.range(5).map(lambda v: ember.cast(v, ember.float32)).reduce(
        (0.0, 0), lambda s, v: (s[0] + v, s[1] + 1))
    assert (float(total), int(count)) == (10.0, 5)
    assert int(Dataset.range(3).skip(2).get_single_element()) == 2
    with pytest.raises(ValueError, match="empty"):
        Dataset.range(0).get_single_element()
    with pytest.raises(ValueError, match="more than one"):
        Dataset.range(2).get_single_element()


# --- prefetch ----------------------------------------------------------------------------------


def test_prefetch_keeps_values_and_order():
    x = np.random.default_rng(2).standard_normal((20, 3)).astype(np.float32)
    base = Dataset.from_tensor_slices(x).map(lambda r: r * 2.0).batch(3)
    for size in (0, 1, 4, ember.data.AUTOTUNE, ember.data.experimental.AUTOTUNE):
        assert_elements_equal(values(base.prefetch(size)), values(base))
    assert_elements_equal(values(base.prefetch(2).unbatch().prefetch(1).batch(3)), values(base))
    assert wait_for_no_prefetch_threads() == []
    with pytest.raises(ValueError, match="buffer_size"):
        base.prefetch(-2)


def test_prefetch_runs_ahead_on_a_background_thread():
    made = []
    threads = set()

    def record(v):
        made.append(int(v))
        threads.add(threading.get_ident())
        return v

    it = iter(Dataset.range(100).map(record).prefetch(3))
    assert int(next(it)) == 0
    deadline = time.monotonic() + 5
    while len(made) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.05)
    # One element consumed, three buffered, and at most one more in the producer's hands.
    assert 4 <= len(made) <= 5
    assert threads and threading.get_ident() not in threads
    del it
    assert wait_for_no_prefetch_threads() == []


def test_prefetch_propagates_errors_to_the_consumer():
    def fail_at_three(v):
        if int(v) == 3:
            raise RuntimeError("bad record 3")
        return v

    it = iter(Dataset.range(10).map(fail_at_three).prefetch(2))
    assert [int(next(it)) for _ in range(3)] == [0, 1, 2]
    with pytest.raises(RuntimeError, match="bad record 3"):
        next(it)
    with pytest.raises(StopIteration):
        next(it)
    assert wait_for_no_prefetch_threads() == []
    with pytest.raises(ember.errors.InvalidArgumentError, match="different shapes"):
        list(Dataset.range(1, 4).map(lambda v: ember.fill([v], v)).batch(2).prefetch(1))


def test_prefetch_threads_stop_when_iterators_are_dropped():
    for _ in range(5):
        it = iter(Dataset.range(10 ** 6).prefetch(2).map(lambda v: v + 1).prefetch(2))
        next(it)
        del it
    never_started = iter(Dataset.range(10 ** 6).prefetch(1))
    del never_started
    infinite = iter(Dataset.range(3).repeat().prefetch(4))
    assert [int(next(infinite)) for _ in range(7)] == [0, 1, 2, 0, 1, 2, 0]
    del infinite
    assert wait_for_no_prefetch_threads() == []


# --- Inside @ember.function ---------------------------------------------------------------------


def test_a_finite_dataset_is_unrolled_in_a_function():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    ds = Dataset.from_tensor_slices(x).batch(4)

    @ember.function
    def total(dataset):
        s = ember.constant(0.0)
        for batch in dataset:
            s = s + ember.reduce_sum(batch)
        return s

    assert float(total(ds)) == float(x.sum())
    assert float(total(ds)) == float(x.sum())
    assert total.experimental_get_tracing_count() == 1
    seeded = Dataset.range(5).shuffle(5, seed=1, reshuffle_each_iteration=False).map(
        lambda v: ember.cast(v, ember.float32))
    assert float(total(seeded)) == 10.0


def test_datasets_a_function_cannot_unroll_raise_with_the_alternative():
    @ember.function
    def consume(dataset):
        s = ember.constant(0, ember.int64)
        for v in dataset:
            s = s + v
        return s

    with pytest.raises(TypeError, match="infinite.*outside the function"):
        consume(Dataset.range(3).repeat())
    with pytest.raises(TypeError, match="reshuffles.*outside the function"):
        consume(Dataset.range(3).shuffle(3, seed=1))
    with pytest.raises(ValueError, match="more than 1000 elements.*outside the function"):
        consume(Dataset.range(2000))


# --- The namespace ------------------------------------------------------------------------------


def test_namespace():
    assert ember.data.AUTOTUNE == ember.data.experimental.AUTOTUNE == -1
    for name in ember.data.__all__:
        assert hasattr(ember.data, name)
    for name in ember.data.experimental.__all__:
        assert hasattr(ember.data.experimental, name)
    ds = Dataset.range(3).map(lambda v: v).batch(2)
    assert isinstance(ds, ember.data.Dataset)
    assert "element_spec=TensorSpec(shape=(None,)" in repr(ds)
    with pytest.raises(TypeError):
        Dataset()
    with pytest.raises(TypeError, match="Dataset"):
        ember.data.experimental.cardinality([1, 2])
