"""Unique default names for layers and models (``dense``, ``dense_1``, ...), reset by clear_session."""

import collections
import re
import threading

_state = threading.local()


def _counts():
    if not hasattr(_state, "counts"):
        _state.counts = collections.Counter()
    return _state.counts


def to_snake_case(name):
    # Keras' rule: a digit does not end a word, so Conv2D is "conv2d" (layer names and weight paths).
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()


def unique_name(base):
    """``base`` the first time, then ``base_1``, ``base_2``, ... (Keras' rule)."""
    counts = _counts()
    n = counts[base]
    counts[base] += 1
    return base if n == 0 else f"{base}_{n}"


def reset():
    _counts().clear()
