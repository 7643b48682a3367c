"""ember.TensorShape: the static shape of a tensor, a tuple of ints and None (tf.TensorShape).

Note [TensorShape as a tuple] (csrc/python/tensor_object.cc): a TensorShape
is a tuple subclass (through _C._ShapeTuple, csrc/python/shape_object.cc),
so ``x.shape == (2, 3)``, ``a, b = x.shape``, ``x.shape + (1,)``, hashing
and pickling behave as they did when Tensor.shape was a plain tuple. On top
it has TensorFlow's methods. An unknown dim is None; a shape of unknown rank
(``TensorShape(None)``) is the subclass _UnknownRankShape, which holds no
dims.
"""

import numbers
import operator

from ember import _C


def _dim(value):
    """A dim as an int or None (unknown); accepts ints, NumPy ints and None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        try:
            value = operator.index(value)
        except TypeError:
            raise TypeError(f"TensorShape: a dim must be an int or None, got {value!r}") from None
    value = int(value)
    if value < 0:
        if value == -1:  # TensorFlow's proto spelling of an unknown dim
            return None
        raise ValueError(f"TensorShape: a dim must be >= 0 or None, got {value}")
    return value


class TensorShape(_C._ShapeTuple):
    """The static shape of a tensor: a tuple whose entries are ints or None (unknown).

    Indexing (``shape[i]`` an int or None, ``shape[a:b]`` a TensorShape) and ``==`` (with
    tuples, lists and shapes) are the C base's, so they cost what a tuple's do.
    """

    __slots__ = ()

    def __new__(cls, dims=()):
        if dims is None:
            return tuple.__new__(_UnknownRankShape)
        if isinstance(dims, TensorShape):
            return dims if type(dims) is cls else tuple.__new__(cls, dims)
        if isinstance(dims, (numbers.Integral, type(None))):  # TensorShape(3) is a rank-1 shape
            dims = (dims,)
        return tuple.__new__(cls, (_dim(d) for d in dims))

    def __getnewargs__(self):
        return (tuple(self),)

    # --- Rank and dims --------------------------------------------------------

    @property
    def rank(self):
        """The number of dims (None if unknown)."""
        return len(self)

    ndims = rank

    @property
    def dims(self):
        """The dims as a list of ints and None (None if the rank is unknown)."""
        return list(self)

    def as_list(self):
        """The dims as a list of ints and None; ValueError if the rank is unknown."""
        return list(self)

    def is_fully_defined(self):
        return None not in tuple(self)

    def num_elements(self):
        """The number of elements, or None if some dim is unknown."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in tuple(self):
            n *= d
        return n

    # --- Tuple behaviour that returns shapes ------------------------------------

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def __bool__(self):  # TensorFlow's: a known shape is true, even a scalar's ()
        return True

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(self)

    # --- Compatibility (TensorFlow's partial-shape algebra) ------------------

    def is_compatible_with(self, other):
        """True if the shapes could describe the same tensor: equal ranks and each pair of
        dims equal or one unknown (an unknown rank is compatible with everything)."""
        other = as_shape(other)
        if other.rank is None:
            return True
        if len(self) != len(other):
            return False
        return all(a is None or b is None or a == b for a, b in zip(tuple(self), tuple(other)))

    def assert_is_compatible_with(self, other):
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {as_shape(other)} are incompatible")

    def merge_with(self, other):
        """The most specific shape compatible with both; ValueError if they are not compatible."""
        other = as_shape(other)
        if other.rank is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(tuple(self), tuple(other))])

    def concatenate(self, other):
        other = as_shape(other)
        if other.rank is None:
            return TensorShape(None)
        return TensorShape(tuple.__add__(tuple(self), tuple(other)))

    def with_rank(self, rank):
        """This shape if it has the given rank; ValueError otherwise."""
        if len(self) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank):
        if len(self) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank):
        if len(self) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank):
        self.with_rank(rank)

    def assert_is_fully_defined(self):
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")


class _UnknownRankShape(TensorShape):
    """TensorShape(None): a shape whose rank is unknown (it holds no dims)."""

    __slots__ = ()

    def __getnewargs__(self):
        return (None,)

    @property
    def rank(self):
        return None

    ndims = rank

    @property
    def dims(self):
        return None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def __len__(self):
        raise ValueError("Cannot take the length of shape with unknown rank.")

    def __iter__(self):
        raise ValueError("Cannot iterate over a shape with unknown rank.")

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self
        return None

    def is_fully_defined(self):
        return False

    def num_elements(self):
        return None

    def __eq__(self, other):
        return False

    def __ne__(self, other):
        return True

    __hash__ = tuple.__hash__

    def __bool__(self):
        return False

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"

    def is_compatible_with(self, other):
        as_shape(other)
        return True

    def merge_with(self, other):
        return as_shape(other)

    def concatenate(self, other):
        return self

    def with_rank(self, rank):
        return TensorShape([None] * rank)

    def with_rank_at_least(self, rank):
        return self

    def with_rank_at_most(self, rank):
        return self


def as_shape(value):
    """Returns value as a TensorShape (a TensorShape is returned unchanged)."""
    if isinstance(value, TensorShape):
        return value
    return TensorShape(value)
