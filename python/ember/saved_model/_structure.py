# The argument and result structures of saved functions as JSON, and matching a call against them.

import numpy as np

from ember import _C
from ember._tensor import Tensor
from ember.dtypes import as_dtype
from ember.function import TensorSpec, shape_fits

# Note [Saved structures]: a saved function's arguments and results are
# nested lists, tuples and dicts whose leaves are tensors or Python
# constants. Each node is a JSON object with a "kind": "tensor" (a leaf
# that the graph takes or returns), "constant" (a bool, int, float, str or
# None, with its type name: a trace for training=True is not one for 1),
# "list", "tuple" (named tuples too) or "dict" (string keys; items in
# insertion order). Tensor leaves are numbered as ember.function numbers
# them: lists in order, dict keys sorted by repr, keyword arguments by
# name. A call matches a structure if its constants are equal, its
# sequences and dicts have the same length and keys, and each tensor leaf
# fits the saved TensorSpec (same dtype, compatible shape; Python numbers
# and lists are converted to the spec's dtype).

_CONSTANT_TYPES = (bool, int, float, str, type(None))


class UnsavableValue(ValueError):
    """A value a saved model cannot hold (raised with where it was found)."""


def encode(value, where):
    """The JSON form of a structure whose tensor leaves are tensors, NumPy values or TensorSpecs."""
    if isinstance(value, (Tensor, np.ndarray, np.generic, TensorSpec)):
        return {"kind": "tensor"}
    if type(value) in _CONSTANT_TYPES:
        return {"kind": "constant", "type": type(value).__name__, "value": value}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_arg_key"):
        return {"kind": "list" if isinstance(value, list) else "tuple",
                "items": [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise UnsavableValue(f"{where} is a dict with the key {key!r}; saved structures need str keys")
        return {"kind": "dict", "items": [[k, encode(v, f"{where}[{k!r}]")] for k, v in value.items()]}
    raise UnsavableValue(f"{where} is a {type(value).__name__}; saved functions take and return only tensors, "
                         "Python constants (bool, int, float, str, None) and lists, tuples and dicts of them")


def count_tensors(encoded):
    """How many tensor leaves an encoded structure has."""
    kind = encoded["kind"]
    if kind == "tensor":
        return 1
    if kind in ("list", "tuple"):
        return sum(count_tensors(v) for v in encoded["items"])
    if kind == "dict":
        return sum(count_tensors(v) for _, v in encoded["items"])
    return 0


def _dict_leaf_order(items):
    """The items of an encoded dict in the order their tensor leaves are numbered."""
    return sorted(items, key=lambda item: repr(item[0]))


def decode(encoded, leaves):
    """The structure with its tensor leaves taken from the iterator `leaves`."""
    kind = encoded["kind"]
    if kind == "tensor":
        return next(leaves)
    if kind == "constant":
        return encoded["value"]
    if kind in ("list", "tuple"):
        items = [decode(v, leaves) for v in encoded["items"]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        values = {k: decode(v, leaves) for k, v in _dict_leaf_order(encoded["items"])}
        return {k: values[k] for k, _ in encoded["items"]}
    raise ValueError(f"unknown structure kind {kind!r}")


def match(encoded, value, specs, params):
    """True if `value` fits the encoded structure; appends its tensor leaves, converted to the
    dtypes of the TensorSpecs taken from the iterator `specs`, to `params`."""
    kind = encoded["kind"]
    if kind == "tensor":
        tensor = _as_leaf(value, next(specs))
        if tensor is None:
            return False
        params.append(tensor)
        return True
    if kind == "constant":
        return type(value).__name__ == encoded["type"] and value == encoded["value"]
    if kind in ("list", "tuple"):
        return (isinstance(value, (list, tuple)) and len(value) == len(encoded["items"])
                and all(match(e, v, specs, params) for e, v in zip(encoded["items"], value)))
    if kind == "dict":
        if not isinstance(value, dict) or set(value) != {k for k, _ in encoded["items"]}:
            return False
        return all(match(e, value[k], specs, params) for k, e in _dict_leaf_order(encoded["items"]))
    return False


def _as_leaf(value, spec):
    """value as a tensor that fits spec, or None. A TensorSpec (get_concrete_function's
    argument) fits a spec of its dtype whose shape it is compatible with."""
    if isinstance(value, TensorSpec):
        return value if value.dtype == spec.dtype and shape_fits(spec.shape, value.shape) else None
    if isinstance(value, Tensor):
        tensor = value
    elif isinstance(value, (np.ndarray, np.generic)):
        if as_dtype(value.dtype) != spec.dtype:
            return None
        tensor = _C.convert_to_tensor(value, spec.dtype)
    elif isinstance(value, (bool, int, float, list, tuple)):
        try:
            tensor = _C.convert_to_tensor(value, spec.dtype)
        except (TypeError, ValueError):
            return None
    else:
        return None
    if tensor.dtype != spec.dtype or not shape_fits(spec.shape, tensor.shape):
        return None
    return tensor


def describe(encoded, specs):
    """A readable form of an encoded structure, its tensor leaves shown as the next TensorSpecs."""
    kind = encoded["kind"]
    if kind == "tensor":
        return repr(next(specs))
    if kind == "constant":
        return repr(encoded["value"])
    if kind in ("list", "tuple"):
        inner = ", ".join(describe(v, specs) for v in encoded["items"])
        return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(encoded['items']) == 1 else ''})"
    parts = {k: describe(v, specs) for k, v in _dict_leaf_order(encoded["items"])}
    return "{" + ", ".join(f"{k!r}: {parts[k]}" for k, _ in encoded["items"]) + "}"


def describe_value(value):
    """A readable form of a call's argument: tensors by dtype and shape."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return f"{as_dtype(value.dtype).name} tensor of shape {tuple(value.shape)}"
    if isinstance(value, list):
        return "[" + ", ".join(describe_value(v) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(describe_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {describe_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def spec_to_json(spec):
    return {"dtype": spec.dtype.name, "shape": None if spec.shape.rank is None else list(spec.shape),
            "name": spec.name}


def spec_from_json(entry):
    return TensorSpec(entry["shape"], entry["dtype"], entry.get("name"))
