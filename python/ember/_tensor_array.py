"""ember.TensorArray: a list of same-dtype tensors written one index at a time (``tf.TensorArray``).

Note [TensorArray representation]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
A TensorArray has one of two forms, and changes from the first to the
second at most once:

- a *list* of element tensors (None where nothing was written), used while
  every index is a Python int or an eager tensor. Eagerly this is
  TensorFlow's eager TensorArray: write() changes the array and returns it,
  reading an unwritten index gives zeros, and with ``clear_after_read``
  (the eager default) an element can be read once.
- a *dense* buffer tensor of shape ``[size] + element_shape``, used once an
  index is symbolic (inside ``@ember.function``) and whenever the array is a
  ``while_loop`` variable: a graph has no list type, so the array travels
  through the loop op as that one tensor (``_components`` /
  ``_from_components``, the protocol ``_control_flow`` flattens loop
  variables with). write() then returns a new TensorArray around an updated
  buffer, as TensorFlow's graph TensorArray does, and, as there,
  ``clear_after_read`` is not enforced.

A dense array with ``dynamic_size`` (or a size computed in the trace, which
has no value until the function runs) grows by one row per write and writes
the row at the index, so in a traced loop it assumes the writes append
(index == size), which is what the loops that grow arrays do. Its size is
then known only at run time, and a function cannot return such a tensor
yet (docs/functions.md): ``stack()`` it and reduce it inside the function,
or give the array a fixed size.
"""

import numpy as np

from ember import _C, _creation, _movement, errors
from ember._context import current_trace
from ember._generated import ops
from ember._strings import _dispatch
from ember._tensor import Tensor
from ember._tensor_shape import TensorShape
from ember.dtypes import as_dtype, int32


def _symbolic(value):
    return isinstance(value, Tensor) and _C._is_symbolic(value)


def _static_index(index, what):
    """index as a Python int, or None when it is symbolic."""
    if _symbolic(index):
        return None
    if isinstance(index, Tensor):
        index = index.numpy()
    array = np.asarray(index)
    if array.ndim != 0 or array.dtype.kind not in "iu":
        raise TypeError(f"TensorArray.{what}: index must be a scalar int, got {index!r}")
    value = int(array)
    if value < 0:
        raise errors.OutOfRangeError(f"TensorArray.{what}: index {value} is negative")
    return value


def _shape_or_none(shape):
    if shape is None:
        return None
    shape = TensorShape(shape)
    return None if shape.rank is None else tuple(shape)


def _merge(known, shape, what):
    """The element shape after seeing an element of `shape`; a mismatch is an error."""
    shape = tuple(shape)
    if known is None:
        return shape
    if len(known) != len(shape) or any(a is not None and b is not None and a != b for a, b in zip(known, shape)):
        raise ValueError(f"TensorArray.{what}: element of shape {shape} does not match the element shape {known}")
    return tuple(a if a is not None else b for a, b in zip(known, shape))


class TensorArray:
    """A list of tensors of one dtype, for loops that build a result one step at a time
    (``tf.TensorArray``). See Note [TensorArray representation]."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        del tensor_array_name, handle, flow, colocate_with_first_write_call, name
        self._dtype = as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = infer_shape
        self._element_shape = _shape_or_none(element_shape)
        # Eager TensorFlow clears an element once read; graphs ignore the flag.
        self._clear_after_read = (clear_after_read is None or bool(clear_after_read)) and current_trace() is None
        self._buffer = None
        self._probe = False  # Note [TensorArray shape probe]
        self._read = set()
        if size is None:
            size = 0
            if not self._dynamic_size:
                raise ValueError("TensorArray: size is required unless dynamic_size=True")
        n = _static_index(size, "__init__")
        if n is None:
            # A size computed in the trace (tf.shape(x)[0]) has no value yet: the array
            # starts empty and grows by one row per write (Note [TensorArray representation]).
            n, self._dynamic_size = 0, True
        self._items = [None] * n

    # --- the two forms ------------------------------------------------------

    def _copy(self, buffer):
        out = TensorArray.__new__(TensorArray)
        out.__dict__.update(self.__dict__)
        out._items, out._buffer, out._read = None, buffer, set()
        return out

    def _zeros(self, what):
        if self._element_shape is None or any(d is None for d in self._element_shape):
            raise ValueError(f"TensorArray.{what}: an unwritten element needs a fully known element_shape, got "
                             f"{self._element_shape}; pass element_shape= or write the element first")
        return ops.zeros(self._element_shape, dtype=self._dtype)

    def _dense(self, what):
        """The buffer of shape [size] + element_shape (Note [TensorArray representation])."""
        if self._buffer is not None:
            return self._buffer
        if not self._items:
            zeros = self._zeros(what)
            return ops.zeros((0,) + tuple(zeros.shape), dtype=self._dtype)
        return _dispatch.stack([t if t is not None else self._zeros(what) for t in self._items])

    def _components(self):
        """The tensors that stand for this array in a while_loop (its dense buffer)."""
        return [self._dense("while_loop")]

    # Note [TensorArray shape probe]: `TensorArray(tf.float32, size=n)` then
    # `ta.write(i, ...)` in a loop is how TensorFlow programs build results,
    # and the element shape is only known from the writes in the body. Before
    # a traced loop needs the dense buffer, _control_flow traces the body once,
    # thrown away, with a probe copy of the array that only records the shape
    # of what is written.
    def _needs_probe(self):
        return self._buffer is None and self._element_shape is None and not any(
            t is not None for t in self._items)

    def _probe_copy(self):
        out = self._copy(None)
        out._probe, out._items = True, [None] * len(self._items)
        return out

    def _copy_for_loop(self):
        out = self._copy(None)
        out._items = list(self._items)
        return out

    def _with_element_shape(self, shape):
        if shape is None:
            raise ValueError("TensorArray: the loop never writes this array, so its element shape is unknown; "
                             "pass element_shape=")
        self._element_shape = tuple(shape)
        return self

    def _probe_value(self, rows):
        zeros = self._zeros("read")
        return zeros if rows is None else ops.zeros((rows,) + tuple(zeros.shape), dtype=self._dtype)

    def _component_invariants(self, components):
        """The while_loop shape invariants of _components(): a dynamic array may grow."""
        buffer = components[0]
        return [(None,) + tuple(buffer.shape[1:]) if self._dynamic_size else tuple(buffer.shape)]

    def _from_components(self, components):
        return self._copy(components[0])

    # --- properties ---------------------------------------------------------

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        if self._buffer is not None:
            return TensorShape(tuple(self._buffer.shape[1:]))
        return TensorShape(self._element_shape)

    def size(self, name=None):
        """The number of elements, as an int32 scalar."""
        del name
        if self._buffer is not None:
            return _dispatch.shape(self._buffer)[0]
        return _creation.constant(len(self._items), dtype=int32)

    # --- writing ------------------------------------------------------------

    def _value(self, value, what):
        value = value if isinstance(value, Tensor) else _C.convert_to_tensor(value, self._dtype)
        if value.dtype != self._dtype:
            raise errors.InvalidArgumentError(f"TensorArray.{what}: TensorArray dtype is {self._dtype.name} but "
                                              f"the value has dtype {value.dtype.name}")
        return value

    def write(self, index, value, name=None):
        """Writes `value` at `index`; returns the array to use from now on."""
        del name
        value = self._value(value, "write")
        shape = self._element_shape
        if self._infer_shape or self._buffer is not None or self._probe:
            shape = _merge(shape, value.shape, "write")
        if self._probe:
            self._element_shape = shape
            return self
        i = _static_index(index, "write")
        if i is None or self._buffer is not None:
            self._element_shape = shape
            return self._write_dense(index if i is None else i, value)
        if i >= len(self._items):
            if not self._dynamic_size:
                raise errors.OutOfRangeError(f"TensorArray.write: index {i} is out of range for an array of size "
                                             f"{len(self._items)} (dynamic_size=False)")
            self._items.extend([None] * (i + 1 - len(self._items)))
        self._element_shape = shape
        self._items[i] = value
        return self

    def _write_dense(self, index, value):
        buffer = self._dense("write")
        if self._dynamic_size:  # one row per write: see Note [TensorArray representation]
            buffer = _dispatch.concat([buffer, ops.zeros((1,) + tuple(buffer.shape[1:]), dtype=self._dtype)], 0)
        at = _dispatch.reshape(ops.cast(index, int32), [1, 1])
        return self._copy(ops.tensor_scatter_nd_update(buffer, at, _dispatch.expand_dims(value, 0)))

    def unstack(self, value, name=None):
        """Writes value[i] at index i for each row of `value`."""
        del name
        value = self._value(value, "unstack")
        self._element_shape = _merge(self._element_shape, value.shape[1:], "unstack")
        if self._buffer is not None or _symbolic(value):
            return self._copy(value)
        rows = _dispatch.unstack(value) if value.shape[0] else []
        if len(rows) > len(self._items) and not self._dynamic_size and self._items:
            raise errors.OutOfRangeError(f"TensorArray.unstack: {len(rows)} rows for an array of size "
                                         f"{len(self._items)}")
        self._items = list(rows) + self._items[len(rows):]
        return self

    def scatter(self, indices, value, name=None):
        """Writes value[k] at indices[k]."""
        del name
        value = self._value(value, "scatter")
        if _symbolic(indices) or self._buffer is not None:
            self._element_shape = _merge(self._element_shape, value.shape[1:], "scatter")
            at = _dispatch.reshape(ops.cast(indices, int32), [-1, 1])
            return self._copy(ops.tensor_scatter_nd_update(self._dense("scatter"), at, value))
        for k, i in enumerate(np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices).ravel()):
            self.write(int(i), value[k])
        return self

    def split(self, value, lengths, name=None):
        """Writes consecutive pieces of `value` (along axis 0) of the given lengths."""
        del name
        lengths = [int(n) for n in np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths)]
        pieces = _movement.split(self._value(value, "split"), lengths, 0) if lengths else []
        for i, piece in enumerate(pieces):
            self.write(i, piece)
        return self

    # --- reading ------------------------------------------------------------

    def read(self, index, name=None):
        """The element at `index` (zeros if it was never written)."""
        del name
        if self._probe:
            return self._probe_value(None)
        i = _static_index(index, "read")
        if i is None or self._buffer is not None:
            return _dispatch.gather(self._dense("read"), index if i is None else i)
        if i >= len(self._items):
            raise errors.OutOfRangeError(f"TensorArray.read: index {i} is out of range for an array of size "
                                         f"{len(self._items)}")
        value = self._items[i]
        if value is None:
            if i in self._read:
                raise errors.InvalidArgumentError(
                    f"TensorArray.read: could not read index {i} twice because it was cleared after a previous "
                    f"read (perhaps try setting clear_after_read = false?)")
            value = self._zeros("read")
        if self._clear_after_read:
            self._items[i] = None
            self._read.add(i)
        return value

    def stack(self, name=None):
        """All elements stacked along a new axis 0."""
        del name
        if self._probe:
            return self._probe_value(len(self._items))
        return self._dense("stack")

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        del name
        return _dispatch.gather(self._dense("gather"), indices)

    def concat(self, name=None):
        """All elements joined along their axis 0."""
        del name
        if self._buffer is not None:
            shape = tuple(self._buffer.shape)
            if len(shape) < 2:
                raise ValueError("TensorArray.concat: elements must have rank >= 1")
            return _dispatch.reshape(self._buffer, [-1] + list(shape[2:]))
        items = [t if t is not None else self._zeros("concat") for t in self._items]
        if not items:
            return ops.zeros((0,) + tuple(self._zeros("concat").shape[1:]), dtype=self._dtype)
        return _dispatch.concat(items, 0)

    def identity(self):
        return self

    def close(self, name=None):
        del name

    def __repr__(self):
        size = len(self._items) if self._items is not None else "?"
        return f"<ember.TensorArray dtype={self._dtype.name} size={size} element_shape={self.element_shape}>"
