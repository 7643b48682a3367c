"""DLPack export and import: zero-copy with NumPy (always), PyTorch and JAX
(when importable); lifetime, read-only data, copies, dtypes and devices."""

import ctypes
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest

import ember

# A deleter ember calls on an unlucky thread could otherwise hide until exit.
pytestmark = pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning")


def _ptr(array):
    return array.__array_interface__["data"][0]


def _tensor_ptr(t):
    return _ptr(t.numpy())


def _capsule_name(capsule):
    return repr(capsule).split('"')[1]


def _in_use():
    ember.sync()
    gc.collect()
    return ember.config.memory_stats("cpu:0")["bytes_in_use"]


@pytest.fixture(autouse=True)
def _on_the_cpu():
    # The tests export CPU tensors, whatever EMBER_TEST_DEVICE says.
    with ember.device("cpu:0"):
        yield


# ---- A producer of our own, built with ctypes from the DLPack ABI ----------

class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32),
                ("dtype", _DataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _Managed(ctypes.Structure):
    pass


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _ManagedVersioned(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_Managed))
_VersionedDeleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_ManagedVersioned))
_Managed._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]
_ManagedVersioned._fields_ = [("version", _Version), ("manager_ctx", ctypes.c_void_p),
                              ("deleter", _VersionedDeleter), ("flags", ctypes.c_uint64),
                              ("dl_tensor", _DLTensor)]
_PyCapsule_New = ctypes.pythonapi.PyCapsule_New
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_LEGACY, _VERSIONED = b"dltensor", b"dltensor_versioned"  # module constants: capsules keep the pointer
_READ_ONLY, _IS_COPIED = 1, 2


class _Producer:
    """Lends `memory` (a NumPy array) as a DLPack capsule and counts deleter calls."""

    def __init__(self, memory, shape, strides=None, byte_offset=0, code=2, bits=32, versioned=False, flags=0,
                 major=1):
        self.memory = memory
        self.deleted = 0
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides is not None else None
        tensor = _DLTensor(memory.ctypes.data, _Device(1, 0), len(shape), _DataType(code, bits, 1),
                           self.shape, self.strides, byte_offset)
        if versioned:
            self.deleter = _VersionedDeleter(self._delete)
            self.managed = _ManagedVersioned(_Version(major, 0), None, self.deleter, flags, tensor)
        else:
            self.deleter = _Deleter(self._delete)
            self.managed = _Managed(tensor, None, self.deleter)
        self.capsule = _PyCapsule_New(ctypes.addressof(self.managed), _VERSIONED if versioned else _LEGACY, None)

    def _delete(self, _):
        self.deleted += 1


# ---- Export: ember -> NumPy ----------------------------------------------------

def test_numpy_reads_a_tensor_without_a_copy():
    t = ember.constant(np.arange(12, dtype=np.float32).reshape(3, 4)) * 2.0
    a = np.from_dlpack(t)
    assert _ptr(a) == _tensor_ptr(t)
    np.testing.assert_array_equal(a, np.arange(12, dtype=np.float32).reshape(3, 4) * 2)
    assert not a.flags.writeable  # the versioned capsule says READ_ONLY: tensors are immutable


def test_dlpack_device_and_capsule_kinds():
    t = ember.constant([1.0, 2.0])
    assert t.__dlpack_device__() == (1, 0)
    assert _capsule_name(t.__dlpack__()) == "dltensor"
    assert _capsule_name(t.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert _capsule_name(t.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert _capsule_name(t.__dlpack__(max_version=(1, 3), stream=None)) == "dltensor_versioned"
    assert _capsule_name(ember.experimental.dlpack.to_dlpack(t)) == "dltensor"


def test_copy_true_gives_the_consumer_its_own_writable_buffer():
    t = ember.constant([1.0, 2.0, 3.0])
    a = np.from_dlpack(t, copy=True)
    assert _ptr(a) != _tensor_ptr(t)
    a[0] = 7.0  # IS_COPIED, not READ_ONLY
    assert t.numpy().tolist() == [1.0, 2.0, 3.0]


def test_export_arguments_are_checked():
    t = ember.constant([1.0])
    with pytest.raises(BufferError, match="DLPack device"):
        t.__dlpack__(dl_device=(2, 0))
    assert _capsule_name(t.__dlpack__(dl_device=(1, 0), copy=False)) == "dltensor"
    with pytest.raises(TypeError, match="stream"):
        t.__dlpack__(stream="default")
    with pytest.raises(TypeError):
        t.__dlpack__(None)  # keyword-only, as the array API declares


def test_exported_buffer_outlives_the_tensor():
    t = ember.constant(np.arange(1000, dtype=np.int64)) + 1
    a = np.from_dlpack(t)
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None
    for _ in range(5):  # reuse of a freed buffer would show up here
        ember.constant(np.zeros(1000, np.int64)) + 5
    np.testing.assert_array_equal(a, np.arange(1000) + 1)


def test_capsules_free_the_buffer_once_consumed_or_dropped():
    n = 4 * 1024 * 1024  # large: a freed block is counted at once
    base = _in_use()
    t = ember.constant(np.ones(n // 4, np.float32)) * 3.0
    used = _in_use() - base
    assert used >= n
    capsule = t.__dlpack__(max_version=(1, 0))
    del t
    assert _in_use() - base >= n  # the capsule alone keeps the buffer
    del capsule  # never consumed: its destructor calls the deleter
    assert _in_use() - base < n
    t = ember.constant(np.ones(n // 4, np.float32)) * 3.0
    a = np.from_dlpack(t)
    del t
    assert _in_use() - base >= n
    assert a[-1] == 3.0
    del a  # NumPy calls the deleter
    assert _in_use() - base < n


def test_export_waits_for_a_pending_value(async_mode):
    x = ember.constant(np.full((400, 400), 0.5, np.float32))
    pending = None
    for _ in range(50):  # until a value is observed pending at export time
        y = ember.matmul(ember.matmul(x, x), x)
        if not y._is_ready():
            pending = y
            break
    if pending is None:
        pytest.skip("every value was ready before it could be exported")
    a = np.from_dlpack(pending)
    np.testing.assert_allclose(a, np.full((400, 400), 0.5 ** 3 * 400 * 400, np.float32), rtol=1e-5)


# ---- Import: NumPy / capsules -> ember -------------------------------------------

def test_ember_reads_a_numpy_array_without_a_copy():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = ember.from_dlpack(a)
    assert t.shape == (2, 3, 4) and t.dtype == ember.float32 and t.device.startswith("cpu")
    assert _tensor_ptr(t) == _ptr(a)
    np.testing.assert_array_equal((t + 1).numpy(), a + 1)


def test_imported_tensor_keeps_the_producer_alive_until_freed():
    a = np.arange(10, dtype=np.float64)
    ref = weakref.ref(a)
    t = ember.from_dlpack(a)
    del a
    gc.collect()
    assert ref() is not None  # NumPy's managed tensor holds the array
    assert t.numpy().tolist() == list(range(10))
    del t
    ember.sync()
    gc.collect()
    assert ref() is None  # the deleter ran


@pytest.mark.parametrize("versioned", [False, True], ids=["legacy", "versioned"])
def test_deleter_runs_exactly_once_when_the_buffer_is_freed(versioned):
    memory = np.arange(6, dtype=np.float32)
    producer = _Producer(memory, [2, 3], versioned=versioned)
    t = ember.from_dlpack(producer.capsule)
    assert _capsule_name(producer.capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert _tensor_ptr(t) == _ptr(memory)
    views = [ember.reshape(t, [6]), t + 0.0]  # a view shares the buffer
    del t
    gc.collect()
    assert producer.deleted == 0
    views[0].numpy()
    del views
    ember.sync()
    gc.collect()
    assert producer.deleted == 1
    with pytest.raises(ValueError, match="already consumed"):
        ember.from_dlpack(producer.capsule)
    assert producer.deleted == 1


def test_copied_import_calls_the_deleter_at_once():
    memory = np.arange(6, dtype=np.float32)
    producer = _Producer(memory, [2, 3], versioned=True)
    t = ember.from_dlpack(producer.capsule, copy=True)
    assert producer.deleted == 1
    memory[:] = -1
    assert t.numpy().tolist() == [[0, 1, 2], [3, 4, 5]]


def test_byte_offset_and_strides():
    memory = np.arange(20, dtype=np.float32)
    producer = _Producer(memory, [2, 3], strides=[5, 2], byte_offset=4 * 3)  # rows of 5, every other column
    t = ember.from_dlpack(producer.capsule)
    assert producer.deleted == 1  # strided: copied, then released
    assert t.numpy().tolist() == [[3, 5, 7], [8, 10, 12]]
    contiguous = _Producer(memory, [3], byte_offset=4 * 7)
    t = ember.from_dlpack(contiguous.capsule)
    assert _tensor_ptr(t) == _ptr(memory) + 28 and t.numpy().tolist() == [7, 8, 9]
    negative = _Producer(memory, [4], strides=[-1], byte_offset=4 * 10)
    assert ember.from_dlpack(negative.capsule).numpy().tolist() == [10, 9, 8, 7]


def test_non_contiguous_numpy_arrays_are_copied_or_refused():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    t = ember.from_dlpack(a)
    assert t.numpy().tolist() == a.tolist()
    with pytest.raises(ValueError, match="copy=False.*strides"):
        ember.from_dlpack(a, copy=False)
    squeezed = np.arange(4, dtype=np.int32).reshape(4, 1)[:, :1]  # a size-1 dim's stride does not matter
    assert _tensor_ptr(ember.from_dlpack(squeezed, copy=False)) == _ptr(squeezed)


def test_copy_true_and_copy_false_on_import():
    a = np.arange(4, dtype=np.float32)
    copied = ember.from_dlpack(a, copy=True)
    assert _tensor_ptr(copied) != _ptr(a)
    shared = ember.from_dlpack(a, copy=False)
    assert _tensor_ptr(shared) == _ptr(a)
    with pytest.raises(TypeError, match="copy"):
        ember.from_dlpack(a, copy="yes")


def test_read_only_data_is_shared_and_never_written():
    # Ember tensors never change, so READ_ONLY data may be shared; donation
    # (Note [Buffer donation]) must not hand the producer's memory to an output.
    a = np.linspace(0, 1, 1000, dtype=np.float32)
    a.flags.writeable = False
    original = a.copy()
    t = ember.from_dlpack(a)
    assert _tensor_ptr(t) == _ptr(a)
    result = ember.exp(ember.from_dlpack(a))  # a temporary argument: donation's candidate
    assert _tensor_ptr(result) != _ptr(a)
    np.testing.assert_array_equal(a, original)
    np.testing.assert_allclose(result.numpy(), np.exp(original), rtol=1e-6)
    writable = np.linspace(0, 1, 1000, dtype=np.float32)
    result = ember.negative(ember.from_dlpack(writable))
    assert _tensor_ptr(result) != _ptr(writable)
    np.testing.assert_array_equal(writable, original)
    flagged = _Producer(a, [1000], versioned=True, flags=_READ_ONLY)
    assert _tensor_ptr(ember.from_dlpack(flagged.capsule)) == _ptr(a)


def test_bool_bytes_other_than_zero_and_one_are_normalised():
    memory = np.array([0, 2, 1, 255], dtype=np.uint8)
    producer = _Producer(memory, [4], code=6, bits=8)
    assert ember.from_dlpack(producer.capsule).numpy().tolist() == [False, True, True, True]
    refused = _Producer(memory, [4], code=6, bits=8)
    with pytest.raises(ValueError, match="bool"):
        ember.from_dlpack(refused.capsule, copy=False)
    assert _capsule_name(refused.capsule) == "dltensor"  # refused: the capsule still owns it


_NUMPY_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("name", _NUMPY_DTYPES)
def test_dtypes_round_trip_through_numpy(name):
    values = np.array([0, 1, 1, 0, 1, 1], dtype=name).reshape(2, 3) * (np.array(3, dtype=name) if name != "bool"
                                                                        else True)
    t = ember.from_dlpack(values)
    assert t.dtype == getattr(ember, name) and _tensor_ptr(t) == _ptr(values)
    back = np.from_dlpack(t)
    assert back.dtype == values.dtype and _ptr(back) == _ptr(values)
    np.testing.assert_array_equal(back, values)


def test_bfloat16_uses_dlpack_bfloat():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    memory = np.array([1.5, -2.0, 3.0], dtype=ml_dtypes.bfloat16)
    producer = _Producer(memory, [3], code=4, bits=16, versioned=True)
    t = ember.from_dlpack(producer.capsule)
    assert t.dtype == ember.bfloat16 and t.numpy().astype(np.float32).tolist() == [1.5, -2.0, 3.0]
    round_trip = ember.from_dlpack(t)  # ember -> ember shares the buffer too
    assert round_trip.dtype == ember.bfloat16 and _tensor_ptr(round_trip) == _ptr(memory)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64", "complex128"])
def test_dtypes_ember_lacks_are_refused(name):
    with pytest.raises(BufferError, match="unsupported DLPack dtype"):
        ember.from_dlpack(np.zeros(3, dtype=name))


def test_import_errors():
    with pytest.raises(TypeError, match="__dlpack__"):
        ember.from_dlpack([1, 2])
    memory = np.zeros(2, np.float32)
    future = _Producer(memory, [2], versioned=True, major=2)
    with pytest.raises(BufferError, match="version 2.0"):
        ember.from_dlpack(future.capsule)
    assert future.deleted == 0  # unconsumed: left to the capsule
    gpu = _Producer(memory, [2])
    gpu.managed.dl_tensor.device.device_type = 2
    with pytest.raises(BufferError, match="host memory"):
        ember.from_dlpack(gpu.capsule)


def test_empty_and_scalar_tensors():
    empty = ember.from_dlpack(np.zeros((0, 3), np.float32))
    assert empty.shape == (0, 3)
    scalar = ember.from_dlpack(np.array(5, np.int32))
    assert scalar.shape == () and int(scalar) == 5
    assert np.from_dlpack(ember.constant(2.5)).shape == ()
    assert np.from_dlpack(ember.zeros([2, 0])).shape == (2, 0)


def test_experimental_namespace_matches_tensorflow():
    t = ember.constant([[1, 2], [3, 4]])
    capsule = ember.experimental.dlpack.to_dlpack(t)
    back = ember.experimental.dlpack.from_dlpack(capsule)
    assert _tensor_ptr(back) == _tensor_ptr(t) and back.numpy().tolist() == [[1, 2], [3, 4]]
    v = ember.Variable([1.0, 2.0])
    assert np.from_dlpack(v).tolist() == [1.0, 2.0]


# ---- The simulated accelerator, in a fresh process (the device is chosen at import) --

_SIM_SCRIPT = textwrap.dedent("""
    import numpy as np, pytest, ember
    ember.config.set_async(True)
    with ember.device("sim:0"):
        t = ember.constant(np.arange(6, dtype=np.float32)) * 2.0
    assert not t._is_ready(), "the latency should keep the value pending"
    assert t.__dlpack_device__() == (12, 0)  # kDLExtDev: memory only the device's queue touches
    with pytest.raises(BufferError, match="dl_device"):
        t.__dlpack__()
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(1, 0), copy=False)
    a = np.from_dlpack(t, device="cpu")  # NumPy passes dl_device=(1, 0): a host copy
    assert a.tolist() == [0, 2, 4, 6, 8, 10] and a.flags.writeable
    with pytest.raises(ValueError, match="copy=False"):
        np.asarray(t, copy=False)
    assert np.asarray(t).tolist() == [0, 2, 4, 6, 8, 10]
    print("ok")
""")


def test_simulated_device_exports_only_a_host_copy():
    env = dict(os.environ, EMBER_SIMULATED_DEVICES="1", EMBER_SIMULATED_LATENCY_US="300000")
    env.pop("EMBER_TEST_DEVICE", None)
    result = subprocess.run([sys.executable, "-c", _SIM_SCRIPT], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stderr


# ---- PyTorch and JAX ---------------------------------------------------------------

def test_torch_both_ways():
    torch = pytest.importorskip("torch")
    t = ember.constant(np.arange(6, dtype=np.float32).reshape(2, 3)) + 1.0
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == _tensor_ptr(t) and tt.tolist() == [[1, 2, 3], [4, 5, 6]]
    del t
    gc.collect()
    assert tt.sum().item() == 21  # the capsule's reference keeps the buffer
    source = torch.arange(8, dtype=torch.int64) * 3
    e = ember.from_dlpack(source)
    assert _tensor_ptr(e) == source.data_ptr() and e.dtype == ember.int64
    del source
    gc.collect()
    assert e.numpy().tolist() == [0, 3, 6, 9, 12, 15, 18, 21]
    bf = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    e = ember.from_dlpack(bf)
    assert e.dtype == ember.bfloat16 and _tensor_ptr(e) == bf.data_ptr()
    back = torch.from_dlpack(e)
    assert back.dtype == torch.bfloat16 and back.tolist() == [1.5, -2.0]
    strided = torch.arange(12, dtype=torch.float32).reshape(3, 4).t()
    assert ember.from_dlpack(strided).numpy().tolist() == strided.tolist()


def test_jax_both_ways():
    jax = pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    t = ember.constant(np.arange(16, dtype=np.float32).reshape(4, 4)) * 0.5
    j = jnp.from_dlpack(t)  # JAX asks for the legacy capsule
    assert j.unsafe_buffer_pointer() == _tensor_ptr(t)
    del t
    gc.collect()
    np.testing.assert_array_equal(np.asarray(j), np.arange(16, dtype=np.float32).reshape(4, 4) * 0.5)
    source = jnp.arange(10, dtype=jnp.float32) + 1
    e = ember.from_dlpack(source)
    assert _tensor_ptr(e) == source.unsafe_buffer_pointer()
    del source
    gc.collect()
    assert e.numpy().tolist() == list(range(1, 11))
    assert jax.devices()[0].platform == "cpu"
