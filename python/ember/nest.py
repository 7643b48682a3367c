"""ember.nest: nested structures of lists, tuples, namedtuples and dicts (``tf.nest``).

Leaves are everything else, including an ember.TensorShape (a tuple
subclass, but a single value to TensorFlow's nest too). Dicts flatten in
sorted key order, as in TensorFlow, so a structure and the flat list line
up the same way in every call.
"""

from ember._tensor_shape import TensorShape as _TensorShape


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def is_nested(value):
    return isinstance(value, (list, tuple, dict)) and not isinstance(value, _TensorShape)


def _children(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value, key=repr)]
    return list(value)


def flatten(structure):
    """The leaves of ``structure``, depth first; a leaf gives ``[leaf]``."""
    if not is_nested(structure):
        return [structure]
    out = []
    for child in _children(structure):
        out.extend(flatten(child))
    return out


def _pack(structure, leaves, pos):
    if not is_nested(structure):
        return leaves[pos], pos + 1
    packed = []
    for child in _children(structure):
        value, pos = _pack(child, leaves, pos)
        packed.append(value)
    if isinstance(structure, dict):
        keys = sorted(structure, key=repr)
        return type(structure)(zip(keys, packed)), pos
    if _is_namedtuple(structure):
        return type(structure)(*packed), pos
    return type(structure)(packed), pos


def pack_sequence_as(structure, flat_sequence):
    """``structure`` with its leaves replaced by ``flat_sequence``, in order."""
    flat_sequence = list(flat_sequence)
    expected = len(flatten(structure))
    if expected != len(flat_sequence):
        raise ValueError(f"pack_sequence_as: the structure has {expected} leaves but {len(flat_sequence)} "
                         "values were given")
    value, _ = _pack(structure, flat_sequence, 0)
    return value


def map_structure(func, *structures):
    """Applies ``func`` to the leaves of the structures, which must match."""
    flats = [flatten(s) for s in structures]
    if any(len(f) != len(flats[0]) for f in flats):
        raise ValueError("map_structure: the structures do not have the same number of leaves")
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])
