"""ember.py_function and ember.numpy_function: call Python from a TensorFlow program (``tf.py_function``).

Note [py_function in functions]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
TensorFlow runs the Python callable each time the graph runs, with the
values of that call. Ember's graphs have no node that calls back into
Python (a kernel that takes the GIL and runs a registered callable would
need C++ in csrc/graph/ and the executor). Freezing the callable's result
at trace time would be silently wrong, so instead the first trace that
reaches a py_function stops (function.HostCallbackInTrace) and the
@ember.function runs that input signature eagerly, op by op, at every call:
the callable sees real values at call time, in program order with the
other ops, and a gradient tape records the ops it runs, as in TensorFlow.
The cost is that such a function gets no graph (get_concrete_function
raises). Code under ember.init_scope() runs eagerly anyway, so a call there
runs at once.
"""

import numpy as np

from ember import _C, nest
from ember._tensor import Tensor
from ember.dtypes import as_dtype
from ember.function import HostCallbackInTrace, current_trace


def _enter(what):
    if current_trace() is not None:
        raise HostCallbackInTrace(what)


def _outputs(result, Tout, what):
    """func's result as tensors of the Tout dtypes (one tensor for a single dtype, a list for a list)."""
    if Tout is None:
        return None
    if isinstance(Tout, (list, tuple)):
        dtypes = [as_dtype(d) for d in Tout]
        values = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(values) != len(dtypes):
            raise ValueError(f"{what}: func returned {len(values)} values but Tout has {len(dtypes)} dtypes")
        return [_convert(v, d, what) for v, d in zip(values, dtypes)]
    return _convert(result, as_dtype(Tout), what)


def _convert(value, dtype, what):
    """A returned value as a tensor of `dtype`: tensors and NumPy values must have it
    already (TensorFlow raises too); Python numbers and lists are converted to it."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        if as_dtype(value.dtype) != dtype:
            raise TypeError(f"{what}: func returned a {as_dtype(value.dtype).name} value where Tout says "
                            f"{dtype.name}")
        return value if isinstance(value, Tensor) else _C.convert_to_tensor(value, dtype)
    return _C.convert_to_tensor(value, dtype)


def py_function(func=None, inp=None, Tout=None, name=None):
    """Runs ``func(*inp)`` on eager tensors and returns its result as tensors of
    the `Tout` dtypes (``tf.py_function``). Inside @ember.function it runs at
    every call, not while tracing (Note [py_function in functions]); a
    gradient tape records the ember ops func runs."""
    del name
    if func is None:  # the decorator form: @py_function(Tout=...)
        return lambda f: (lambda *args: py_function(f, list(args), Tout))
    _enter("py_function")
    values = [v if isinstance(v, Tensor) else _C.convert_to_tensor(v, None) for v in nest.flatten(inp or [])]
    args = nest.pack_sequence_as(inp or [], values)
    return _outputs(func(*args), Tout, "py_function")


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Runs ``func`` on the NumPy values of `inp` and returns its result as tensors
    of the `Tout` dtypes (``tf.numpy_function``). No gradient flows through it.
    Inside @ember.function it runs at every call (Note [py_function in functions])."""
    del stateful, name
    if func is None:
        return lambda f: (lambda *args: numpy_function(f, list(args), Tout))
    _enter("numpy_function")
    arrays = [v.numpy() if isinstance(v, Tensor) else np.asarray(v) for v in (inp or [])]
    return _outputs(func(*arrays), Tout, "numpy_function")
