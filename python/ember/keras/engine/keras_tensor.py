"""KerasTensor, the symbolic value of the functional API, and Node, one layer call recorded between them."""

from ember import nest
from ember.dtypes import as_dtype


class KerasTensor:
    """A shape and dtype with no value, plus the layer call that made it.

    ``shape`` is a tuple whose batch dim (and any other unknown dim) is
    None. ``_history`` is (node, index): which output of which recorded
    call this is; an Input's node has no layer inputs.
    """

    def __init__(self, shape, dtype="float32", name=None, history=None):
        self.shape = tuple(None if d is None else int(d) for d in shape)
        self.dtype = as_dtype(dtype)
        self.name = name
        self._history = history

    @property
    def ndim(self):
        return len(self.shape)

    def __repr__(self):
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype.name}, name={self.name}>"

    # Python arithmetic on KerasTensors records merging-layer calls (Keras
    # records its own op layers), so the graph stays serializable.
    def __add__(self, other):
        from ember.keras.layers.merging import Add
        return Add()([self, other])

    def __mul__(self, other):
        from ember.keras.layers.merging import Multiply
        return Multiply()([self, other])

    def __sub__(self, other):
        from ember.keras.layers.merging import Subtract
        return Subtract()([self, other])

    def __rsub__(self, other):
        from ember.keras.layers.merging import Subtract
        return Subtract()([other, self])

    __radd__, __rmul__ = __add__, __mul__


class Node:
    """One call of ``layer`` on symbolic arguments: ``args``/``kwargs`` hold
    KerasTensors (and constants); ``outputs`` is the nested output structure."""

    def __init__(self, layer, args, kwargs, outputs):
        self.layer = layer
        self.args, self.kwargs = args, kwargs
        self.outputs = outputs
        for i, t in enumerate(nest.flatten(outputs)):
            t._history = (self, i)

    @property
    def input_tensors(self):
        return [t for t in nest.flatten((self.args, self.kwargs)) if isinstance(t, KerasTensor)]

    @property
    def parents(self):
        return [t._history[0] for t in self.input_tensors]


def is_symbolic(structure):
    return any(isinstance(t, KerasTensor) for t in nest.flatten(structure))
