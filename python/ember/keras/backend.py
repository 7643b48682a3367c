"""keras.backend: clear_session and the float/epsilon/image-format settings."""

_settings = {"floatx": "float32", "epsilon": 1e-7, "image_data_format": "channels_last"}


def clear_session(free_memory=True):
    """Resets the default layer names (dense, dense_1, ... start again)."""
    from ember.keras.engine import naming
    naming.reset()


def floatx():
    return _settings["floatx"]


def set_floatx(value):
    if value not in ("float16", "bfloat16", "float32", "float64"):
        raise ValueError(f"set_floatx: unknown float type {value!r}")
    _settings["floatx"] = value


def epsilon():
    return _settings["epsilon"]


def set_epsilon(value):
    _settings["epsilon"] = float(value)


def image_data_format():
    return _settings["image_data_format"]


def set_image_data_format(value):
    if value not in ("channels_last", "channels_first"):
        raise ValueError(f"set_image_data_format: expected channels_last or channels_first, got {value!r}")
    _settings["image_data_format"] = value


def backend():
    return "ember"
