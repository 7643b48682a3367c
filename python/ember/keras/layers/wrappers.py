"""Layer wrappers: TimeDistributed (a layer per time step) and Bidirectional (an RNN both ways)."""

import ember
from ember.keras.engine.layer import Layer, ShapeOnly


class TimeDistributed(Layer):
    """Applies ``layer`` to every slice along axis 1 (the same weights for each step)."""

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape):
        self.layer._maybe_build(ShapeOnly((None,) + tuple(input_shape)[2:]))
        self.built = True

    def call(self, inputs, training=False):
        t = inputs.shape[1]
        # Fold time into the batch: [b, t, ...] -> [b * t, ...] -> layer -> back.
        folded = ember.reshape(inputs, [-1] + list(inputs.shape)[2:])
        out = self.layer(folded, training=training)
        return ember.reshape(out, [-1, t] + list(out.shape)[1:])

    def get_config(self):
        from ember.keras.saving import serialize_layer
        return {**super().get_config(), "layer": serialize_layer(self.layer)}

    @classmethod
    def from_config(cls, config):
        from ember.keras.saving import deserialize_layer
        config = dict(config)
        config["layer"] = deserialize_layer(config["layer"])
        return super().from_config(config)


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy of it backwards, then merges
    the outputs ("concat", "sum", "mul", "ave" or None for a list)."""

    def __init__(self, layer, merge_mode="concat", backward_layer=None, **kwargs):
        super().__init__(**kwargs)
        if merge_mode not in ("concat", "sum", "mul", "ave", None):
            raise ValueError(f"Bidirectional: unknown merge_mode {merge_mode!r}")
        self.merge_mode = merge_mode
        self.forward_layer = layer
        if backward_layer is None:
            config = layer.get_config()
            config["name"] = "backward_" + layer.name
            config["go_backwards"] = not config.get("go_backwards", False)
            backward_layer = type(layer).from_config(config)
        self.backward_layer = backward_layer
        self.return_sequences = getattr(layer, "return_sequences", False)
        self.stateful = getattr(layer, "stateful", False)
        if getattr(layer, "return_state", False):
            raise NotImplementedError("Bidirectional: return_state is not supported")

    def call(self, inputs, mask=None, training=False):
        extra = {} if mask is None else {"mask": mask}
        forward = self.forward_layer(inputs, training=training, **extra)
        backward = self.backward_layer(inputs, training=training, **extra)
        if self.return_sequences:  # the backward pass's outputs come in reverse time order
            backward = ember.reverse(backward, [1])
        if self.merge_mode == "concat":
            return ember.concat([forward, backward], axis=-1)
        if self.merge_mode == "sum":
            return forward + backward
        if self.merge_mode == "mul":
            return forward * backward
        if self.merge_mode == "ave":
            return (forward + backward) * 0.5
        return [forward, backward]

    def compute_mask(self, inputs, previous_mask=None):
        return previous_mask if self.return_sequences else None

    def reset_state(self):
        """Resets both directions' states (stateful RNNs only)."""
        if not self.stateful:
            raise AttributeError(f"Bidirectional {self.name}: reset_state needs a stateful layer")
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    reset_states = reset_state

    @property
    def states(self):
        forward, backward = self.forward_layer.states, self.backward_layer.states
        return tuple(forward + backward) if forward and backward else None

    def get_config(self):
        from ember.keras.saving import serialize_layer
        return {**super().get_config(), "layer": serialize_layer(self.forward_layer), "merge_mode": self.merge_mode,
                "backward_layer": serialize_layer(self.backward_layer)}

    @classmethod
    def from_config(cls, config):
        from ember.keras.saving import deserialize_layer
        config = dict(config)
        config["layer"] = deserialize_layer(config["layer"])
        config["backward_layer"] = deserialize_layer(config["backward_layer"])
        return super().from_config(config)

