"""Generic op tests driven by op_db: values, dtypes and shapes against NumPy, and error inputs."""

import os
import re

import numpy as np
import pytest

import ember
from op_db import OP_DB, samples_for

# conftest.py runs every test under ember.device(EMBER_TEST_DEVICE) when set.
_DEVICE = os.environ.get("EMBER_TEST_DEVICE") or "cpu:0"
# Whether functions on the test device replay as graphs (a GPU or the
# simulated accelerator, with the setting on: Note [Graph replay]).
_REPLAYS = not _DEVICE.startswith("cpu") and ember.config.experimental.cuda_graphs_enabled()


def _to_ember(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return ember.constant(np.asarray(value))
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.ndarray) for v in value):
        return [_to_ember(v) for v in value]  # a list argument (concat's values, ...)
    return value


def _flat(value):
    """Outputs as a flat list: a Tensor, a list output, or a tuple of them."""
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _call(info, sample):
    args = [_to_ember(a) for a in sample.args]
    return info.op(*args, **sample.kwargs)


def _sample_cases():
    for name, info in OP_DB.items():
        for dtype in info.dtypes:
            for i, sample in enumerate(samples_for(info, dtype)):
                yield pytest.param(name, dtype, i, id=f"{name}-{dtype}-{sample.name}")


def _error_cases():
    for name, info in OP_DB.items():
        for err in info.errors():
            yield pytest.param(name, err, id=f"{name}-{err.name}")


SAMPLE_CASES = list(_sample_cases())
ERROR_CASES = list(_error_cases())


def _expected(info, sample):
    """The reference outputs, flat (see _flat)."""
    return [np.asarray(e) for e in _flat(info.ref(*sample.args, **sample.kwargs))]


def _check(info, sample, result, expected):
    results = _flat(result)
    assert len(results) == len(expected), f"{len(results)} outputs, reference has {len(expected)}"
    for tensor, want in zip(results, expected):
        assert isinstance(tensor, ember.Tensor)
        assert tensor.dtype == want.dtype, f"dtype {tensor.dtype.name}, reference {want.dtype}"
        actual = tensor.numpy()
        assert actual.dtype == want.dtype
        assert actual.shape == want.shape
        rtol, atol = info.tolerance(want.dtype.name, sample)
        if rtol == 0 and atol == 0:
            np.testing.assert_array_equal(actual, want)
        else:
            np.testing.assert_allclose(actual, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("op_name, dtype, index", SAMPLE_CASES)
def test_matches_reference(mode, op_name, dtype, index):
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    expected = _expected(info, sample)
    result = _call(info, sample)
    _check(info, sample, result, expected)


@pytest.mark.parametrize("op_name, dtype, index", SAMPLE_CASES)
def test_matches_reference_inside_a_function(op_name, dtype, index):
    # The same sample traced by @ember.function and run as a graph: tracing
    # goes through the same bindings, so it must give the eager results.
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    expected = _expected(info, sample)
    args = [_to_ember(a) for a in sample.args]
    traced = ember.function(lambda *a: info.op(*a, **sample.kwargs))
    _check(info, sample, traced(*args), expected)
    assert traced.experimental_get_tracing_count() == 1
    if _REPLAYS:
        # Note [Graph replay]: on a device that captures graphs the second
        # call is captured and replayed, the third replayed; both must
        # give the first call's results.
        for _ in range(2):
            _check(info, sample, traced(*args), expected)


def _temporary(array):
    """A tensor only the callee holds, computed by ops so its buffer may be donated."""
    return ember.negative(ember.negative(ember.constant(array)))


_NEGATIVE_DTYPES = frozenset(ember._C._op_info("negative")["type_vars"]["T"])


def _donation_case(case):
    info = OP_DB[case.values[0]]
    sample = samples_for(info, case.values[1])[case.values[2]]
    # _temporary needs negative, which does not take every dtype.
    return (case.values[1] in _NEGATIVE_DTYPES and len(_expected(info, sample)) == 1
            and bool(sample.args) and isinstance(sample.args[0], np.ndarray))


DONATION_CASES = [c for c in SAMPLE_CASES if _donation_case(c)]


@pytest.mark.parametrize("op_name, dtype, index", DONATION_CASES)
def test_matches_reference_with_temporary_input(mode, op_name, dtype, index):
    # Ops may reuse a temporary input's buffer for their output (the args list
    # in test_matches_reference keeps the inputs alive, so that path is only
    # taken here). The named input must stay intact.
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    expected = _expected(info, sample)
    rest = [_to_ember(a) for a in sample.args[1:]]
    result = info.op(_temporary(sample.args[0]), *rest, **sample.kwargs)
    _check(info, sample, result, expected)
    for tensor, array in zip(rest, sample.args[1:]):
        if isinstance(tensor, ember.Tensor):  # bit for bit, so NaNs of every float dtype compare
            assert tensor.numpy().tobytes() == np.ascontiguousarray(array).tobytes()


@pytest.mark.parametrize("op_name, dtype, index", SAMPLE_CASES)
def test_shape_known_before_value(mode, op_name, dtype, index):
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    result = _call(info, sample)
    expected = _expected(info, sample)
    results = _flat(result)
    assert len(results) == len(expected)
    # Outputs in host memory (shape, size, rank) are made on the host when
    # the op is called for a device without host memory (Note [Host-memory
    # outputs]).
    host_outputs = info.info["host_memory_outputs"]
    for i, (tensor, want) in enumerate(zip(results, expected)):
        # Metadata only: these must not need the kernel to have run.
        shape, ndim, device = tensor.shape, tensor.ndim, tensor.device
        assert isinstance(shape, tuple)
        assert shape == want.shape
        assert ndim == want.ndim
        want_device = "cpu:0" if i in host_outputs and not _DEVICE.startswith("cpu") else _DEVICE
        if _DEVICE.startswith("gpu"):
            # An op without a GPU kernel for these dtypes runs on the CPU
            # (soft placement, docs/gpu_coverage.md); test_matches_reference
            # checks its values there.
            assert device in (want_device, "cpu:0")
        else:
            assert device == want_device
    ember.sync()


@pytest.mark.parametrize("op_name, err", ERROR_CASES)
def test_error_inputs_raise_at_call(mode, op_name, err):
    info = OP_DB[op_name]
    args = [_to_ember(a) for a in err.args]
    with pytest.raises(err.exc) as excinfo:
        info.op(*args, **err.kwargs)
    message = str(excinfo.value)
    assert re.search(err.regex, message), f"{message!r} does not match {err.regex!r}"
    assert op_name in message
    # Nothing was enqueued: the runtime has no pending error to report afterwards.
    ember.sync()


def test_every_op_has_error_inputs_or_is_exempt():
    exempt = {"identity", "stop_gradient"}  # accept every dtype, no attrs: nothing to get wrong
    missing = [name for name, info in OP_DB.items() if name not in exempt and not list(info.errors())]
    assert missing == []


def test_db_covers_broadcast_scalar_empty_and_large_cases():
    names = {s.name for info in OP_DB.values() for d in info.dtypes for s in samples_for(info, d)}
    for required in ("bcast_col_row", "bcast_vector", "scalar", "empty", "large"):
        assert required in names
    large = [info.name for info in OP_DB.values()
             if not any(s.name.startswith("large") for s in samples_for(info, info.dtypes[0]))]
    assert large == []
