"""Host-side string tensors: the value type, its shape ops and the ember.strings ops (Note [Host string dtype])."""

from ember._strings._value import StringTensor, bytes_array, from_array

__all__ = ["StringTensor", "bytes_array", "from_array"]
