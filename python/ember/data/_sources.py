"""Dataset sources (from_tensor_slices, from_tensors, range, from_generator) and the stages that join
datasets (zip, concatenate)."""

import numpy as np

from ember._checks import check_int, safe_repr
from ember._creation import convert_to_tensor
from ember.data import _structure
from ember.data._dataset import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Dataset
from ember.dtypes import as_dtype, int64
from ember.errors import InvalidArgumentError
from ember.function import TensorSpec, shape_fits
from ember._tensor import Tensor


class TensorSliceDataset(Dataset):
    def __init__(self, tensors):
        self._structure = _structure.normalize_input(tensors, "from_tensor_slices")
        self._components = _structure.flatten(self._structure)
        if not self._components:
            raise ValueError("from_tensor_slices: needs at least one tensor, got an empty structure")
        names = [p or "the tensor" for p in _structure.paths(self._structure)]
        for name, t in zip(names, self._components):
            if t.ndim == 0:
                raise ValueError(f"from_tensor_slices: component {name} is a scalar; slicing needs "
                                 "tensors of rank 1 or more")
        sizes = [t.shape[0] for t in self._components]
        if any(s != sizes[0] for s in sizes):
            listed = ", ".join(f"{name} has {s}" for name, s in zip(names, sizes))
            raise ValueError("from_tensor_slices: all components must have the same size in their "
                             f"first dimension, but {listed}")
        self._size = sizes[0]

    def _iterate(self):
        # Rows are copied out of a host view of each component: cheaper than
        # one slicing op per row, and tf.data too makes its elements on the host.
        arrays = [t.numpy() for t in self._components]
        for i in range(self._size):
            yield _structure.pack(self._structure, [convert_to_tensor(a[i]) for a in arrays])

    def _cardinality(self):
        return self._size

    def _element_spec(self):
        return _structure.map_components(lambda t: TensorSpec(t.shape[1:], t.dtype), self._structure)


class TensorDataset(Dataset):
    def __init__(self, tensors):
        self._element = _structure.normalize_input(tensors, "from_tensors")

    def _iterate(self):
        yield self._element

    def _cardinality(self):
        return 1

    def _element_spec(self):
        return _structure.spec_of(self._element)


class RangeDataset(Dataset):
    def __init__(self, args, output_type):
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range: takes 1 to 3 positional arguments (stop, or start, stop[, step]), "
                            f"got {len(args)}")
        args = [check_int(a, "range", what) for a, what in zip(args, ("a bound", "a bound", "step"))]
        if len(args) == 1:
            args = [0] + args
        if len(args) == 3 and args[2] == 0:
            raise ValueError("range: step must not be 0")
        self._range = range(*args)
        try:
            self._dtype = int64 if output_type is None else as_dtype(output_type)
            self._numpy_type = self._dtype.as_numpy_dtype
        except (TypeError, ValueError) as e:
            raise TypeError(f"range: output_type: {e}") from None
        if not (self._dtype.is_integer or self._dtype.is_floating):
            raise TypeError(f"range: output_type must be an integer or floating dtype, got {self._dtype.name}")

    def _iterate(self):
        for value in self._range:
            yield convert_to_tensor(np.array(value, self._numpy_type))

    def _cardinality(self):
        return len(self._range)

    def _element_spec(self):
        return TensorSpec((), self._dtype)


class ZipDataset(Dataset):
    def __init__(self, structure):
        if isinstance(structure, list):
            structure = tuple(structure)
        self._structure = structure
        self._datasets = _structure.flatten(structure)
        if not self._datasets:
            raise TypeError("zip: needs at least one dataset")
        for d in self._datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: expected datasets (or a tuple or dict of them), got {safe_repr(d)}")

    def _inputs(self):
        return list(self._datasets)

    def _iterate(self):
        iterators = [d._iterate() for d in self._datasets]
        while True:
            parts = []
            for it in iterators:
                try:
                    parts.append(next(it))
                except StopIteration:
                    return
            yield _structure.pack(self._structure, parts)

    def _cardinality(self):
        # tf.data's rule: unknown if any input is; else the smallest finite count.
        counts = [d._cardinality() for d in self._datasets]
        if UNKNOWN_CARDINALITY in counts:
            return UNKNOWN_CARDINALITY
        finite = [n for n in counts if n != INFINITE_CARDINALITY]
        return min(finite) if finite else INFINITE_CARDINALITY

    def _element_spec(self):
        return _structure.pack(self._structure, [d.element_spec for d in self._datasets])


class ConcatenateDataset(Dataset):
    def __init__(self, first, second):
        if not isinstance(second, Dataset):
            raise TypeError(f"concatenate: expected a dataset, got {safe_repr(second)}")
        self._first, self._second = first, second
        self._spec = _structure.specs_compatible(first.element_spec, second.element_spec)
        if self._spec is None:
            raise TypeError("concatenate: the datasets' elements are incompatible (they need the same "
                            f"structure, dtypes and ranks): {first.element_spec} vs. {second.element_spec}")

    def _inputs(self):
        return [self._first, self._second]

    def _iterate(self):
        yield from self._first._iterate()
        yield from self._second._iterate()

    def _cardinality(self):
        a, b = self._first._cardinality(), self._second._cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b

    def _element_spec(self):
        return self._spec


def _signature(output_signature, output_types, output_shapes):
    """from_generator's element spec, from output_signature or from output_types and output_shapes."""
    if output_signature is not None:
        if output_types is not None or output_shapes is not None:
            raise TypeError("from_generator: give output_signature, or output_types and output_shapes, not both")
        specs = _structure.flatten(output_signature)
        if not specs or not all(isinstance(s, TensorSpec) for s in specs):
            raise TypeError("from_generator: output_signature must be an ember.TensorSpec or a tuple or dict of "
                            f"them, got {safe_repr(output_signature)}")
        return output_signature
    if output_types is None:
        raise TypeError("from_generator: needs output_signature (or output_types and output_shapes)")
    if output_shapes is None:
        # tf.data would use shapes of unknown rank, which ember.TensorSpec cannot describe.
        raise ValueError("from_generator: give output_shapes with output_types (shapes of unknown rank are not "
                         "supported), or an output_signature of ember.TensorSpecs")
    shapes = [output_shapes] if not _structure.is_structure(output_types) else _shapes_up_to(output_types, output_shapes)
    types = _structure.flatten(output_types)
    if len(shapes) != len(types):
        raise ValueError("from_generator: output_shapes does not match the structure of output_types")
    return _structure.pack(output_types, [TensorSpec(shape, dtype) for shape, dtype in zip(shapes, types)])


def _shapes_up_to(types, shapes):
    """The shapes in output_shapes, one per leaf of output_types (shapes are lists themselves)."""
    if isinstance(types, dict):
        if not isinstance(shapes, dict) or sorted(shapes, key=repr) != sorted(types, key=repr):
            raise ValueError(f"from_generator: output_shapes must have the keys {sorted(types, key=repr)}")
        return [s for k in sorted(types, key=repr) for s in _shapes_up_to(types[k], shapes[k])]
    if isinstance(types, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise ValueError(f"from_generator: output_shapes must hold {len(types)} shapes, got {safe_repr(shapes)}")
        return [s for t, sh in zip(types, shapes) for s in _shapes_up_to(t, sh)]
    return [shapes]


def _conform(value, spec, path):
    """A generated value as a tensor of spec's dtype and a shape that fits spec."""
    where = f" (component {path})" if path else ""
    if isinstance(value, Tensor):
        tensor = value
        if tensor.dtype != spec.dtype:
            raise TypeError(f"from_generator: the generator yielded a {tensor.dtype.name} tensor where "
                            f"{spec.dtype.name} was expected{where}")
    else:
        array = np.asarray(value)
        target = np.dtype(spec.dtype.as_numpy_dtype)
        if array.dtype != target and not np.can_cast(array.dtype, target, "same_kind"):
            raise TypeError(f"from_generator: the generator yielded {safe_repr(value)} ({array.dtype}), which "
                            f"cannot be converted to {spec.dtype.name}{where}")
        tensor = convert_to_tensor(array.astype(target, copy=False))
    if not shape_fits(spec.shape, tensor.shape):
        raise InvalidArgumentError(f"from_generator: the generator yielded an element of shape {tensor.shape} "
                                   f"where shape {spec.shape} was expected{where}")
    return tensor


def _conform_structure(value, spec, path=""):
    if isinstance(spec, dict):
        if not isinstance(value, dict) or sorted(value, key=repr) != sorted(spec, key=repr):
            raise TypeError(f"from_generator: the generator yielded {safe_repr(value)} where a dict with the keys "
                            f"{sorted(spec, key=repr)} was expected")
        return {k: _conform_structure(value[k], spec[k], f"{path}[{k!r}]") for k in spec}
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise TypeError(f"from_generator: the generator yielded {safe_repr(value)} where a tuple of "
                            f"{len(spec)} was expected")
        parts = [_conform_structure(v, s, f"{path}[{i}]") for i, (v, s) in enumerate(zip(value, spec))]
        return type(spec)(*parts) if hasattr(type(spec), "_fields") else tuple(parts)
    return _conform(value, spec, path)


class GeneratorDataset(Dataset):
    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError(f"from_generator: generator must be a callable that returns an iterable, got "
                            f"{safe_repr(generator)}")
        self._generator = generator
        self._signature = _signature(output_signature, output_types, output_shapes)
        self._args = tuple(convert_to_tensor(a) for a in (args or ()))

    def _iterate(self):
        # As tf.data: the arguments reach the generator as NumPy values; each pass calls it anew.
        for value in self._generator(*[np.array(a) for a in self._args]):
            yield _conform_structure(value, self._signature)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY

    def _element_spec(self):
        return self._signature
