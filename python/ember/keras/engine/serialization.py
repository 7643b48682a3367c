"""Keras-style {"class_name", "config"} dicts for initializers and regularizers inside layer configs."""


def serialize(obj):
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    if hasattr(obj, "get_config"):
        return {"module": type(obj).__module__.replace("ember.", ""), "class_name": type(obj).__name__,
                "config": obj.get_config(), "registered_name": None}
    raise ValueError(f"cannot serialize {obj!r}: it has no get_config")
