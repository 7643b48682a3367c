"""Generic op tests driven by op_db: values, dtypes and shapes against NumPy, and error inputs."""

import re

import numpy as np
import pytest

import ember
from op_db import OP_DB, samples_for


def _to_ember(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return ember.constant(np.asarray(value))
    return value


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
    return np.asarray(info.ref(*sample.args, **sample.kwargs))


@pytest.mark.parametrize("op_name, dtype, index", SAMPLE_CASES)
def test_matches_reference(mode, op_name, dtype, index):
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    expected = _expected(info, sample)
    result = _call(info, sample)
    assert isinstance(result, ember.Tensor)
    assert result.dtype == expected.dtype, f"dtype {result.dtype.name}, reference {expected.dtype}"
    actual = result.numpy()
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    rtol, atol = info.tolerance(expected.dtype.name, sample)
    if rtol == 0 and atol == 0:
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def _temporary(array):
    """A tensor only the callee holds, computed by ops so its buffer may be donated."""
    return ember.negative(ember.negative(ember.constant(array)))


DONATION_CASES = [c for c in SAMPLE_CASES if c.values[1] != "bool"
                  and isinstance(samples_for(OP_DB[c.values[0]], c.values[1])[c.values[2]].args[0], np.ndarray)]


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
    rtol, atol = info.tolerance(expected.dtype.name, sample)
    np.testing.assert_allclose(result.numpy(), expected, rtol=rtol, atol=atol)
    assert result.dtype == expected.dtype
    for tensor, array in zip(rest, sample.args[1:]):
        if isinstance(tensor, ember.Tensor):
            np.testing.assert_array_equal(tensor.numpy(), array)


@pytest.mark.parametrize("op_name, dtype, index", SAMPLE_CASES)
def test_shape_known_before_value(mode, op_name, dtype, index):
    info = OP_DB[op_name]
    sample = samples_for(info, dtype)[index]
    result = _call(info, sample)
    # Metadata only: these must not need the kernel to have run.
    shape, ndim, device = result.shape, result.ndim, result.device
    expected = _expected(info, sample)
    assert isinstance(shape, tuple)
    assert shape == expected.shape
    assert ndim == expected.ndim
    assert device == "cpu:0"
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
    exempt = {"identity"}  # accepts every dtype and has no attrs: nothing to get wrong
    missing = [name for name, info in OP_DB.items() if name not in exempt and not list(info.errors())]
    assert missing == []


def test_db_covers_broadcast_scalar_empty_and_large_cases():
    names = {s.name for info in OP_DB.values() for d in info.dtypes for s in samples_for(info, d)}
    for required in ("bcast_col_row", "bcast_vector", "scalar", "empty", "large"):
        assert required in names
    large = [info.name for info in OP_DB.values()
             if not any(s.name.startswith("large") for s in samples_for(info, info.dtypes[0]))]
    assert large == []
