"""keras.layers.Layer: an ember.Module that builds its weights from the first input's shape."""

import contextlib
import inspect
import threading

import numpy as np

from ember import errors, nest
from ember._module import Module
from ember._tensor import Tensor
from ember._variables import Variable
from ember.dtypes import as_dtype
from ember.function import TensorSpec, function as _function, init_scope
from ember.keras.engine import naming
from ember.keras.engine.keras_tensor import KerasTensor, Node, is_symbolic

class _CallContext(threading.local):
    training = None  # a class default: reading it never raises (and catches) an AttributeError


_context = _CallContext()


def current_training():
    """The ``training`` value of the enclosing layer call, or None outside one."""
    return getattr(_context, "training", None)


@contextlib.contextmanager
def training_scope(training):
    # Nested layers called without `training` inherit the outer call's (Keras' rule).
    previous = current_training()
    _context.training = training
    try:
        yield
    finally:
        _context.training = previous


def _to_tensor(value, dtype, autocast=True):
    from ember import cast, convert_to_tensor
    if isinstance(value, (np.ndarray, list, float, int, np.generic)) and not isinstance(value, bool):
        arr = np.asarray(value)
        if arr.dtype.kind == "f" and (autocast or arr.dtype == np.float64):
            arr = arr.astype(dtype.as_numpy_dtype)
        return convert_to_tensor(arr)
    if autocast and isinstance(value, (Tensor, Variable)) and value.dtype.is_floating and value.dtype != dtype:
        return cast(value, dtype)  # Keras autocasts float inputs to the layer's dtype
    return value


class ShapeOnly:
    """Stands for an input of this shape where only ``.shape`` is read (building before any data)."""

    def __init__(self, shape):
        self.shape = tuple(shape)


class Layer(Module):
    """Keras' Layer on ember: weights are ember Variables found like a Module's.

    Subclasses create weights in ``build(input_shape)`` with ``add_weight``
    (or sublayers in ``__init__``) and compute in ``call``. ``__call__``
    builds on the first call, passes ``training`` to ``call`` when its
    signature has it, and on KerasTensors records a node of the functional
    graph instead of computing.
    """

    def __init__(self, trainable=True, name=None, dtype=None, autocast=True, **kwargs):
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        kwargs.pop("input_length", None)  # Keras 2's Embedding argument, ignored as in Keras 3
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected keyword arguments {sorted(kwargs)}")
        if name is None:
            name = naming.unique_name(naming.to_snake_case(type(self).__name__))
        super().__init__(name=name)
        self._trainable = bool(trainable)
        self.built = False
        self._own_weights = []
        self._extra_losses = []
        self._inbound_nodes = []
        self.autocast = autocast
        self.supports_masking = False
        from ember.keras import backend
        if isinstance(dtype, dict):  # the DTypePolicy config Keras 3 writes in saved configs
            dtype = (dtype.get("config") or {}).get("name")
        self._dtype_name = as_dtype(dtype or backend.floatx()).name
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        self._batch_input_shape = None if input_shape is None else (batch_size,) + tuple(input_shape)

    # --- Attributes -------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype_name

    @property
    def compute_dtype(self):
        return self._dtype_name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        # Keras 3: the flag applies to every sublayer too.
        self._trainable = bool(value)
        for layer in self._sublayers():
            layer.trainable = value

    def _sublayers(self):
        """Direct sublayers, in the order their attributes were set."""
        out, seen = [], {id(self)}

        def walk(value):
            if isinstance(value, Layer):
                if id(value) not in seen:
                    seen.add(id(value))
                    out.append(value)
            elif isinstance(value, dict):
                for v in value.values():
                    walk(v)
            elif isinstance(value, (list, tuple)):
                for v in value:
                    walk(v)

        for key, value in vars(self).items():
            if key not in ("_inbound_nodes", "_outbound_layers"):
                walk(value)
        return out

    @property
    def layers(self):
        return self._sublayers()

    def _all_weights(self):
        # Keras 3's order: own trainable weights, own non-trainable weights, then each sublayer's.
        own = [v for v in self._own_weights if v.trainable] + [v for v in self._own_weights if not v.trainable]
        out, seen = [], set()
        for v in own + [w for layer in self._sublayers() for w in layer._all_weights()]:
            if id(v) not in seen:
                seen.add(id(v))
                out.append(v)
        return out

    @property
    def weights(self):
        return self._all_weights()

    @property
    def trainable_weights(self):
        if not self.trainable:
            return []
        out = [v for v in self._own_weights if v.trainable]
        for layer in self._sublayers():
            out += [v for v in layer.trainable_weights if all(v is not w for w in out)]
        return out

    @property
    def non_trainable_weights(self):
        trainable = {id(v) for v in self.trainable_weights}
        return [v for v in self.weights if id(v) not in trainable]

    # Keras 3 also names them *_variables; ember.Module's properties see
    # only each Variable's own flag, so they are replaced by Keras' rule.
    @property
    def trainable_variables(self):
        return self.trainable_weights

    @property
    def non_trainable_variables(self):
        return self.non_trainable_weights

    @property
    def variables(self):
        return self.weights

    def count_params(self):
        return int(sum(int(np.prod(v.shape)) for v in self.weights))

    def get_weights(self):
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        params = self.weights
        if len(weights) != len(params):
            raise ValueError(f"{self.name}.set_weights: expected {len(params)} arrays, got {len(weights)}")
        for v, w in zip(params, weights):
            w = np.asarray(w)
            if tuple(w.shape) != tuple(v.shape):
                raise ValueError(f"{self.name}.set_weights: shape {w.shape} for weight {v.name} of shape "
                                 f"{tuple(v.shape)}")
            v.assign(w.astype(v.dtype.as_numpy_dtype))

    # --- Weights and losses -------------------------------------------------
    def add_weight(self, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", name=None):
        from ember.keras import initializers
        dtype = as_dtype(dtype or self._dtype_name)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        init = initializers.get(initializer)
        shape = tuple(int(d) for d in (shape or ()))
        with init_scope():  # a layer built inside a traced step makes its weights eagerly
            value = init(shape, dtype=dtype)
            variable = Variable(value, trainable=trainable, name=name or f"variable_{len(self._own_weights)}")
        self._own_weights.append(variable)
        if regularizer is not None:
            from ember.keras import regularizers
            reg = regularizers.get(regularizer)
            self._extra_losses.append(lambda: reg(variable))
        return variable

    def add_loss(self, loss):
        self._extra_losses.append(loss)

    @property
    def losses(self):
        out = [loss() if callable(loss) else loss for loss in self._extra_losses]
        for layer in self._sublayers():
            out += layer.losses
        return out

    # --- Building and calling ----------------------------------------------
    def build(self, input_shape):
        self.built = True

    def compute_mask(self, inputs, previous_mask=None):
        """The mask of this layer's output (Keras' masking): a layer that supports
        masking passes its input's mask on; others end it."""
        return previous_mask if self.supports_masking else None

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__}.call is not implemented")

    def _maybe_build(self, inputs):
        if self.built:
            return
        shapes = nest.map_structure(lambda t: tuple(t.shape) if hasattr(t, "shape") else None, inputs)
        with init_scope():
            self.build(shapes)
        self.built = True

    def _takes_mask(self):
        return "mask" in self._call_parameters()

    def _call_parameters(self):
        if "_call_params" not in vars(self):
            object.__setattr__(self, "_call_params", inspect.signature(self.call).parameters)
        return self._call_params

    def __call__(self, *args, **kwargs):
        if is_symbolic((args, kwargs)):
            return self._symbolic_call(args, kwargs)
        if args:
            dtype = as_dtype(self._dtype_name)
            # The inputs convert like Keras' (lists and scalars too); other
            # arguments only when they are arrays (a Python int may be an option).
            args = (nest.map_structure(lambda v: _to_tensor(v, dtype, self.autocast), args[0]),) + tuple(
                nest.map_structure(lambda v: _to_tensor(v, dtype, self.autocast) if isinstance(v, np.ndarray)
                                   else v, list(args[1:])))
        inputs = args[0] if args else kwargs.get("inputs")
        self._maybe_build(inputs)
        params = self._call_parameters()
        training = kwargs.pop("training", None)
        if training is None:
            training = current_training()
        if training is None and "training" in params and params["training"].default is not inspect.Parameter.empty:
            training = params["training"].default
        training = bool(training) if training is not None else False
        if "training" in params:
            kwargs["training"] = training
        if "mask" in kwargs and "mask" not in params:
            kwargs.pop("mask")  # a model hands masks to every layer; only those that take one get it
        with training_scope(training):
            outputs = self.call(*args, **kwargs)
        # Kept for summary() of subclassed models (no graph records their shapes).
        shapes = [(None,) + tuple(t.shape)[1:] for t in nest.flatten(outputs) if hasattr(t, "shape")]
        object.__setattr__(self, "_last_output_shape", shapes[0] if len(shapes) == 1 else shapes)
        return outputs

    def _symbolic_call(self, args, kwargs):
        """Records a node: traces the layer on specs of the KerasTensors to learn the output shapes."""
        flat = nest.flatten((args, kwargs))
        positions = [i for i, v in enumerate(flat) if isinstance(v, KerasTensor)]
        self._maybe_build(args[0] if args else kwargs.get("inputs"))  # KerasTensors have shapes too
        specs = [TensorSpec(list(flat[i].shape), flat[i].dtype) for i in positions]

        def run(*tensors):
            values = list(flat)
            for i, t in zip(positions, tensors):
                values[i] = t
            a, k = nest.pack_sequence_as((args, kwargs), values)
            return self(*a, **k)

        try:
            traced = _function(run).get_concrete_function(*specs).structured_outputs
            fix_batch = False
        except (TypeError, ValueError, errors.InvalidArgumentError):
            # Some ember ops cannot trace an unknown batch dim (ember.nn.conv3d and the
            # 3-D poolings put it in static attributes): trace with a batch of 1 instead.
            if not all(spec.shape[0] is None for spec in specs if spec.shape):
                raise
            specs = [TensorSpec([1] + list(spec.shape)[1:], spec.dtype) for spec in specs]
            traced = _function(run).get_concrete_function(*specs).structured_outputs
            fix_batch = True

        def keras_tensor(t):
            shape = tuple(t.shape)
            if fix_batch and shape and shape[0] == 1:
                shape = (None,) + shape[1:]
            return KerasTensor(shape, t.dtype, name=self.name)
        outputs = nest.map_structure(keras_tensor, traced)
        node = Node(self, args, kwargs, outputs)
        self._inbound_nodes.append(node)
        return outputs

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, tuple) and all(d is None or isinstance(d, int) for d in input_shape):
            out = self._symbolic_call((KerasTensor(input_shape, self._dtype_name),), {})
            self._inbound_nodes.pop()
            return nest.map_structure(lambda t: t.shape, out)
        raise NotImplementedError(f"{type(self).__name__}.compute_output_shape")

    # --- Functional graph attributes ---------------------------------------
    @property
    def output(self):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called on a symbolic input")
        return self._inbound_nodes[0].outputs

    @property
    def input(self):
        if not self._inbound_nodes:
            raise AttributeError(f"Layer {self.name} has never been called on a symbolic input")
        node = self._inbound_nodes[0]
        tensors = node.input_tensors
        return tensors[0] if len(tensors) == 1 else tensors

    # --- Config -------------------------------------------------------------
    def get_config(self):
        config = {"name": self.name, "trainable": self.trainable, "dtype": self._dtype_name}
        if self._batch_input_shape is not None:
            config["batch_input_shape"] = list(self._batch_input_shape)
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        batch_input_shape = config.pop("batch_input_shape", None)
        if batch_input_shape is not None:
            config["input_shape"] = tuple(batch_input_shape[1:])
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"
