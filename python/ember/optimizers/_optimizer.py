"""The Optimizer base class and SGD, Adam and AdamW (Keras 3's update rules)."""

import sys

import numpy as np

from ember import nest
from ember.autodiff._tape import GradientTape
from ember._creation import constant
from ember.device import device
from ember.function import init_scope
from ember._generated import ops
from ember._movement import zeros_like
from ember.optimizers.schedules import LearningRateSchedule
from ember._tensor import Tensor
from ember._variables import Variable


def _sum_gradients_across_replicas(optimizer, grads):
    # No strategy can be running before ember.distribute is imported (Note
    # [Lazy submodules] in ember/__init__.py), so the optimizers leave its
    # import to the programs that use it.
    if "ember.distribute" not in sys.modules:
        return grads
    from ember.distribute._optimizer_support import sum_gradients_across_replicas
    return sum_gradients_across_replicas(optimizer, grads)


class Optimizer:
    """Keras' optimizer API over ember Variables.

    ``learning_rate`` is a float, a ``LearningRateSchedule`` or any callable
    of the step. ``weight_decay`` (decoupled, applied as
    var -= var * weight_decay * lr), ``clipnorm``, ``clipvalue`` and
    ``global_clipnorm`` follow Keras.
    """

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 name=None):
        if sum(x is not None for x in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(f"{type(self).__name__}: set at most one of clipnorm, clipvalue and global_clipnorm")
        if not callable(learning_rate):
            learning_rate = float(learning_rate)
            if learning_rate < 0:
                raise ValueError(f"{type(self).__name__}: learning_rate must be >= 0, got {learning_rate}")
        self._learning_rate = learning_rate
        # A float learning rate also lives in a variable that the step reads, so
        # a traced step sees later changes (Note [Learning rate variable]).
        self._lr_variable = None if callable(learning_rate) else Variable(
            np.array(learning_rate, np.float64), trainable=False, name=f"{name or type(self).__name__}/learning_rate")
        self.weight_decay = weight_decay
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.name = name or type(self).__name__
        self.iterations = Variable(np.array(0, np.int64), trainable=False, name=f"{self.name}/iterations")
        self._slots = {}  # id(variable) -> {slot name: Variable}
        self._slot_owners = {}  # id(variable) -> variable (keeps the id valid)

    # --- Hyperparameters ---------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (evaluated at ``iterations`` for a schedule)."""
        lr = self._learning_rate
        return lr(self.iterations.read_value()) if callable(lr) else lr

    @learning_rate.setter
    def learning_rate(self, value):
        self._learning_rate = value if callable(value) else float(value)
        if not callable(value):
            if self._lr_variable is None:
                with init_scope():
                    self._lr_variable = Variable(np.array(value, np.float64), trainable=False,
                                                         name=f"{self.name}/learning_rate")
            else:
                self._lr_variable.assign(np.array(value, np.float64))

    def _scalar(self, value, dtype):
        if isinstance(value, Tensor):  # a schedule's value
            return ops.cast(value, dtype) if value.dtype != dtype else value
        return constant(np.asarray(value, dtype=dtype.as_numpy_dtype))

    def _lr(self, dtype):
        # Note [Learning rate variable]: a float read here at trace time would be
        # frozen into the graph of a step traced by @ember.function, so a later
        # `optimizer.learning_rate = x` (ReduceLROnPlateau) would change nothing.
        # The variable is read at every call of the traced step instead.
        if not callable(self._learning_rate) and self._lr_variable is not None:
            return ops.cast(self._lr_variable.read_value(), dtype)
        return self._scalar(self.learning_rate, dtype)

    def _step(self, dtype):
        """The 1-based step number of the update being made, as a scalar of dtype."""
        return ops.cast(self.iterations.read_value() + 1, dtype)

    # --- Slots ---------------------------------------------------------------
    def add_slot(self, variable, name, initial=0.0):
        slots = self._slots.setdefault(id(variable), {})
        if name not in slots:
            # Slots made on first use inside a traced step are made eagerly.
            with init_scope(), device(variable.device):
                value = zeros_like(variable.read_value()) if initial == 0.0 else (
                    zeros_like(variable.read_value()) + initial)
                # A mirrored variable's slots are mirrored on the same devices.
                make_slot = getattr(variable, "_ember_make_slot_", None)
                slot_name = f"{variable.name}/{name}"
                slots[name] = (make_slot(value, slot_name) if make_slot is not None
                               else Variable(value, trainable=False, name=slot_name))
            self._slot_owners[id(variable)] = variable
        return slots[name]

    def get_slot(self, variable, name):
        return self._slots[id(variable)][name]

    def build(self, var_list):
        """Creates every slot now (Keras' optimizer.build); apply_gradients does it on first use."""
        for v in var_list:
            self._create_slots(v)

    def _create_slots(self, variable):
        pass

    @property
    def variables(self):
        out = [self.iterations]
        for slots in self._slots.values():
            out.extend(slots.values())
        return out

    # --- Applying ----------------------------------------------------------
    def _clip(self, grads):
        if self.clipvalue is not None:
            return [None if g is None else ops.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        if self.clipnorm is not None:
            out = []
            for g in grads:
                if g is None:
                    out.append(None)
                    continue
                norm = ops.sqrt(ops.reduce_sum(ops.square(g)))
                out.append(g * (self.clipnorm / ops.maximum(norm, self.clipnorm)))
            return out
        if self.global_clipnorm is not None:
            present = [g for g in grads if g is not None]
            if not present:
                return grads
            total = ops.sqrt(ops.add_n([ops.cast(ops.reduce_sum(ops.square(g)), "float32") for g in present]))
            scale = self.global_clipnorm / ops.maximum(total, self.global_clipnorm)
            return [None if g is None else g * ops.cast(scale, g.dtype) for g in grads]
        return grads

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False):
        """Applies one update per (gradient, variable) pair; a None gradient skips its variable.
        Returns ``iterations`` after the step. Inside ``strategy.run`` the gradients are first
        summed across the replicas, unless ``skip_gradients_aggregation``."""
        del name
        pairs = list(grads_and_vars)
        for _, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"{type(self).__name__}.apply_gradients: expected Variables, got {type(v).__name__}")
            if not v.dtype.is_floating:
                raise TypeError(f"{type(self).__name__}.apply_gradients: variable {v.name} has dtype "
                                f"{v.dtype.name}; only floating variables can be trained")
        grads = [g for g, _ in pairs]
        if not skip_gradients_aggregation:
            grads = _sum_gradients_across_replicas(self, grads)
        grads = self._clip(grads)
        cache = {}  # per dtype: the step's scalars
        for g, v in zip(grads, (v for _, v in pairs)):
            if g is None:
                continue
            if g.shape != v.shape:
                raise ValueError(f"{type(self).__name__}.apply_gradients: gradient of shape {g.shape} for "
                                 f"variable {v.name} of shape {v.shape}")
            if g.dtype != v.dtype:
                g = ops.cast(g, v.dtype)
            self._create_slots(v)
            if v.dtype.name not in cache:
                cache[v.dtype.name] = self._step_scalars(v.dtype)
            self._update(v, g, cache[v.dtype.name])
        self.iterations.assign_add(np.int64(1))
        return self.iterations

    def apply(self, grads, trainable_variables=None):
        """Keras 3's spelling: ``apply(grads, variables)`` is ``apply_gradients(zip(grads, variables))``."""
        if trainable_variables is None:
            raise ValueError(f"{type(self).__name__}.apply: give the trainable_variables the gradients are for")
        return self.apply_gradients(zip(grads, trainable_variables))

    def minimize(self, loss, var_list, tape=None):
        """Computes the gradients of ``loss`` (a callable when no tape is given) and applies them."""
        var_list = nest.flatten(var_list() if callable(var_list) and not isinstance(var_list, list) else var_list)
        if tape is None:
            if not callable(loss):
                raise ValueError(f"{type(self).__name__}.minimize: `tape` is required when `loss` is a Tensor")
            with GradientTape() as tape:
                loss = loss()
        grads = tape.gradient(loss, var_list)
        return self.apply_gradients(zip(grads, var_list))

    def _decayed(self, v, lr):
        """Keras' decoupled weight decay before the update: var -= var * wd * lr."""
        if not self.weight_decay:
            return
        v.assign(v.read_value() * (1.0 - lr * self.weight_decay))

    def _step_scalars(self, dtype):
        return {"lr": self._lr(dtype)}

    def _update(self, v, g, scalars):
        raise NotImplementedError

    def get_config(self):
        lr = self._learning_rate
        return {"name": self.name, "learning_rate": lr.get_config() if isinstance(lr, LearningRateSchedule) else lr,
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm, "clipvalue": self.clipvalue,
                "global_clipnorm": self.global_clipnorm}


class SGD(Optimizer):
    """Gradient descent with optional momentum (Keras 3's form):
    m = momentum * m - lr * g; var += m, or var += momentum * m - lr * g with ``nesterov``."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None, clipnorm=None,
                 clipvalue=None, global_clipnorm=None, name="SGD"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"SGD: momentum must be in [0, 1], got {momentum}")
        self.momentum, self.nesterov = float(momentum), bool(nesterov)

    def _create_slots(self, variable):
        if self.momentum:
            self.add_slot(variable, "momentum")

    def _step_scalars(self, dtype):
        scalars = super()._step_scalars(dtype)
        scalars["momentum"] = self._scalar(self.momentum, dtype)
        return scalars

    def _update(self, v, g, s):
        raw = ops
        lr = s["lr"]
        if self.weight_decay:
            self._decayed(v, lr)
        if not self.momentum:
            v.assign(raw.apply_gradient_descent(v.read_value(), g, lr))
            return
        m = self.get_slot(v, "momentum")
        new_v, new_m = raw.apply_momentum(v.read_value(), m.read_value(), g, lr, s["momentum"],
                                          use_nesterov=self.nesterov)
        v.assign(new_v)
        m.assign(new_m)

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum, "nesterov": self.nesterov}


class Adam(Optimizer):
    """Adam (Keras 3's form, epsilon added to sqrt(v))."""

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, name="Adam"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.beta_1, self.beta_2, self.epsilon = float(beta_1), float(beta_2), float(epsilon)
        self.amsgrad = bool(amsgrad)

    def _create_slots(self, variable):
        self.add_slot(variable, "m")
        self.add_slot(variable, "v")
        if self.amsgrad:
            self.add_slot(variable, "vhat")

    def _step_scalars(self, dtype):
        scalars = super()._step_scalars(dtype)
        step = self._step(dtype)
        for name in ("beta_1", "beta_2", "epsilon"):
            scalars[name] = self._scalar(getattr(self, name), dtype)
        scalars["beta_1_power"] = ops.pow(scalars["beta_1"], step)
        scalars["beta_2_power"] = ops.pow(scalars["beta_2"], step)
        # Decoupled weight decay (Keras: Adam's weight_decay is AdamW's) is
        # part of the fused update.
        scalars["weight_decay"] = self._scalar(float(self.weight_decay or 0.0), dtype)
        return scalars

    def _update(self, v, g, s):
        m, vv = self.get_slot(v, "m"), self.get_slot(v, "v")
        if self.amsgrad:
            return self._update_amsgrad(v, g, s, m, vv)
        new_var, new_m, new_v = ops.apply_adam(
            v.read_value(), m.read_value(), vv.read_value(), g, s["lr"], s["beta_1"], s["beta_2"], s["epsilon"],
            s["beta_1_power"], s["beta_2_power"], s["weight_decay"])
        v.assign(new_var)
        m.assign(new_m)
        vv.assign(new_v)

    def _update_amsgrad(self, v, g, s, m, vv):
        # The running maximum of v needs a slot the fused kernel lacks: ops.
        vhat = self.get_slot(v, "vhat")
        new_m = m.read_value() + (g - m.read_value()) * (1.0 - self.beta_1)
        new_v = vv.read_value() + (ops.square(g) - vv.read_value()) * (1.0 - self.beta_2)
        new_vhat = ops.maximum(vhat.read_value(), new_v)
        lr_t = s["lr"] * ops.sqrt(1.0 - s["beta_2_power"]) / (1.0 - s["beta_1_power"])
        decay = 1.0 - s["lr"] * s["weight_decay"]
        v.assign(v.read_value() * decay - lr_t * new_m / (ops.sqrt(new_vhat) + s["epsilon"]))
        m.assign(new_m)
        vv.assign(new_v)
        vhat.assign(new_vhat)

    def get_config(self):
        return {**super().get_config(), "beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay: var -= var * weight_decay * lr before each Adam step."""

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, clipnorm=None, clipvalue=None, global_clipnorm=None, name="AdamW"):
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay must be set")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, weight_decay, clipnorm, clipvalue,
                         global_clipnorm, name)
