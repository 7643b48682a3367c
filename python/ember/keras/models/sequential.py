"""keras.Sequential: a plain stack of single-input, single-output layers."""

from ember.keras.engine.keras_tensor import KerasTensor
from ember.keras.engine.layer import Layer
from ember.keras.engine.training import Model
from ember.keras.layers.core import InputLayer


class Sequential(Model):
    """Layers applied in order. The model is built (weights made, output
    shapes known for ``summary``) as soon as its input shape is known: from
    an ``Input``/``InputLayer`` first, a first layer's ``input_shape``, a
    ``build(input_shape)`` call, or the first call on data."""

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        self._input_layer = None
        self._stack = []
        self._graph_outputs = None
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_graph()

    def add(self, layer, rebuild=True):
        if isinstance(layer, KerasTensor):  # Input(...) as the first "layer"
            layer = layer._history[0].layer
        if isinstance(layer, InputLayer):
            if self._input_layer is not None or self._stack:
                raise ValueError("Sequential: an InputLayer can only come first")
            self._input_layer = layer
        else:
            if not isinstance(layer, Layer):
                raise TypeError(f"Sequential.add: expected a Layer, got {layer!r}")
            if not self._stack and self._input_layer is None and layer._batch_input_shape is not None:
                self._input_layer = InputLayer(batch_shape=layer._batch_input_shape)
            self._stack.append(layer)
        if rebuild and self._graph_outputs is not None and self._stack and self._stack[-1] is layer:
            self._graph_outputs = layer(self._graph_outputs)  # extend the built graph by one call
            return
        self.built = False
        if rebuild:
            self._maybe_build_graph()

    def pop(self):
        layer = self._stack.pop()
        self.built = False
        self._maybe_build_graph()
        return layer

    @property
    def layers(self):
        return list(self._stack)

    def _sublayers(self):
        return list(self._stack)

    def _maybe_build_graph(self):
        if self._input_layer is None or not self._stack:
            return
        # Run the layers on the symbolic input: this builds them and records
        # each output shape (summary) without computing anything.
        x = self._input_layer.output_tensor
        for layer in self._stack:
            x = layer(x)
        self._graph_outputs = x
        self.built = True

    def build(self, input_shape=None):
        if input_shape is None:
            if self._input_layer is None:
                raise ValueError("Sequential.build: give input_shape (the model has no Input)")
        elif self._input_layer is None:
            # The batch dim stays unknown, so any batch size fits the model.
            self._input_layer = InputLayer(batch_shape=(None,) + tuple(input_shape)[1:])
        self._maybe_build_graph()
        self.built = True

    def call(self, inputs, training=None, mask=None):
        x = inputs
        for layer in self._stack:
            # Keras' masking: each layer gets the mask the previous one computed.
            y = layer(x, mask=mask) if mask is not None and layer._takes_mask() else layer(x)
            mask = layer.compute_mask(x, mask)
            x = y
        return x

    def compute_mask(self, inputs, previous_mask=None):
        mask = previous_mask
        x = inputs
        for layer in self._stack:
            y = layer(x, mask=mask) if mask is not None and layer._takes_mask() else layer(x)
            mask = layer.compute_mask(x, mask)
            x = y
        return mask

    @property
    def inputs(self):
        return [self._input_layer.output_tensor] if self._input_layer is not None else None

    @property
    def outputs(self):
        return [self._graph_outputs] if self._graph_outputs is not None else None

    @property
    def input_shape(self):
        return self._input_layer.batch_shape if self._input_layer is not None else None

    @property
    def output_shape(self):
        return self._graph_outputs.shape if self._graph_outputs is not None else None

    def get_config(self):
        from ember.keras.saving import serialize_layer
        layers = [serialize_layer(layer) for layer in self._stack]
        if self._input_layer is not None:
            layers.insert(0, serialize_layer(self._input_layer))
        return {"name": self.name, "trainable": self.trainable, "dtype": self.dtype, "layers": layers}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        from ember.keras.saving import deserialize_layer
        model = cls(name=config.get("name"), trainable=config.get("trainable", True))
        for layer_config in config["layers"]:
            model.add(deserialize_layer(layer_config, custom_objects), rebuild=False)
        model._maybe_build_graph()
        return model
