"""DLPack: zero-copy exchange with NumPy, PyTorch, JAX and other array libraries.

``ember.from_dlpack(x)`` imports anything with ``__dlpack__`` (or a bare
DLPack capsule); ``Tensor.__dlpack__`` / ``Tensor.__dlpack_device__``
export. The rules (lifetime, read-only data, copies) are in docs/interop.md;
the C++ half is csrc/python/dlpack_binding.cc.
"""

import enum

from ember import _C


class DLDeviceType(enum.IntEnum):
    """The DLPack device types Ember reads or reports."""

    kDLCPU = 1
    kDLCUDAHost = 3
    kDLROCMHost = 11
    kDLExtDev = 12  # what a tensor on the simulated accelerator reports


_HOST_DEVICE_TYPES = (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost, DLDeviceType.kDLROCMHost)
_CPU = (int(DLDeviceType.kDLCPU), 0)


def _dlpack_device(self):
    """``(device_type, device_id)`` in DLPack's terms: ``(1, 0)`` (kDLCPU) for a
    tensor in host memory; ``(12, index)`` (kDLExtDev) on the simulated
    accelerator, whose memory only a copy can reach (``__dlpack__`` then needs
    ``dl_device=(1, 0)``)."""
    return _C._dlpack_device(self)


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """Exports the tensor as a DLPack capsule (the array API's ``__dlpack__``).

    Waits for a pending value. Shares the tensor's buffer unless ``copy`` is
    True or ``dl_device=(1, 0)`` asks for a host copy of a device tensor.
    ``max_version >= (1, 0)`` gets a versioned capsule that marks shared data
    READ_ONLY (tensors are immutable); otherwise a legacy ``"dltensor"`` one.
    """
    if stream is not None and not isinstance(stream, int):
        raise TypeError(f"__dlpack__: stream must be None or an int, got {type(stream).__name__}")
    # Host data is final once exported (the value is awaited), so any stream
    # the consumer names is already satisfied.
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"__dlpack__: copy must be None or a bool, got {copy!r}")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    here = tuple(self.__dlpack_device__())
    to_host = False
    if dl_device is not None:
        wanted = (int(dl_device[0]), int(dl_device[1]))
        if wanted != here and wanted != _CPU:
            raise BufferError(f"__dlpack__: cannot export a tensor on {self.device} to DLPack device {wanted}")
        to_host = wanted == _CPU and here != _CPU
        if to_host and copy is False:
            raise BufferError(f"__dlpack__: exporting a tensor on {self.device} to the CPU needs a copy, "
                              "but copy=False")
    if here != _CPU and not to_host:
        raise BufferError(f"__dlpack__: a tensor on {self.device} is not in host memory; pass dl_device=(1, 0) "
                          "for a host copy")
    return _C._to_dlpack(self, versioned, bool(copy), to_host)


def from_dlpack(x, /, *, copy=None):
    """Returns a tensor on the CPU that shares the memory of ``x``.

    ``x`` is an object with ``__dlpack__`` (a NumPy array, a PyTorch or JAX
    array, another tensor) or a DLPack capsule (``tf.experimental.dlpack``
    style). ``copy=None`` shares when it can and copies when the layout
    needs it (non-contiguous strides, misaligned data); ``copy=True``
    always copies; ``copy=False`` raises ValueError when a copy is needed.
    The tensor keeps the producer's memory alive and must not be changed
    through the producer afterwards (Ember assumes tensors never change).
    """
    if copy is not None and not isinstance(copy, bool):
        raise TypeError(f"from_dlpack: copy must be None or a bool, got {copy!r}")
    if type(x).__name__ == "PyCapsule":
        return _C._from_dlpack(x, copy)
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"from_dlpack: expected an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(x).__name__}")
    kwargs = {"max_version": (1, 0)}
    if hasattr(x, "__dlpack_device__"):
        device = tuple(x.__dlpack_device__())
        if int(device[0]) not in _HOST_DEVICE_TYPES:
            if copy is False:
                raise ValueError(f"from_dlpack(copy=False): the data is on DLPack device {device}; "
                                 "ember reads host memory only, so it needs a copy")
            kwargs["dl_device"] = _CPU  # ask the producer for a host copy
    if copy is not None:
        kwargs["copy"] = copy
    capsule = _call_dlpack(x, kwargs)
    return _C._from_dlpack(capsule, copy)


def _call_dlpack(x, kwargs):
    """Calls ``x.__dlpack__``, dropping the keywords that older producers
    (DLPack < 1.0, the 2021 array API) do not take."""
    try:
        return x.__dlpack__(**kwargs)
    except TypeError:
        if "dl_device" in kwargs:
            raise  # a device copy only a new producer can make
        kwargs = {k: v for k, v in kwargs.items() if k == "copy"}
        try:
            return x.__dlpack__(**kwargs)
        except TypeError:
            if not kwargs:
                raise
            return x.__dlpack__()  # ember copies if asked: copy is passed to _from_dlpack
