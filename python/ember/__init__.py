"""Ember: a high-performance eager execution engine for machine learning.

Ops run as soon as they are called (asynchronously by default); the names
follow TensorFlow's public API::

    import ember
    x = ember.constant([[1.0, 2.0], [3.0, 4.0]])
    y = ember.nn.relu(ember.matmul(x, x) - 10.0)
    print(y.numpy())
"""

import numpy as _numpy  # noqa: F401 - before _C, which uses its C API

from ember import _C

from ember._blas import openblas_directory as _openblas_directory

_C._set_openblas_directory(_openblas_directory() or "")  # OpenBLAS loads on first use: ember/_blas.py
from ember import errors

# Runtime errors are raised as ember.errors classes, in StatusCode order
# (csrc/core/status.h); kTypeError stays a plain TypeError.
_C._set_error_classes((
    None, errors.InvalidArgumentError, None, errors.OutOfRangeError, errors.NotFoundError,
    errors.UnimplementedError, errors.InternalError, errors.ResourceExhaustedError, errors.CancelledError,
    errors.FailedPreconditionError, errors.DeadlineExceededError, errors.UnavailableError))
from ember.dtypes import (  # noqa: A004
    ALL_DTYPES as _ALL_DTYPES, DType, as_dtype, bfloat16, bool, complex64, float16, float32, float64, int8,
    int16, int32, int64, string, uint8)
from ember._tensor import Tensor

_C._set_dtype_objects(_ALL_DTYPES)  # in C++ enum order
from ember._tensor_shape import TensorShape  # noqa: E402

_C._set_shape_type(TensorShape)  # Tensor.shape's type (Note [TensorShape as a tuple])

from ember import config  # noqa: E402
from ember._creation import constant, convert_to_tensor  # noqa: E402
from ember.device import device, list_devices  # noqa: E402
from ember._runtime import execute, sync  # noqa: E402

# Generated op bindings (codegen/ from op_defs/): ember.add, ember.matmul, ...
from ember._generated import *  # noqa: E402,F401,F403
from ember._generated.ops import _install_tensor_methods  # noqa: E402

_install_tensor_methods(Tensor)
# Hand-written wrappers with TensorFlow's signatures replace these generated ops:
from ember._movement import linspace, meshgrid, one_hot, ones_like, pad, range, split, zeros_like  # noqa: E402,A004
from ember._selection import boolean_mask, gather, where  # noqa: E402,F811
from ember._segments import unique, unique_with_counts  # noqa: E402 - tf.unique, tf.unique_with_counts
# Shape ops that also take host-side string tensors (ember/_strings/_dispatch.py):
from ember._strings._dispatch import (  # noqa: E402,F811
    concat, equal, expand_dims, gather, identity, not_equal, rank, reshape, shape, size, squeeze, stack, tile,
    transpose, unstack)
from ember._name_scope import get_current_name_scope, name_scope  # noqa: E402
from ember._variables import Variable, variable_creator_scope  # noqa: E402
from ember._variable_policy import VariableAggregation, VariableSynchronization  # noqa: E402
from ember.autodiff import GradientTape, UnconnectedGradients, custom_gradient  # noqa: E402
from ember import nest  # noqa: E402
from ember.function import init_scope  # noqa: E402
from ember.function import ConcreteFunction, Function, TensorSpec, function, function_from_text  # noqa: E402
from ember.function import set_autograph_converter as _set_autograph_converter  # noqa: E402


def _autograph_on_first_use(func, warn=True):
    """Converts `func` with AutoGraph (ember/_autograph), imported by the first
    function that asks: importing it installs its own converter in ember.function
    (Note [AutoGraph]), which later functions call directly."""
    from ember import _autograph
    return _autograph.convert(func, warn)


_set_autograph_converter(_autograph_on_first_use)
from ember._printing import print  # noqa: E402,A004 - tf.print
from ember._tensor_repr import get_printoptions, printoptions, set_printoptions  # noqa: E402 - NumPy's names

_install_tensor_methods(Variable)

from ember import debugging, linalg, math, nn  # noqa: E402
from ember import random  # noqa: E402
from ember._generated import raw_ops  # noqa: E402 - ops by their op_defs names (call_function)
from ember.linalg import norm, tensordot  # noqa: E402,F811 - TF-style argument handling
from ember._clipping import clip_by_global_norm, clip_by_norm  # noqa: E402 - tf.clip_by_norm, tf.clip_by_global_norm
from ember.einsum import einsum  # noqa: E402,F811 - tf.einsum's (equation, *inputs)

# Note [Lazy submodules]: tf.keras, tf.data, tf.distribute, tf.summary,
# tf.saved_model, tf.io (files, CSV, TFRecords, serialized tensors),
# tf.train (checkpoints) and tf.profiler are imported on first use
# (`ember.keras`, `from ember import keras`, `import ember.keras` all work):
# they were about a quarter of `import ember`'s time and 1.5 MiB of its
# resident set, for programs that may never touch them. The optimizers look
# for a running strategy only once ember.distribute has been imported (no
# strategy can run before). Since stop 47 the composites (tf.ragged,
# tf.sparse), tf.strings, tf.image, tf.signal, tf.bitwise,
# tf.experimental, tf.initializers, tf.optimizers, the names of
# _LAZY_ATTRIBUTES (cond and while_loop, TensorArray, the functional ops,
# py_function, tf.Module) and AutoGraph (for the first function that
# converts) load on first use too: 33 modules, 0.8 MiB of every process
# that imports ember. Ember's own modules reach
# them by their module paths, never through this package's attributes.
_LAZY_SUBMODULES = frozenset({"keras", "data", "distribute", "summary", "saved_model", "io", "train", "profiler",
                              "ragged", "sparse", "strings", "image", "signal", "bitwise", "experimental",
                              "initializers", "optimizers"})
_LAZY_ATTRIBUTES = {
    "TensorArray": "ember._tensor_array",
    **dict.fromkeys(["foldl", "foldr", "map_fn", "scan", "switch_case", "vectorized_map"], "ember._functional_ops"),
    **dict.fromkeys(["numpy_function", "py_function"], "ember._py_function"),
    "SparseTensor": "ember.sparse",
    "RaggedTensor": "ember.ragged._ragged_tensor",
    "Module": "ember._module",
    **dict.fromkeys(["cond", "while_loop"], "ember._control_flow"),
}


def __getattr__(name):
    if name in _LAZY_SUBMODULES or name in _LAZY_ATTRIBUTES:
        import importlib
        if name in _LAZY_SUBMODULES:
            value = importlib.import_module(f"ember.{name}")
        else:
            value = getattr(importlib.import_module(_LAZY_ATTRIBUTES[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _LAZY_SUBMODULES | set(_LAZY_ATTRIBUTES))

from ember._dlpack import from_dlpack  # noqa: E402 - the array API's from_dlpack

newaxis = None  # tf.newaxis: x[ember.newaxis] adds a dim of length 1

__version__ = "0.1.0"
