"""Dataset elements: nested tuples, named tuples and dicts of tensors, as in tf.data.

A tuple, named tuple or dict is a structure; anything else is a component
(a leaf). Lists are not structures here: a list given to a source such as
``from_tensor_slices`` becomes one tensor (``[[1, 2], [3, 4]]`` is a 2x2
tensor), and a list returned by a map function becomes a tuple, as
TensorFlow does. Dicts (made plain dicts) flatten in sorted key order (the
order of ``ember.nest``) and keep their own key order when packed again.
"""

from ember._checks import safe_repr
from ember._creation import convert_to_tensor
from ember.function import TensorSpec
from ember._tensor import Tensor


def is_structure(value):
    return isinstance(value, (tuple, dict))


def _keys(value):
    return sorted(value, key=repr)


def flatten(element):
    """The components of an element, depth first."""
    if isinstance(element, dict):
        return [leaf for k in _keys(element) for leaf in flatten(element[k])]
    if isinstance(element, tuple):
        return [leaf for child in element for leaf in flatten(child)]
    return [element]


def paths(element, prefix=""):
    """A name for each component, in flatten order: '[0]', "['label']", '' for a lone one."""
    if isinstance(element, dict):
        return [p for k in _keys(element) for p in paths(element[k], f"{prefix}[{k!r}]")]
    if isinstance(element, tuple):
        return [p for i, child in enumerate(element) for p in paths(child, f"{prefix}[{i}]")]
    return [prefix]


def _rebuild(structure, children):
    if _is_namedtuple(structure):
        return type(structure)(*children)
    return type(structure)(children)


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def _pack(structure, leaves):
    if isinstance(structure, dict):
        packed = {k: _pack(structure[k], leaves) for k in _keys(structure)}
        return type(structure)((k, packed[k]) for k in structure)
    if isinstance(structure, tuple):
        return _rebuild(structure, [_pack(child, leaves) for child in structure])
    return next(leaves)


def pack(structure, leaves):
    """``structure`` with its components replaced by ``leaves``, in flatten order."""
    return _pack(structure, iter(leaves))


def map_components(fn, element):
    return pack(element, [fn(leaf) for leaf in flatten(element)])


def same_structure(a, b):
    """True if a and b nest the same way (same types, lengths and keys)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and _keys(a) == _keys(b)
                and all(same_structure(a[k], b[k]) for k in a))
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (type(a) is type(b) and len(a) == len(b)
                and all(same_structure(x, y) for x, y in zip(a, b)))
    return True


def _to_tensor(value, what, path):
    if isinstance(value, Tensor):
        return value
    if value is None:
        raise TypeError(f"{what}: component{path or ''} is None; dataset components must be tensors")
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        where = f"component {path} " if path else ""
        raise TypeError(f"{what}: {where}{safe_repr(value)} cannot be converted to a tensor: {e}") from None


def _normalize(value, what, lists_are_tuples, path):
    if isinstance(value, dict):
        return {k: _normalize(v, what, lists_are_tuples, f"{path}[{k!r}]") for k, v in value.items()}
    if isinstance(value, tuple) or (lists_are_tuples and isinstance(value, list)):
        children = [_normalize(v, what, lists_are_tuples, f"{path}[{i}]") for i, v in enumerate(value)]
        return _rebuild(value, children) if isinstance(value, tuple) else tuple(children)
    return _to_tensor(value, what, path)


def normalize_input(value, what):
    """A source's argument as an element: lists become tensors (``from_tensor_slices([1, 2])``)."""
    return _normalize(value, what, False, "")


def normalize_output(value, what):
    """A user function's result as an element: lists become tuples, as in tf.data's map."""
    return _normalize(value, what, True, "")


def spec_of(element):
    """The element's structure with a TensorSpec for each component."""
    return map_components(lambda t: TensorSpec(t.shape, t.dtype), element)


def specs_compatible(a, b):
    """The most specific spec both a and b fit (dims that differ become None), or None."""
    if not same_structure(a, b):
        return None
    merged = []
    for x, y in zip(flatten(a), flatten(b)):
        if x.dtype != y.dtype or len(x.shape) != len(y.shape):
            return None
        merged.append(TensorSpec([p if p == q else None for p, q in zip(x.shape, y.shape)], x.dtype))
    return pack(a, merged)


def call_unpacked(fn, element):
    """fn(*element) for a plain tuple, else fn(element): how tf.data calls user functions."""
    if type(element) is tuple:
        return fn(*element)
    return fn(element)
