"""keras.regularizers: L1, L2 and L1L2 weight penalties added to the model's loss."""

import ember


class Regularizer:
    def __call__(self, x):
        return ember.constant(0.0)

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class L1L2(Regularizer):
    def __init__(self, l1=0.0, l2=0.0):
        self.l1, self.l2 = float(l1), float(l2)

    def __call__(self, x):
        out = ember.constant(0.0)
        if self.l1:
            out = out + self.l1 * ember.reduce_sum(ember.abs(x))
        if self.l2:
            out = out + self.l2 * ember.reduce_sum(ember.square(x))
        return out

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    def __init__(self, l1=0.01):
        super().__init__(l1=l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(L1L2):
    def __init__(self, l2=0.01):
        super().__init__(l2=l2)

    def get_config(self):
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2


def get(identifier):
    if identifier is None or isinstance(identifier, Regularizer) or callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in ("l1", "l2", "l1_l2", "l1l2"):
        return {"l1": L1, "l2": L2}.get(identifier.lower(), L1L2)()
    if isinstance(identifier, dict):
        cls = {"L1": L1, "L2": L2, "L1L2": L1L2}[identifier["class_name"]]
        return cls.from_config(identifier.get("config", {}))
    raise ValueError(f"regularizers.get: cannot interpret {identifier!r}")


def serialize(reg):
    return None if reg is None else {"class_name": type(reg).__name__, "config": reg.get_config()}
