"""Buffer donation: a temporary's buffer is reused, a named tensor's never is."""

import sys

import numpy as np
import pytest

import ember


def _data_pointer(tensor):
    return tensor.numpy().__array_interface__["data"][0]


@pytest.mark.skipif(not (3, 11) <= sys.version_info[:2] < (3, 14),
                    reason="donation is only enabled on CPython versions whose call refcounts were checked")
@pytest.mark.parametrize("async_mode", [False, True], ids=["sync", "async"])
def test_temporary_buffer_is_reused(async_mode):
    previous = ember.config.is_async()
    ember.config.set_async(async_mode)
    try:
        a = ember.constant(np.linspace(0, 5, 1000, dtype=np.float32))
        temporary = a + 1.0
        pointer = _data_pointer(temporary)  # the NumPy view is dropped at once
        holder = [temporary]
        del temporary
        result = ember.exp(holder.pop())  # the only reference is the argument
        assert _data_pointer(result) == pointer
        np.testing.assert_allclose(result.numpy(), np.exp(np.linspace(0, 5, 1000, dtype=np.float32) + 1), rtol=1e-6)
    finally:
        ember.config.set_async(previous)


@pytest.mark.parametrize("async_mode", [False, True], ids=["sync", "async"])
def test_named_and_viewed_tensors_are_never_overwritten(async_mode):
    previous = ember.config.is_async()
    ember.config.set_async(async_mode)
    try:
        a = ember.constant(np.arange(10, dtype=np.float32))
        named = a * 2.0
        result = ember.exp(named)
        np.testing.assert_array_equal(named.numpy(), np.arange(10, dtype=np.float32) * 2)
        assert _data_pointer(result) != _data_pointer(named)
        view = (a * 3.0).numpy()  # a live NumPy view keeps the buffer shared
        np.testing.assert_array_equal(view, np.arange(10, dtype=np.float32) * 3)
        reshaped = ember.reshape(a + 1.0, [2, 5])  # a view of the sum's buffer
        negated = ember.negative(reshaped)
        np.testing.assert_array_equal(reshaped.numpy().ravel(), np.arange(10) + 1)
        np.testing.assert_array_equal(negated.numpy().ravel(), -(np.arange(10) + 1))
    finally:
        ember.config.set_async(previous)
