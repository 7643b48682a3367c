"""Hypothesis strategies for argument values, drawn as Python source text.

Every strategy here yields an ``Arg``: the source of an expression that
builds the value (``"np.zeros((2, 3), 'float32')"``), so a call the fuzzer
made is also its own reproducer. Each kind of value has a *plausible* branch
(small, well-typed, usually valid) and an *adversarial* one: huge, negative
or overflowing sizes, out-of-range axes, NaN/inf, extreme integers, wrong
types, lone surrogates, odd NumPy layouts.

Valid tensors stay tiny (at most a few hundred elements), so a call that
takes long is a hang, not a legitimately big computation.
"""

import dataclasses
from typing import Optional

from hypothesis import strategies as st

DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64",
          "uint8", "complex64")
FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8")


@dataclasses.dataclass(frozen=True)
class Arg:
    src: str  # a Python expression over np, ember, functools
    tensor: bool = False  # array-like: becomes a parameter of the traced function in function mode
    shape: Optional[tuple] = None  # known for the plausible tensors: other args are fitted to it


# --- Building blocks ---------------------------------------------------------

# Integers at the edges of every width the C++ side converts to.
EXTREME_INTS = (2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32, 2**62, 2**63 - 1, 2**63, -2**63, -2**63 - 1,
                2**64, 10**400, -10**400)
EXTREME_INT_SRC = ("2**31 - 1", "2**31", "-2**31", "-2**31 - 1", "2**32", "2**62", "2**63 - 1", "2**63",
                   "-2**63", "-2**63 - 1", "2**64", "10**400", "-10**400")
EXTREME_FLOAT_SRC = ("float('nan')", "float('inf')", "-float('inf')", "1e308", "-1e308", "5e-324", "-0.0",
                     "1e38", "3.4e38", "65504.0", "1e-45")
# Values of the wrong kind for nearly any parameter.
JUNK_SRC = ("None", "'abc'", "''", "'\\ud800'", "b'\\x00\\xff'", "object()", "{}", "{'a': 1}", "set()",
            "range(3)", "[None]", "[[1], [2, 3]]", "1j", "ember.float32", "np.float32", "print", "slice(1)",
            "Ellipsis", "(1, 'a')", "[1.5, 'x']", "np.array(['a', 'b'])", "np.array([1, 'a'], object)",
            "functools.reduce(lambda a, _: [a], range(3000), 1.0)")
# Shapes whose element count overflows int64, or that are negative.
BAD_SHAPES = ("[2**62]", "[2**63 - 1, 3]", "[2**40, 2**40]", "[2**31, 2**31, 2**31]", "[-1]", "[-2, 3]",
              "[-1, -1]", "[0, -1]", "[2**63 - 1, 0]", "[-2**63]", "[10**400]", "[1] * 65", "[1] * 1000",
              "[None]", "[1.5]", "[True, 2]", "'ab'", "(2**63, 1)", "np.array([2**62, 4])",
              "[2**32 + 1]", "[3037000500, 3037000500]", "[2**20, 2**20, 2**20]")


def plausible_shape():
    """Ranks 0 to 4, dims 0 to 4: at most 256 elements."""
    return st.lists(st.sampled_from((1, 2, 3, 0, 4)), min_size=0, max_size=4).map(tuple)


@st.composite
def array_src(draw, dtype, shape):
    """A NumPy array of exactly this dtype and shape, with drawn contents."""
    s = repr(tuple(shape))
    seed = draw(st.integers(0, 99))
    kind = draw(st.sampled_from(("random", "random", "random", "zeros", "ones", "special")))
    if kind == "zeros":
        return f"np.zeros({s}, '{dtype}')"
    if kind == "ones":
        return f"np.ones({s}, '{dtype}')"
    if dtype == "bool":
        return f"np.random.default_rng({seed}).random({s}) > 0.5"
    if dtype in INTS:
        if kind == "special":  # the type's extremes, where arithmetic wraps
            return (f"np.resize(np.array([np.iinfo('{dtype}').min, np.iinfo('{dtype}').max, 0, 1], '{dtype}'), "
                    f"{s})")
        low = 0 if dtype == "uint8" else -5
        return f"np.random.default_rng({seed}).integers({low}, 6, {s}).astype('{dtype}')"
    if kind == "special":
        return (f"np.resize(np.array([np.nan, np.inf, -np.inf, -0.0, 1e38, 1e-45, 1.0]), {s})"
                f".astype('{dtype}')")
    if dtype == "complex64":
        return (f"(np.random.default_rng({seed}).standard_normal({s}) + "
                f"1j * np.random.default_rng({seed + 1}).standard_normal({s})).astype('complex64')")
    return f"(np.random.default_rng({seed}).standard_normal({s}) * 3).astype('{dtype}')"


@st.composite
def plausible_tensor(draw, dtypes=DTYPES, shape=None):
    """A small array (sometimes an ember.Tensor or a Python scalar) of an allowed dtype."""
    dtype = draw(st.sampled_from(tuple(dtypes) or DTYPES))
    if shape is None:
        shape = draw(plausible_shape())
    src = draw(array_src(dtype, shape))
    wrap = draw(st.integers(0, 9))
    if wrap == 0:
        src = f"ember.constant({src})"
    elif wrap == 1 and shape == () and dtype in ("float32", "int32", "bool"):
        src = {"float32": "2.5", "int32": "3", "bool": "True"}[dtype]  # weak Python scalars
    return Arg(src, tensor=True, shape=tuple(shape))


# Odd but legal NumPy layouts and dtypes the conversion path must handle or refuse.
ODD_ARRAYS = (
    "np.frombuffer(b'\\x02\\x00\\xff\\x01', np.bool_)",
    "np.frombuffer(b'\\x02\\x00\\xff\\x01', np.bool_).reshape(2, 2)",
    "np.frombuffer(b'\\x02', np.bool_).reshape(())",
    "np.arange(24, dtype='float32').reshape(4, 6)[::-1, ::2]",
    "np.arange(24, dtype='int64').reshape(4, 6).T",
    "np.arange(24, dtype='float64').reshape(2, 3, 4)[:, ::-2, 1:]",
    "np.broadcast_to(np.float32(1), (3, 4))",
    "np.broadcast_to(np.arange(3, dtype='int32'), (1000, 3))",
    "np.frombuffer(b'\\x00' * 17, 'uint8')[1:].view('float64')",
    "np.arange(4, dtype='>f4')",
    "np.arange(6, dtype='>i8').reshape(2, 3)",
    "np.zeros(3, 'complex128')",
    "np.zeros(3, 'uint16')",
    "np.zeros(3, 'uint32')",
    "np.zeros(3, 'uint64')",
    "np.array([2**64 - 1], 'uint64')",
    "np.zeros(3, np.longdouble)",
    "np.zeros(2, 'datetime64[s]')",
    "np.zeros(2, [('a', 'i4'), ('b', 'f4')])",
    "np.zeros(2, 'V4')",
    "np.array(['a', 'b'])",
    "np.array([1, 'a'], object)",
    "np.array([None, None])",
    "np.zeros((0,), 'float32')",
    "np.zeros((0, 0, 0), 'int8')",
    "np.zeros((1,) * 32, 'float32')",
    "np.zeros((1,) * 64, 'float32')",
    "np.float32(np.nan)",
    "np.int64(-2**63)",
    "np.uint64(2**64 - 1)",
    "np.array(1e308)",
    "np.array(10**30)",
    "np.ma.masked_array([1.0, 2.0], mask=[True, False])",
    "np.matrix([[1.0, 2.0]])",
    "memoryview(b'abcd')",
    "bytearray(b'ab')",
)
PYTHON_VALUES = ("[[1.0, 2.0], [3.0, 4.0]]", "[[1, 2], [3]]", "[[]]", "[]", "[[[]]]", "[1, 2.5, True]",
                 "[True, False]", "[1, None]", "[1j, 2]", "[10**400]", "[2**63]", "[-2**63 - 1]",
                 "[float('nan')] * 3", "((1, 2), (3, 4))", "[np.float32(1), np.int64(2)]",
                 "[ember.constant(1.0), ember.constant(2.0)]", "[ember.constant([1, 2]), 3]",
                 "[[1.0] * 3] * 2", "'[1, 2]'", "10**400", "-10**400", "2**63", "1e308", "float('nan')", "True",
                 "complex(1, 2)", "ember.Variable(1.0)", "ember.constant(np.zeros((2, 0), 'float32'))")


@st.composite
def adversarial_tensor(draw, dtypes=DTYPES):
    branch = draw(st.integers(0, 5))
    if branch == 0:  # a dtype the op does not take
        other = [d for d in DTYPES if d not in dtypes] or list(DTYPES)
        return draw(plausible_tensor(other))
    if branch == 1:
        return Arg(draw(st.sampled_from(ODD_ARRAYS)), tensor=True)
    if branch == 2:
        return Arg(draw(st.sampled_from(PYTHON_VALUES)), tensor=True)
    if branch == 3:  # an allowed dtype at a rank or size the op may not expect
        dtype = draw(st.sampled_from(tuple(dtypes) or DTYPES))
        shape = draw(st.sampled_from(((), (0,), (1,) * 8, (0, 5, 0), (257,), (1, 1, 1, 1, 1, 2), (6, 1, 1, 6))))
        return Arg(draw(array_src(dtype, shape)), tensor=True, shape=shape)
    if branch == 4:
        return Arg(draw(st.sampled_from(EXTREME_INT_SRC + EXTREME_FLOAT_SRC)))
    return Arg(draw(st.sampled_from(JUNK_SRC)))


def tensor(dtypes=DTYPES, shape=None):
    """Mostly plausible tensors, one in four adversarial."""
    return st.integers(0, 3).flatmap(
        lambda i: adversarial_tensor(dtypes) if i == 0 else plausible_tensor(dtypes, shape))


# --- Attribute values --------------------------------------------------------


def ints(low=-3, high=5):
    plausible = st.integers(low, high).map(lambda v: Arg(str(v)))
    adversarial = st.sampled_from(EXTREME_INT_SRC + ("True", "1.5", "None", "'1'", "np.int32(1)", "[0]",
                                                     "np.array([1, 2])", "ember.constant(1)",
                                                     "float('nan')")).map(Arg)
    return st.one_of(plausible, plausible, adversarial)


def axis(rank):
    """An axis for a tensor of this rank (None when unknown): in range, just outside it, or extreme."""
    r = 2 if rank is None else rank
    return ints(-r - 1, r)


def axis_list(rank):
    r = 2 if rank is None else rank
    plausible = st.lists(st.integers(-r - 1, r), max_size=r + 1).map(lambda v: Arg(repr(v)))
    adversarial = st.sampled_from(("[2**63 - 1]", "[-2**63]", "[10**400]", "[0, 0]", "[0, -1, 0, -1]",
                                   "[None]", "[[0]]", "'0'", "[1.5]", "np.array([0, 1])", "list(range(100))",
                                   "[2**31]", "[-2**31 - 1]")).map(Arg)
    return st.one_of(plausible, plausible, axis(rank), adversarial, st.just(Arg("None")))


def floats():
    plausible = st.sampled_from(("0.0", "0.5", "1.0", "-1.0", "2.0", "1e-3", "0.2", "3")).map(Arg)
    adversarial = st.sampled_from(EXTREME_FLOAT_SRC + ("10**400", "None", "'x'", "1j", "[1.0]",
                                                       "np.float64(2.0)", "ember.constant(0.5)",
                                                       "np.array([1.0, 2.0])")).map(Arg)
    return st.one_of(plausible, plausible, adversarial)


def bools():
    return st.sampled_from(("True", "False", "True", "False", "None", "2", "np.bool_(True)", "'true'",
                            "np.array([True, False])", "ember.constant(True)", "[]")).map(Arg)


STRING_JUNK = ("''", "'\\ud800'", "'\\udfff\\ud800'", "'x' * 100000", "'\\x00'", "'SAME\\x00'", "'\\u00e9'",
               "b'SAME'", "None", "3", "['SAME']", "'same '", "'%s%n'")


def strings(valid):
    plausible = st.sampled_from(tuple(valid) or ("a",)).map(lambda v: Arg(repr(v)))
    return st.one_of(plausible, plausible, st.sampled_from(STRING_JUNK).map(Arg))


DTYPE_SRC = tuple(f"ember.{d}" for d in DTYPES) + tuple(f"'{d}'" for d in DTYPES) + (
    "np.float32", "np.dtype('int64')")
BAD_DTYPE_SRC = ("'complex128'", "'uint16'", "'int4'", "'float8'", "None", "5", "'\\ud800'", "np.uint64",
                 "np.object_", "object", "float", "int", "bool", "complex", "'string'", "ember.Tensor", "[ember.float32]",
                 "ember.DType('float32', 99, np.float32, 'f', 4)", "ember.DType('x', -1, None, 'q', 0)")


def dtypes(allowed=DTYPES):
    allowed_src = tuple(f"ember.{d}" for d in allowed) + tuple(f"'{d}'" for d in allowed)
    return st.one_of(st.sampled_from(allowed_src or DTYPE_SRC), st.sampled_from(allowed_src or DTYPE_SRC),
                     st.sampled_from(DTYPE_SRC + BAD_DTYPE_SRC)).map(Arg)


def int_list(rank, high=4):
    """A list of ints sized to the rank (strides, multiples, perms, paddings) or a broken one."""
    n = 2 if rank is None else rank
    plausible = st.lists(st.integers(-1, high), min_size=max(n - 1, 0), max_size=n + 1).map(lambda v: Arg(repr(v)))
    return st.one_of(plausible, plausible, plausible, st.sampled_from(BAD_SHAPES).map(Arg), ints())


def shape(like=None):
    """A target shape: plausible (often the element count of `like`) or overflowing and negative."""
    plausible = [plausible_shape().map(lambda s: Arg(repr(list(s))))]
    if like is not None:
        n = 1
        for d in like:
            n *= d
        plausible.append(st.sampled_from((list(like), [n], [-1], list(reversed(like)), [1, n], [n, 1, -1],
                                          [1] + list(like))).map(lambda s: Arg(repr(s))))
    return st.one_of(*plausible, *plausible, st.sampled_from(BAD_SHAPES).map(Arg))


def seeds():
    plausible = st.sampled_from(("[1, 2]", "(3, 4)", "np.array([5, 6], 'int64')", "np.array([1, 2], 'int32')",
                                 "ember.constant([7, 8])", "42", "0")).map(Arg)
    adversarial = st.sampled_from(("[2**63, 1]", "[-2**63, 2**64]", "[10**400, 1]", "[1]", "[1, 2, 3]", "[]",
                                   "np.array([1.5, 2.5])", "[[1, 2]]", "np.zeros((2, 2), 'int64')", "None", "'s'",
                                   "10**400", "-1", "2**64", "np.array([1, 2], 'uint8')",
                                   "[True, False]")).map(Arg)
    return st.one_of(plausible, plausible, adversarial)


def anything():
    """Any value at all: for parameters the fuzzer knows nothing about."""
    return st.one_of(tensor(), ints(), floats(), strings(("a",)), bools(), dtypes(),
                     st.sampled_from(JUNK_SRC + BAD_SHAPES).map(Arg))
