"""Recurrent layers: SimpleRNN, LSTM and GRU, unrolled over the (known) time dim with ember ops;
stateful RNNs, dropout and recurrent dropout."""

import ember
from ember._variables import Variable
from ember.keras import activations, initializers
from ember.keras.engine.layer import Layer
from ember.keras.engine.serialization import serialize as _serialize


class Orthogonal(initializers.Initializer):
    """Keras' Orthogonal initializer (the RNNs' recurrent default): the Q of a QR
    decomposition of a normal matrix, its columns' signs fixed by R's diagonal,
    times ``gain``. Ember's initializers lack it, so it lives here."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = float(gain), seed
        self._normal = initializers.RandomNormal(seed=seed)

    def __call__(self, shape, dtype=None):
        rows = 1
        for d in shape[:-1]:
            rows *= int(d)
        cols = int(shape[-1])
        a = self._normal((max(rows, cols), min(rows, cols)), dtype=dtype)
        q, r = ember.linalg.qr(a)
        q = q * ember.sign(ember.linalg.diag_part(r))
        if rows < cols:
            q = ember.transpose(q)
        return ember.reshape(q * self.gain, list(shape))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


def _initializer(identifier):
    if identifier in ("orthogonal", "Orthogonal") or (
            isinstance(identifier, dict) and identifier.get("class_name") == "Orthogonal"):
        return Orthogonal(**(identifier.get("config", {}) if isinstance(identifier, dict) else {}))
    return initializers.get(identifier)


def serialize(obj):
    if isinstance(obj, Orthogonal):
        return {"module": "keras.initializers", "class_name": "Orthogonal", "config": obj.get_config(),
                "registered_name": None}
    return _serialize(obj)


def _masked(h, rec_mask):
    return h if rec_mask is None else h * rec_mask


class _RNN(Layer):
    gates = 1
    _weights_group = "cell/vars"  # Keras keeps an RNN's weights on its cell (Note [Keras weight paths])

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 return_sequences=False, return_state=False, go_backwards=False, stateful=False, unroll=False,
                 dropout=0.0, recurrent_dropout=0.0, seed=None, **kwargs):
        for unused in ("kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
                       "kernel_constraint", "recurrent_constraint", "bias_constraint", "use_cudnn",
                       "implementation"):
            kwargs.pop(unused, None)
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = _initializer(kernel_initializer)
        self.recurrent_initializer = _initializer(recurrent_initializer)
        self.bias_initializer = _initializer(bias_initializer)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.seed, self.stateful = seed, bool(stateful)
        self._state_variables = None  # stateful: Note [Stateful RNN]

    def build(self, input_shape):
        n = self.gates * self.units
        self.kernel = self.add_weight(shape=(input_shape[-1], n), initializer=self.kernel_initializer,
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, n), initializer=self.recurrent_initializer,
                                                name="recurrent_kernel")
        self.bias = self.add_weight(shape=self._bias_shape(), initializer=self._bias_init(), name="bias") \
            if self.use_bias else None
        if self.stateful:
            if input_shape[0] is None:
                raise ValueError(f"{type(self).__name__} {self.name}: a stateful RNN needs a fixed batch size: give "
                                 "keras.Input(shape, batch_size=n), or batch_size=n to the first layer")
            self._batch_size = int(input_shape[0])
            self._state_variables = [Variable(ember.zeros([self._batch_size, self.units], self._dtype_name),
                                              trainable=False, name=f"state_{i}") for i in range(self.state_count)]
        self.built = True

    # Note [Stateful RNN]: with stateful=True the last states of a call are
    # the next call's initial states, example i of a batch continuing example
    # i of the previous one, so the batch size is fixed at build. They live
    # in non-trainable variables that the call reads and assigns (so a traced
    # train step carries them too) but that are not among the layer's
    # weights: they are neither saved nor counted, and reset_state() zeroes them.
    def reset_state(self, states=None):
        """Zeroes a stateful RNN's states, or sets them to ``states`` (one array per state)."""
        if not self.stateful:
            raise AttributeError(f"{type(self).__name__} {self.name}: reset_state needs stateful=True")
        if self._state_variables is None:
            return
        values = states if states is not None else [None] * self.state_count
        if not isinstance(values, (list, tuple)):
            values = [values]
        for v, value in zip(self._state_variables, values):
            v.assign(ember.zeros(v.shape, v.dtype) if value is None else value)

    reset_states = reset_state  # Keras 2's name

    @property
    def states(self):
        return None if self._state_variables is None else list(self._state_variables)

    def _dropout_mask(self, like, rate):
        """1/(1-rate) or 0 per element of ``like``'s shape, drawn once per call (Keras' cells reuse the
        mask at every step)."""
        return ember.nn.dropout(ember.ones_like(like), rate)

    def _bias_shape(self):
        return (self.gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    def _initial_state(self, batch_ref):
        zeros = ember.zeros_like(ember.matmul(batch_ref[:, :1], ember.zeros([1, self.units], batch_ref.dtype)))
        return [zeros] * self.state_count

    state_count = 1

    def call(self, inputs, mask=None, initial_state=None, training=False):
        if inputs.shape[1] is None:  # the loop is unrolled in Python, one step per time index
            raise ValueError(f"{type(self).__name__} {self.name}: the number of time steps must be known, got input "
                             f"shape {inputs.shape}; give Input a fixed length (pad, and mask with mask_zero)")
        steps = ember.unstack(inputs, axis=1)
        if self.go_backwards:
            steps = steps[::-1]
        if initial_state is not None:
            states = list(initial_state)
        elif self.stateful:
            if inputs.shape[0] != self._batch_size:
                raise ValueError(f"{type(self).__name__} {self.name}: stateful with batch size {self._batch_size}, "
                                 f"called on a batch of {inputs.shape[0]}")
            states = [v.read_value() for v in self._state_variables]
        else:
            states = self._initial_state(steps[0])
        rec_mask = None
        if training and 0 < self.dropout < 1:  # one input mask for every time step
            inputs = inputs * ember.expand_dims(self._dropout_mask(steps[0], self.dropout), 1)
        if training and 0 < self.recurrent_dropout < 1:
            rec_mask = self._dropout_mask(states[0], self.recurrent_dropout)
        outputs = []
        # The input projection of every step at once: one matmul instead of one per step.
        projected = ember.unstack(ember.tensordot(inputs, self.kernel, axes=[[2], [0]]), axis=1)
        keep = None
        if mask is not None:  # [batch, steps]: a masked step leaves the state as it was
            keep = ember.unstack(ember.expand_dims(ember.cast(mask, inputs.dtype), -1), axis=1)
        if self.go_backwards:
            projected = projected[::-1]
            keep = keep[::-1] if keep is not None else None
        last = None
        for t, xw in enumerate(projected):
            out, new_states = self._step(xw, states, rec_mask)
            if keep is not None:
                k = keep[t]
                new_states = [k * n + (1.0 - k) * o for n, o in zip(new_states, states)]
                last = out * k + (0.0 if last is None else last * (1.0 - k))
                out = out * k  # masked steps output zeros in the sequence
            else:
                last = out
            states = new_states
            outputs.append(out)
        if self.stateful:
            for v, state in zip(self._state_variables, states):
                v.assign(state)
        result = ember.stack(outputs, axis=1) if self.return_sequences else last
        return [result] + states if self.return_state else result

    def compute_mask(self, inputs, previous_mask=None):
        if previous_mask is None or not self.return_sequences:
            return None
        return ember.reverse(previous_mask, [1]) if self.go_backwards else previous_mask

    def get_config(self):
        return {**super().get_config(), "units": self.units, "activation": activations.serialize(self.activation),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "use_bias": self.use_bias, "kernel_initializer": serialize(self.kernel_initializer),
                "recurrent_initializer": serialize(self.recurrent_initializer),
                "bias_initializer": serialize(self.bias_initializer),
                "return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": self.stateful, "dropout": self.dropout,
                "recurrent_dropout": self.recurrent_dropout, "seed": self.seed}


class SimpleRNN(_RNN):
    """h_t = activation(x_t W + h_{t-1} U + b)."""

    def __init__(self, units, activation="tanh", use_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)

    def _step(self, xw, states, rec_mask):
        z = xw + ember.matmul(_masked(states[0], rec_mask), self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        h = self.activation(z)
        return h, [h]

    def get_config(self):
        config = super().get_config()
        config.pop("recurrent_activation")
        return config


class LSTM(_RNN):
    """Keras' LSTM: gates i, f, c, o in that order along the kernel's last dim;
    unit_forget_bias starts the forget gate's bias at 1. States are [h, c]."""
    gates, state_count = 4, 2

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 unit_forget_bias=True, **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, **kwargs)
        self.unit_forget_bias = unit_forget_bias

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        base, u = self.bias_initializer, self.units

        def init(shape, dtype=None):
            ones = ember.ones([u], dtype=dtype or "float32")
            return ember.concat([base([u], dtype), ones, base([2 * u], dtype)], axis=0)
        return init

    def _step(self, xw, states, rec_mask):
        h, c = states
        z = xw + ember.matmul(_masked(h, rec_mask), self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        i, f, g, o = ember.split(z, 4, axis=-1)
        i, f, o = self.recurrent_activation(i), self.recurrent_activation(f), self.recurrent_activation(o)
        c = f * c + i * self.activation(g)
        h = o * self.activation(c)
        return h, [h, c]

    def get_config(self):
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}


class GRU(_RNN):
    """Keras 3's GRU (reset_after=True by default): gates z, r, h; bias of shape
    (2, 3 * units), the input bias and the recurrent bias."""
    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True, reset_after=True,
                 **kwargs):
        super().__init__(units, activation=activation, recurrent_activation=recurrent_activation,
                         use_bias=use_bias, **kwargs)
        self.reset_after = reset_after

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _step(self, xw, states, rec_mask):
        (h,) = states
        hr = _masked(h, rec_mask)  # recurrent dropout acts where h enters the recurrent matmuls
        u = self.units
        if self.bias is not None:
            xw = xw + (self.bias[0] if self.reset_after else self.bias)
        x_z, x_r, x_h = ember.split(xw, 3, axis=-1)
        if self.reset_after:
            hu = ember.matmul(hr, self.recurrent_kernel)
            if self.bias is not None:
                hu = hu + self.bias[1]
            h_z, h_r, h_h = ember.split(hu, 3, axis=-1)
            z = self.recurrent_activation(x_z + h_z)
            r = self.recurrent_activation(x_r + h_r)
            hh = self.activation(x_h + r * h_h)
        else:
            h_z, h_r = ember.split(ember.matmul(hr, self.recurrent_kernel[:, :2 * u]), 2, axis=-1)
            z = self.recurrent_activation(x_z + h_z)
            r = self.recurrent_activation(x_r + h_r)
            hh = self.activation(x_h + ember.matmul(r * hr, self.recurrent_kernel[:, 2 * u:]))
        h = z * h + (1.0 - z) * hh
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}
