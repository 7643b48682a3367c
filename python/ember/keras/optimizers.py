"""keras.optimizers: Ember's optimizers (SGD, Adam, AdamW) plus RMSprop, and get/serialize/deserialize."""

from ember.optimizers import SGD, Adam, AdamW, Optimizer, schedules
from ember.optimizers import get as _ember_get


class RMSprop(Optimizer):
    """Keras' RMSprop: v = rho * v + (1 - rho) * g^2; var -= lr * g / (sqrt(v) + epsilon)
    (with momentum: m = momentum * m + that step; var -= m). Written with ops, not a fused kernel."""

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, name="RMSprop"):
        super().__init__(learning_rate, weight_decay, clipnorm, clipvalue, global_clipnorm, name)
        self.rho, self.momentum, self.epsilon, self.centered = float(rho), float(momentum), float(epsilon), centered

    def _create_slots(self, variable):
        self.add_slot(variable, "velocity")
        if self.momentum:
            self.add_slot(variable, "momentum")
        if self.centered:
            self.add_slot(variable, "average_gradient")

    def _update(self, v, g, s):
        import ember
        lr = s["lr"]
        self._decayed(v, lr)
        vel = self.get_slot(v, "velocity")
        new_vel = vel.read_value() * self.rho + ember.square(g) * (1.0 - self.rho)
        vel.assign(new_vel)
        denom = new_vel
        if self.centered:
            avg = self.get_slot(v, "average_gradient")
            new_avg = avg.read_value() * self.rho + g * (1.0 - self.rho)
            avg.assign(new_avg)
            denom = new_vel - ember.square(new_avg)
        step = lr * g / (ember.sqrt(denom) + self.epsilon)
        if self.momentum:
            m = self.get_slot(v, "momentum")
            new_m = m.read_value() * self.momentum + step
            m.assign(new_m)
            step = new_m
        v.assign(v.read_value() - step)

    def get_config(self):
        return {**super().get_config(), "rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                "centered": self.centered}


_BY_NAME = {"sgd": SGD, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(identifier, **kwargs):
    """An optimizer from a name ("adam", "sgd", "rmsprop", "adamw"), a config dict or an instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()](**kwargs)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    return _ember_get(identifier, **kwargs)


def serialize(optimizer):
    config = optimizer.get_config()
    lr = optimizer._learning_rate
    if isinstance(lr, schedules.LearningRateSchedule):
        config["learning_rate"] = {"class_name": type(lr).__name__, "config": lr.get_config()}
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__, "config": config,
            "registered_name": None}


# Keras 3's optimizer configs also hold these options; at these values (their defaults) they
# change nothing, so a config Keras wrote loads; other values are refused by name.
_KERAS_ONLY_DEFAULTS = {"use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                        "loss_scale_factor": None, "gradient_accumulation_steps": None}


def deserialize(config):
    cls = {c.__name__: c for c in _BY_NAME.values()}.get(config["class_name"])
    if cls is None:
        raise ValueError(f"optimizers.deserialize: unknown optimizer {config['class_name']!r}")
    inner = dict(config.get("config", {}))
    if isinstance(inner.get("learning_rate"), dict):  # a schedule's config
        lr = inner["learning_rate"]
        if "class_name" not in lr:
            raise ValueError("optimizers.deserialize: a learning-rate schedule needs its class_name")
        inner["learning_rate"] = getattr(schedules, lr["class_name"])(**lr["config"])
    import inspect
    accepted = inspect.signature(cls).parameters
    for key in [k for k in inner if k not in accepted]:
        value = inner.pop(key)
        if key not in _KERAS_ONLY_DEFAULTS or value != _KERAS_ONLY_DEFAULTS[key]:
            raise ValueError(f"optimizers.deserialize: {config['class_name']}({key}={value!r}) is not supported")
    return cls(**inner)


__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "schedules", "get", "serialize", "deserialize"]
