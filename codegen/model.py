"""The op definition data model: parses op_defs/*.yaml and validates it.

Everything downstream (gen_cpp.py, gen_python.py) reads only the frozen
dataclasses defined here, never raw YAML. Every error names file:line.
"""
from __future__ import annotations

import ast
import keyword
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import yaml

# Order matches the C++ enum values in csrc/core/dtype.h.
DTYPES: tuple[str, ...] = ("bool", "int32", "int64", "float32", "float64", "float16", "bfloat16",
                           "int8", "int16", "uint8", "complex64")
INT_DTYPES = frozenset({"bool", "int32", "int64", "int8", "int16", "uint8"})

# YAML attr type -> C++ AttrType enumerator.
ATTR_TYPES: dict[str, str] = {
    "bool": "kBool",
    "int": "kInt",
    "float": "kFloat",
    "string": "kString",
    "list(int)": "kIntList",
    "dtype": "kDType",
}

UNARY_METHODS = frozenset({"__neg__", "__pos__", "__abs__", "__invert__"})
_BINARY_STEMS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul",
                 "and", "or", "xor")
BINARY_METHODS = frozenset(
    [f"__{s}__" for s in _BINARY_STEMS]
    + [f"__r{s}__" for s in _BINARY_STEMS]
    + ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"])

_IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
# Attrs become C++ struct fields (ops/attrs/<family>.gen.h).
_CPP_KEYWORDS = frozenset("""auto bool case char class const default delete double enum explicit extern float
    friend goto inline int long namespace new operator private protected public register short signed sizeof
    static struct switch template this throw typedef typename union unsigned using virtual void volatile""".split())
_TYPE_VAR = re.compile(r"^[A-Z][A-Za-z0-9]*$")


class OpDefError(Exception):
    """A problem in op_defs/, reported as 'file:line: message'."""


# ---------------------------------------------------------------------------
# The data model.


@dataclass(frozen=True)
class Loc:
    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class AttrReq:
    """A leading attribute a shape function reads by index."""
    name: Optional[str]  # None: any name
    type: str
    optional: bool


@dataclass(frozen=True)
class ShapeFnSpec:
    name: str  # "broadcast_binary"
    min_inputs: int
    max_inputs: Optional[int]  # None: unbounded
    attrs: tuple[AttrReq, ...] = ()
    extra_attrs: bool = False  # may the op declare attrs beyond `attrs`?
    num_outputs: Optional[int] = 1  # output arguments it sets; None: any number

    @property
    def cpp_name(self) -> str:
        return "shape_fns::" + camel(self.name)


# The attrs of the 2-D pooling ops and of their gradients (shape_fns/nn.cc).
_POOL_ATTRS = (AttrReq("ksize", "list(int)", False), AttrReq("strides", "list(int)", False),
               AttrReq("padding", "string", False), AttrReq("data_format", "string", False),
               AttrReq("explicit_paddings", "list(int)", False))

# The shape functions in csrc/ops/shape_fns/shape_fns.h and what they read.
SHAPE_FNS: dict[str, ShapeFnSpec] = {s.name: s for s in (
    ShapeFnSpec("unchanged", 1, None, extra_attrs=True),
    ShapeFnSpec("identity_n", 1, 1),
    ShapeFnSpec("pass_through", 1, 1, extra_attrs=True, num_outputs=None),
    ShapeFnSpec("call_function", 1, 1, (AttrReq("function", "int", False),), num_outputs=None),
    ShapeFnSpec("cond", 2, 2, (AttrReq("then_function", "int", False), AttrReq("else_function", "int", False),
                               AttrReq("num_then_args", "int", False)), num_outputs=None),
    ShapeFnSpec("while_loop", 1, 1, (AttrReq("cond_function", "int", False), AttrReq("body_function", "int", False),
                                     AttrReq("num_loop_vars", "int", False), AttrReq("num_cond_args", "int", False)),
                extra_attrs=True, num_outputs=None),
    # fused_elementwise: the program's outputs, all of the arguments' broadcast shape (csrc/ops/fused_program.cc).
    ShapeFnSpec("fused_elementwise", 1, 1, (AttrReq("program", "string", False), AttrReq("outputs", "list(int)", False)),
                num_outputs=None),
    # fused_matmul: matmul of two matrices, then a [N] bias (csrc/ops/shape_fns/linalg.cc).
    ShapeFnSpec("fused_matmul", 3, 3, (AttrReq("transpose_a", "bool", False), AttrReq("transpose_b", "bool", False),
                                       AttrReq("activation", "string", False))),
    ShapeFnSpec("broadcast_binary", 2, 2),
    ShapeFnSpec("broadcast_all", 1, None),
    ShapeFnSpec("add_n", 1, 1),
    ShapeFnSpec("matmul", 2, 2, (AttrReq("transpose_a", "bool", False),
                                 AttrReq("transpose_b", "bool", False))),
    ShapeFnSpec("reduce", 1, 1, (AttrReq("axis", "list(int)", True),
                                 AttrReq("keepdims", "bool", False))),
    ShapeFnSpec("reshape", 1, 1, (AttrReq("shape", "list(int)", False),)),
    ShapeFnSpec("transpose", 1, 1, (AttrReq("perm", "list(int)", True),)),
    ShapeFnSpec("shape_from_attr", 0, None, (AttrReq(None, "list(int)", False),),
                extra_attrs=True),
    # Stateless random ops: input 0 the seed ([2]), attr 0 the shape (csrc/ops/shape_fns/random.cc).
    ShapeFnSpec("stateless_random", 1, 1, (AttrReq("shape", "list(int)", False),), extra_attrs=True),
    # Reductions, scans, sorting and linear algebra (csrc/ops/shape_fns/{reduction,sorting,linalg}.cc).
    ShapeFnSpec("arg_reduce", 1, 1, (AttrReq("axis", "int", True),
                                     AttrReq("output_type", "dtype", False))),
    ShapeFnSpec("scan", 1, 1, (AttrReq("axis", "int", False),), extra_attrs=True),
    ShapeFnSpec("sort", 1, 1, (AttrReq("axis", "int", False),
                               AttrReq("direction", "string", False)), extra_attrs=True),
    ShapeFnSpec("top_k", 1, 1, (AttrReq("k", "int", False), AttrReq("sorted", "bool", False)),
                num_outputs=2),
    ShapeFnSpec("tensordot", 2, 2, (AttrReq("axes", "list(int)", False),)),
    ShapeFnSpec("einsum", 1, 1, (AttrReq("equation", "string", False),)),
    ShapeFnSpec("norm", 1, 1, (AttrReq("ord", "string", False), AttrReq("axis", "list(int)", True),
                               AttrReq("keepdims", "bool", False))),
    # Decompositions and solvers (csrc/ops/shape_fns/matrix.cc).
    ShapeFnSpec("square_matrix", 1, 1, extra_attrs=True),
    ShapeFnSpec("matrix_batch", 1, 1, num_outputs=None),
    ShapeFnSpec("matrix_solve", 2, 2, (AttrReq("adjoint", "bool", False),)),
    ShapeFnSpec("triangular_solve", 2, 2, (AttrReq("lower", "bool", False), AttrReq("adjoint", "bool", False))),
    ShapeFnSpec("matrix_solve_ls", 2, 2, (AttrReq("l2_regularizer", "float", False), AttrReq("fast", "bool", False))),
    ShapeFnSpec("qr", 1, 1, (AttrReq("full_matrices", "bool", False),), num_outputs=2),
    ShapeFnSpec("svd", 1, 1, (AttrReq("compute_uv", "bool", False), AttrReq("full_matrices", "bool", False)),
                num_outputs=3),
    ShapeFnSpec("self_adjoint_eig", 1, 1, (AttrReq("compute_v", "bool", False),), num_outputs=2),
    # Movement and indexing (csrc/ops/shape_fns/movement.cc).
    ShapeFnSpec("expand_dims", 1, 1, (AttrReq("axis", "int", False),)),
    ShapeFnSpec("squeeze", 1, 1, (AttrReq("axis", "list(int)", True),)),
    ShapeFnSpec("tile", 1, 1, (AttrReq("multiples", "list(int)", False),)),
    ShapeFnSpec("collective_reduce", 1, 1, (AttrReq("communicator", "int", False),
                                            AttrReq("reduction", "string", False))),
    ShapeFnSpec("collective_gather", 1, 1, (AttrReq("communicator", "int", False),
                                            AttrReq("group_size", "int", False))),
    ShapeFnSpec("collective_scatter", 1, 1, (AttrReq("communicator", "int", False),
                                             AttrReq("group_size", "int", False),
                                             AttrReq("reduction", "string", False))),
    ShapeFnSpec("collective_all_to_all", 1, 1, (AttrReq("communicator", "int", False),
                                                AttrReq("group_size", "int", False))),
    ShapeFnSpec("pad", 1, 1, (AttrReq("paddings", "list(int)", False),
                              AttrReq("mode", "string", False)), extra_attrs=True),
    ShapeFnSpec("broadcast_to", 1, 1, (AttrReq("shape", "list(int)", False),)),
    ShapeFnSpec("slice", 1, 1, (AttrReq("begin", "list(int)", False),
                                AttrReq("size", "list(int)", False))),
    ShapeFnSpec("strided_slice", 1, 1, (
        AttrReq("begin", "list(int)", False), AttrReq("end", "list(int)", False),
        AttrReq("strides", "list(int)", True), AttrReq("begin_mask", "int", False),
        AttrReq("end_mask", "int", False), AttrReq("ellipsis_mask", "int", False),
        AttrReq("new_axis_mask", "int", False), AttrReq("shrink_axis_mask", "int", False))),
    ShapeFnSpec("reverse", 1, 1, (AttrReq("axis", "list(int)", False),)),
    ShapeFnSpec("roll", 1, 1, (AttrReq("shift", "list(int)", False),
                               AttrReq("axis", "list(int)", False))),
    ShapeFnSpec("gather", 2, 2, (AttrReq("axis", "int", True), AttrReq("batch_dims", "int", False))),
    ShapeFnSpec("gather_nd", 2, 2, (AttrReq("batch_dims", "int", False),)),
    ShapeFnSpec("scatter_nd", 2, 2, (AttrReq("shape", "list(int)", False),)),
    ShapeFnSpec("tensor_scatter_nd_update", 3, 3),
    ShapeFnSpec("one_hot", 3, 3, (AttrReq("depth", "int", False), AttrReq("axis", "int", True))),
    ShapeFnSpec("shape_vector", 1, 1, extra_attrs=True),
    ShapeFnSpec("scalar", 0, None, extra_attrs=True),
    ShapeFnSpec("range", 0, 0, (AttrReq("start", "float", False), AttrReq("limit", "float", False),
                                AttrReq("delta", "float", False)), extra_attrs=True),
    ShapeFnSpec("linspace", 2, 2, (AttrReq("num", "int", False), AttrReq("axis", "int", False))),
    ShapeFnSpec("eye", 0, 0, (AttrReq("num_rows", "int", False), AttrReq("num_columns", "int", True),
                              AttrReq("batch_shape", "list(int)", True)), extra_attrs=True),
    ShapeFnSpec("concat", 1, 1, (AttrReq("axis", "int", False),)),
    ShapeFnSpec("stack", 1, 1, (AttrReq("axis", "int", False),)),
    ShapeFnSpec("unstack", 1, 1, (AttrReq("num", "int", True), AttrReq("axis", "int", False))),
    ShapeFnSpec("split", 1, 1, (AttrReq("size_splits", "list(int)", False), AttrReq("axis", "int", False))),
    # Neural-network ops (csrc/ops/shape_fns/nn.cc).
    ShapeFnSpec("softmax", 1, 1, (AttrReq("axis", "int", False),)),
    ShapeFnSpec("bias_add", 2, 2, (AttrReq("data_format", "string", True),)),
    ShapeFnSpec("conv2d", 2, 2, (AttrReq("strides", "list(int)", False), AttrReq("padding", "string", False),
                                 AttrReq("data_format", "string", False), AttrReq("dilations", "list(int)", True),
                                 AttrReq("explicit_paddings", "list(int)", False))),
    ShapeFnSpec("conv2d_transpose", 2, 2, (AttrReq("output_shape", "list(int)", False),
                                           AttrReq("strides", "list(int)", False), AttrReq("padding", "string", False),
                                           AttrReq("data_format", "string", False),
                                           AttrReq("dilations", "list(int)", True),
                                           AttrReq("explicit_paddings", "list(int)", False))),
    ShapeFnSpec("pool2d", 1, 1, _POOL_ATTRS),
    ShapeFnSpec("conv2d_backprop_filter", 2, 2, (AttrReq("filter_sizes", "list(int)", False),
                                                 AttrReq("strides", "list(int)", False),
                                                 AttrReq("padding", "string", False),
                                                 AttrReq("data_format", "string", False),
                                                 AttrReq("dilations", "list(int)", True),
                                                 AttrReq("explicit_paddings", "list(int)", False))),
    ShapeFnSpec("max_pool2d_grad", 2, 2, _POOL_ATTRS),
    ShapeFnSpec("max_pool2d_grad_grad", 2, 2, _POOL_ATTRS),
    ShapeFnSpec("avg_pool2d_grad", 1, 1, (AttrReq("input_shape", "list(int)", False),) + _POOL_ATTRS),
    ShapeFnSpec("layer_norm", 3, 3, (AttrReq("axis", "list(int)", False), AttrReq("epsilon", "float", False))),
    ShapeFnSpec("sparse_softmax_xent", 2, 2),
    ShapeFnSpec("softmax_xent", 2, 2, (AttrReq("axis", "int", False),)),
    ShapeFnSpec("attention", 4, 4, (AttrReq("scale", "float", True),)),
    # Segments, counting and searching (csrc/ops/shape_fns/segments.cc).
    ShapeFnSpec("segment_reduce", 2, 2, (AttrReq("num_segments", "int", False),)),
    ShapeFnSpec("unsorted_segment_reduce", 2, 2, (AttrReq("num_segments", "int", False),)),
    ShapeFnSpec("dense_bincount", 2, 2, (AttrReq("size", "int", False), AttrReq("binary_output", "bool", False))),
    ShapeFnSpec("unique_index", 1, 1, (AttrReq("out_idx", "dtype", False),)),
    ShapeFnSpec("searchsorted", 2, 2, (AttrReq("side", "string", False), AttrReq("out_type", "dtype", False))),
    ShapeFnSpec("reverse_sequence", 2, 2, (AttrReq("seq_axis", "int", True), AttrReq("batch_axis", "int", True))),
    ShapeFnSpec("histogram_fixed_width", 2, 2, (AttrReq("nbins", "int", False), AttrReq("dtype", "dtype", False))),
    # Random permutation and sampling (csrc/ops/shape_fns/random.cc): input 1 the seed ([2]).
    ShapeFnSpec("random_shuffle", 2, 2),
    ShapeFnSpec("categorical", 2, 2, (AttrReq("num_samples", "int", False),), extra_attrs=True),
    # Fourier transforms (csrc/ops/shape_fns/signal.cc).
    ShapeFnSpec("fft", 1, 1),
    ShapeFnSpec("rfft", 1, 1, (AttrReq("fft_length", "list(int)", True),)),
    ShapeFnSpec("irfft", 1, 1, (AttrReq("fft_length", "list(int)", True),)),
    # Image resizing (csrc/ops/shape_fns/image.cc).
    ShapeFnSpec("image_resize", 1, 1, (AttrReq("size", "list(int)", False),)),
    ShapeFnSpec("image_resize_grad", 1, 1, (AttrReq("original_size", "list(int)", False),)),
    # Optimizer updates (csrc/ops/shape_fns/training.cc).
    ShapeFnSpec("apply_update", 3, None, extra_attrs=True, num_outputs=None),
)}


@dataclass(frozen=True)
class TypeVar:
    name: str
    allowed: tuple[str, ...]  # in DTYPES order
    bound_by_attr: Optional[str]  # name of a dtype attr
    int_promotion: Optional[str]  # a dtype
    loc: Loc


# `list(any)`: a list whose tensors each keep their own dtype (call_function).
ANY_DTYPE = "any"


@dataclass(frozen=True)
class Arg:
    name: str
    type_var: Optional[str]
    fixed_dtype: Optional[str]  # set when type_var is None
    loc: Loc
    is_list: bool = False  # declared `list(T)`: any number of tensors

    @property
    def type_name(self) -> str:
        return self.type_var or self.fixed_dtype  # type: ignore[return-value]


_NO_DEFAULT = object()


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # a key of ATTR_TYPES
    optional: bool
    has_default: bool
    default: Any  # None, bool, int, float, str, tuple[int, ...]; dtype as str
    loc: Loc


@dataclass(frozen=True)
class TensorMethod:
    name: str  # "__radd__"
    reversed: bool


@dataclass(frozen=True)
class Op:
    name: str
    family: str  # the file stem: "elementwise"
    summary: str
    doc: str
    inputs: tuple[Arg, ...]
    outputs: tuple[Arg, ...]
    type_vars: tuple[TypeVar, ...]
    attrs: tuple[Attr, ...]
    shape_fn: ShapeFnSpec
    python_names: tuple[str, ...]  # "add", "math.add"
    tensor_methods: tuple[TensorMethod, ...]
    reusable_input: Optional[int]
    output_is_view: bool  # outputs view input buffers (reshape, identity, identity_n)
    signature: tuple[str, ...]  # Python parameter order (inputs and attrs)
    arg_docs: tuple[tuple[str, str], ...]
    loc: Loc
    # The parameters of the hand-written Python function that replaces the
    # generated one under the public name (python/ember/*.py), for the docs
    # and stubs; None when the generated function is the public one.
    wrapper_signature: Optional[str] = None
    # Has an effect besides its outputs (print): graphs keep it, never merge
    # or fold it, and run it in program order with the other stateful ops.
    stateful: bool = False
    # Note [Ops that wait for peers] (csrc/runtime/kernel_launch.cc): the
    # kernel may wait for other processes (the collectives).
    waits_for_peers: bool = False
    # Note [Gradient declarations]: the name of the op's gradient function
    # in python/ember/_grads/<family>.py, "none" for an op that is not
    # differentiable, or None while nobody has declared one yet.
    grad: Optional[str] = None
    # Note [Host-memory inputs]: indices of the inputs the kernel reads on
    # the host on every device (a predicate, a size); the runtime hands them
    # over in host memory.
    host_memory_inputs: tuple[int, ...] = ()
    # Note [Metadata inputs]: indices of the inputs whose shape and dtype
    # alone the kernel reads, never their data; the runtime neither copies
    # them nor waits for them.
    metadata_inputs: tuple[int, ...] = ()
    # Indices of the outputs that live in host memory on every device
    # (shape, size, rank of a device value): the op runs on the host, so
    # small integer shape arithmetic stays there (Note [Host-memory outputs]).
    host_memory_outputs: tuple[int, ...] = ()
    # The Python wrapper returns its outputs as a namedtuple of this name
    # with the outputs' names as fields (TensorFlow's TopKV2(values,
    # indices)); None returns a plain tuple.
    output_tuple: Optional[str] = None

    @property
    def camel(self) -> str:
        return camel(self.name)

    def type_var_index(self, name: str) -> int:
        return [t.name for t in self.type_vars].index(name)

    def attr_index(self, name: str) -> int:
        return [a.name for a in self.attrs].index(name)

    def arg_doc(self, name: str) -> str:
        return dict(self.arg_docs).get(name, "")

    def param(self, name: str) -> Arg | Attr:
        for p in (*self.inputs, *self.attrs):
            if p.name == name:
                return p
        raise KeyError(name)


@dataclass(frozen=True)
class OpDefs:
    ops: tuple[Op, ...]  # sorted by name; index == OpId
    type_sets: tuple[tuple[str, tuple[str, ...]], ...]

    def op(self, name: str) -> Op:
        return next(o for o in self.ops if o.name == name)

    def namespaces(self) -> dict[str, list[tuple[str, Op]]]:
        """Exported names per namespace ("" = top level), sorted by name."""
        out: dict[str, list[tuple[str, Op]]] = {}
        for op in self.ops:
            for full in op.python_names:
                ns, _, short = full.rpartition(".")
                out.setdefault(ns, []).append((short, op))
        return {ns: sorted(v, key=lambda p: p[0]) for ns, v in sorted(out.items())}


def camel(snake: str) -> str:
    return "".join(part.capitalize() for part in snake.split("_"))


# ---------------------------------------------------------------------------
# YAML with line numbers: mappings and sequences remember where they are.


class YMap(dict):
    line: int = 1
    key_lines: dict = {}  # key -> line; replaced per instance when loaded


class YList(list):
    line: int = 1
    item_lines: list = []  # replaced per instance when loaded


class _LineLoader(yaml.SafeLoader):
    path = ""


def _construct_map(loader: _LineLoader, node: yaml.MappingNode) -> YMap:
    loader.flatten_mapping(node)
    out = YMap()
    out.line, out.key_lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if key in out:
            raise OpDefError(f"{loader.path}:{line}: duplicate key {key!r}")
        out[key] = loader.construct_object(value_node, deep=True)
        out.key_lines[key] = line
    return out


def _construct_seq(loader: _LineLoader, node: yaml.SequenceNode) -> YList:
    out = YList(loader.construct_object(n, deep=True) for n in node.value)
    out.line = node.start_mark.line + 1
    out.item_lines = [n.start_mark.line + 1 for n in node.value]
    return out


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


def load_yaml(path: str, text: str) -> Any:
    loader = _LineLoader(text)
    loader.path = path
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        raise OpDefError(f"{path}:{line}: invalid YAML: {e.problem or e}") from None
    finally:
        loader.dispose()


# ---------------------------------------------------------------------------
# Parsing and validation.


class _File:
    """Error reporting for one YAML file."""

    def __init__(self, path: str):
        self.path = path

    def loc(self, line: int) -> Loc:
        return Loc(self.path, line)

    def error(self, line: int, msg: str) -> OpDefError:
        return OpDefError(f"{self.path}:{line}: {msg}")

    def expect(self, value: Any, kind: type, line: int, what: str) -> Any:
        names = {YMap: "a mapping", YList: "a list", str: "a string", int: "an integer",
                 bool: "true or false"}
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise self.error(line, f"{what} must be {names.get(kind, kind.__name__)}, "
                                   f"got {value!r}")
        return value

    def check_keys(self, m: YMap, allowed: set, required: set, what: str) -> None:
        for key in m:
            if key not in allowed:
                raise self.error(m.key_lines[key], f"{what}: unknown key {key!r} "
                                                   f"(expected one of {sorted(allowed)})")
        for key in sorted(required - set(m)):
            raise self.error(m.line, f"{what}: missing required key {key!r}")


def load_op_defs(op_defs_dir: str | Path) -> OpDefs:
    """Parses and validates every *.yaml file in `op_defs_dir`."""
    root = Path(op_defs_dir)
    paths = sorted(root.glob("*.yaml"))
    if not paths:
        raise OpDefError(f"{root}: no *.yaml files")
    docs = [(_File(str(p)), load_yaml(str(p), p.read_text(encoding="utf-8"))) for p in paths]

    # Pass 1: named dtype sets, visible from every file.
    type_sets: dict[str, tuple[str, ...]] = {}
    for f, data in docs:
        if data is None:
            continue
        f.expect(data, YMap, 1, "an op_defs file")
        f.check_keys(data, {"type_sets", "ops"}, set(), "file")
        sets = data.get("type_sets", YMap())
        f.expect(sets, YMap, data.key_lines.get("type_sets", 1), "'type_sets'")
        for name, members in sets.items():
            line = sets.key_lines[name]
            if not _IDENT.match(str(name)) or name in DTYPES:
                raise f.error(line, f"bad type set name {name!r}")
            if name in type_sets:
                raise f.error(line, f"duplicate type set {name!r}")
            type_sets[name] = _dtype_list(f, members, line, f"type set {name!r}")

    # Pass 2: ops.
    ops: dict[str, Op] = {}
    for f, data in docs:
        if data is None:
            continue
        op_list = data.get("ops", YList())
        f.expect(op_list, YList, data.key_lines.get("ops", 1), "'ops'")
        for item, line in zip(op_list, op_list.item_lines):
            op = _parse_op(f, item, line, Path(f.path).stem, type_sets)
            if op.name in ops:
                raise f.error(op.loc.line, f"duplicate op name {op.name!r} "
                                           f"(first defined at {ops[op.name].loc})")
            ops[op.name] = op

    result = OpDefs(tuple(ops[n] for n in sorted(ops)), tuple(sorted(type_sets.items())))
    _check_global(result)
    _check_grad_functions(result, root.parent / "python" / "ember" / "_grads")
    return result


def _check_grad_functions(defs: OpDefs, grads_dir: Path) -> None:
    """A declared gradient function must exist: each op's `grad:` names a
    top-level function (or name bound to one) of python/ember/_grads/<family>.py (checked without
    importing it, so a typo fails the build, not the first backward pass)."""
    if not grads_dir.is_dir():
        return  # op_defs used outside the source tree (codegen tests)
    defined: dict[str, set[str]] = {}
    for op in defs.ops:
        if op.grad in (None, "none"):
            continue
        if op.family not in defined:
            path = grads_dir / f"{op.family}.py"
            names: set[str] = set()
            if path.exists():
                tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
                for node in tree.body:
                    if isinstance(node, ast.FunctionDef):
                        names.add(node.name)
                    elif isinstance(node, ast.Assign):  # reduce_max = _extremum
                        names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            defined[op.family] = names
        if op.grad not in defined[op.family]:
            raise OpDefError(f"{op.loc}: op {op.name!r}: grad {op.grad!r} is not a function in "
                             f"python/ember/_grads/{op.family}.py")


def _dtype_list(f: _File, value: Any, line: int, what: str) -> tuple[str, ...]:
    f.expect(value, YList, line, what)
    if not value:
        raise f.error(line, f"{what}: empty dtype list")
    for d, item_line in zip(value, value.item_lines):
        if d not in DTYPES:
            raise f.error(item_line, f"{what}: unknown dtype {d!r}")
    return tuple(d for d in DTYPES if d in value)


_OP_KEYS = {"name", "summary", "doc", "inputs", "outputs", "type_vars", "attrs", "shape_fn",
            "python", "tensor_methods", "reusable_input", "output_is_view", "signature", "arg_docs",
            "wrapper_signature", "stateful", "waits_for_peers", "grad", "output_tuple", "host_memory_inputs",
            "metadata_inputs", "host_memory_outputs"}
_OP_REQUIRED = {"name", "summary", "outputs", "shape_fn", "python"}


def _parse_op(f: _File, m: Any, line: int, family: str,
              type_sets: dict[str, tuple[str, ...]]) -> Op:
    f.expect(m, YMap, line, "an op")
    name = m.get("name")
    if not isinstance(name, str) or not _IDENT.match(name) or keyword.iskeyword(name):
        raise f.error(m.key_lines.get("name", line), f"bad or missing op name {name!r} "
                                                     "(expected snake_case)")
    what = f"op {name!r}"

    def err(key_or_line: Any, msg: str) -> OpDefError:
        at = key_or_line if isinstance(key_or_line, int) else m.key_lines.get(key_or_line, m.line)
        return f.error(at, f"{what}: {msg}")

    for key in m:
        if key not in _OP_KEYS:
            raise err(key, f"unknown key {key!r} (expected one of {sorted(_OP_KEYS)})")
    for key in sorted(_OP_REQUIRED - set(m)):
        raise err(m.line, f"missing required key {key!r}")

    summary = m["summary"]
    if not isinstance(summary, str) or not summary.strip() or "\n" in summary.strip():
        raise err("summary", "summary must be a non-empty single line")
    doc = m.get("doc") or ""
    if not isinstance(doc, str):
        raise err("doc", "doc must be a string")

    # Type variables (parsed before args so args can refer to them).
    tv_map = m.get("type_vars", YMap())
    f.expect(tv_map, YMap, m.key_lines.get("type_vars", m.line), f"{what}: 'type_vars'")
    raw_tvs = []
    for tv_name, spec in tv_map.items():
        tv_line = tv_map.key_lines[tv_name]
        if not isinstance(tv_name, str) or not _TYPE_VAR.match(tv_name):
            raise err(tv_line, f"bad type var name {tv_name!r} (expected CamelCase, e.g. T)")
        bound, promo = None, None
        if isinstance(spec, YMap):
            f.check_keys(spec, {"allowed", "bound_by_attr", "int_promotion"}, {"allowed"},
                         f"{what}: type var {tv_name!r}")
            bound, promo = spec.get("bound_by_attr"), spec.get("int_promotion")
            allowed_line = spec.key_lines["allowed"]
            spec_allowed = spec["allowed"]
        else:
            allowed_line, spec_allowed = tv_line, spec
        if isinstance(spec_allowed, str):
            if spec_allowed in DTYPES:
                allowed = (spec_allowed,)
            elif spec_allowed in type_sets:
                allowed = type_sets[spec_allowed]
            else:
                raise err(allowed_line, f"unknown dtype or type set {spec_allowed!r}")
        else:
            allowed = _dtype_list(f, spec_allowed, allowed_line, f"{what}: type var {tv_name!r}")
        if promo is not None:
            promo_line = spec.key_lines["int_promotion"]
            if promo not in DTYPES:
                raise err(promo_line, f"unknown dtype {promo!r}")
            if promo not in allowed:
                raise err(promo_line, f"int_promotion {promo!r} is not an allowed dtype of "
                                      f"{tv_name!r}")
        raw_tvs.append((tv_name, allowed, bound, promo, tv_line))
    tv_names = {t[0] for t in raw_tvs}

    def parse_args(key: str) -> tuple[Arg, ...]:
        items = m.get(key, YList())
        f.expect(items, YList, m.key_lines.get(key, m.line), f"{what}: {key!r}")
        args = []
        for item, item_line in zip(items, items.item_lines):
            if not (isinstance(item, YMap) and len(item) == 1):
                raise err(item_line, f"{key} entries must look like 'x: T', got {item!r}")
            (arg_name, type_name), = item.items()
            if not isinstance(arg_name, str) or not _IDENT.match(arg_name):
                raise err(item_line, f"bad {key[:-1]} name {arg_name!r}")
            is_list = isinstance(type_name, str) and type_name.startswith("list(") \
                and type_name.endswith(")")
            if is_list:
                type_name = type_name[5:-1]
            if type_name in tv_names:
                args.append(Arg(arg_name, type_name, None, f.loc(item_line), is_list))
            elif type_name == ANY_DTYPE:
                if not is_list:
                    raise err(item_line, f"{key[:-1]} {arg_name!r}: 'any' is only allowed as list(any)")
                args.append(Arg(arg_name, None, ANY_DTYPE, f.loc(item_line), is_list))
            elif type_name in DTYPES:
                args.append(Arg(arg_name, None, type_name, f.loc(item_line), is_list))
            else:
                raise err(item_line, f"{key[:-1]} {arg_name!r}: unknown type var or dtype "
                                     f"{type_name!r} (declared type vars: "
                                     f"{sorted(tv_names) or 'none'})")
        return tuple(args)

    inputs, outputs = parse_args("inputs"), parse_args("outputs")
    if not outputs:
        raise err("outputs", "an op needs at least one output")
    for out in outputs[:-1]:
        if out.is_list:
            raise err(out.loc.line, f"list output {out.name!r} must be the last output")

    attrs = _parse_attrs(f, m, what, err)

    # Parameter names must be distinct Python identifiers.
    seen: dict[str, int] = {}
    for p in (*inputs, *attrs):
        if keyword.iskeyword(p.name) or p.name == "name" or p.name in _CPP_KEYWORDS:
            raise err(p.loc.line, f"{p.name!r} cannot be a parameter name")
        if p.name in seen:
            raise err(p.loc.line, f"duplicate parameter name {p.name!r}")
        seen[p.name] = p.loc.line
    out_seen = set()
    for o in outputs:
        if o.name in out_seen:
            raise err(o.loc.line, f"duplicate output name {o.name!r}")
        out_seen.add(o.name)

    # Finish type vars: bindings and usage.
    type_vars = []
    attr_by_name = {a.name: a for a in attrs}
    for tv_name, allowed, bound, promo, tv_line in raw_tvs:
        if bound is not None:
            a = attr_by_name.get(bound)
            if a is None or a.type != "dtype":
                raise err(tv_line, f"type var {tv_name!r}: bound_by_attr {bound!r} is not a "
                                   "dtype attr of this op")
            if a.has_default and a.default is not None and a.default not in allowed:
                raise err(a.loc.line, f"attr {a.name!r}: default {a.default!r} is not an "
                                      f"allowed dtype of {tv_name!r}")
            if promo is not None:
                raise err(tv_line, f"type var {tv_name!r}: int_promotion cannot be combined "
                                   "with bound_by_attr")
        elif not any(i.type_var == tv_name for i in inputs):
            raise err(tv_line, f"type var {tv_name!r} is used by no input and bound by no "
                               "attr, so it cannot be inferred")
        if bound is not None and any(i.type_var == tv_name for i in inputs):
            raise err(tv_line, f"type var {tv_name!r} is bound by an attr and used by an input")
        type_vars.append(TypeVar(tv_name, allowed, bound, promo, f.loc(tv_line)))

    shape_fn = _check_shape_fn(m, inputs, outputs, attrs, err)

    # Python names and tensor methods.
    py = m["python"]
    f.expect(py, YList, m.key_lines["python"], f"{what}: 'python'")
    if not py:
        raise err("python", "'python' must list at least one exported name")
    for full, item_line in zip(py, py.item_lines):
        parts = full.split(".") if isinstance(full, str) else []
        if not 1 <= len(parts) <= 2 or not all(_IDENT.match(p) and not keyword.iskeyword(p)
                                               for p in parts) or parts[0] == "ops":
            raise err(item_line, f"bad python name {full!r} (expected 'name' or "
                                 "'namespace.name')")

    methods = []
    tm = m.get("tensor_methods", YList())
    f.expect(tm, YList, m.key_lines.get("tensor_methods", m.line), f"{what}: 'tensor_methods'")
    required_attrs = [a.name for a in attrs if not a.has_default]
    for entry, item_line in zip(tm, tm.item_lines):
        mname, _, flag = str(entry).partition(":")
        if flag not in ("", "reversed"):
            raise err(item_line, f"bad tensor method flag {flag!r} (only ':reversed')")
        arity = 1 if mname in UNARY_METHODS else 2 if mname in BINARY_METHODS else None
        if arity is None:
            raise err(item_line, f"unknown tensor method {mname!r}")
        if arity != len(inputs) or required_attrs or any(a.is_list for a in inputs):
            raise err(item_line, f"tensor method {mname!r} needs an op with {arity} input(s) "
                                 "and no required attrs")
        is_r = mname.startswith("__r") and mname in BINARY_METHODS
        if is_r != (flag == "reversed"):
            raise err(item_line, f"tensor method {mname!r}: reflected methods (and only "
                                 "those) must be marked ':reversed'")
        methods.append(TensorMethod(mname, flag == "reversed"))

    reusable = m.get("reusable_input")
    if reusable is not None:
        f.expect(reusable, int, m.key_lines["reusable_input"], f"{what}: 'reusable_input'")
        if not 0 <= reusable < len(inputs):
            raise err("reusable_input", f"reusable_input {reusable} is not an input index")
        src = inputs[reusable]
        if src.is_list or outputs[0].is_list:
            raise err("reusable_input", "reusable_input cannot involve a list argument")
        if src.type_name != outputs[0].type_name:
            raise err("reusable_input", f"reusable_input {reusable}: input {src.name!r} and "
                                        f"output {outputs[0].name!r} have different types")

    output_is_view = m.get("output_is_view", False)
    f.expect(output_is_view, bool, m.key_lines.get("output_is_view", m.line), f"{what}: 'output_is_view'")
    # list(any) outputs (call_function, cond, while_loop) are whatever the
    # kernel's graph computed, so they are set by the kernel too.
    if output_is_view and outputs[0].fixed_dtype != ANY_DTYPE and (
            not inputs or inputs[0].type_name != outputs[0].type_name):
        raise err("output_is_view", "output_is_view needs input 0 and output 0 of the same type")

    # Python signature.
    default_order = [p.name for p in (*inputs, *attrs)]
    sig = m.get("signature")
    if sig is None:
        signature = tuple(default_order)
    else:
        f.expect(sig, YList, m.key_lines["signature"], f"{what}: 'signature'")
        if sorted(map(str, sig)) != sorted(default_order):
            raise err("signature", f"signature {list(sig)} must list each input and attr "
                                   f"exactly once ({default_order})")
        signature = tuple(sig)
    defaulted = None
    for pname in signature:
        p = next(x for x in (*inputs, *attrs) if x.name == pname)
        has_default = isinstance(p, Attr) and p.has_default
        if defaulted and not has_default:
            raise err(p.loc.line, f"parameter {pname!r} without a default follows "
                                  f"{defaulted!r}, which has one (reorder with 'signature')")
        defaulted = defaulted or (pname if has_default else None)

    arg_docs = m.get("arg_docs", YMap())
    f.expect(arg_docs, YMap, m.key_lines.get("arg_docs", m.line), f"{what}: 'arg_docs'")
    out_names = {o.name for o in outputs}
    for key, text in arg_docs.items():
        if key not in seen and key not in out_names:
            raise err(arg_docs.key_lines[key], f"arg_docs: no input, attr or output {key!r}")
        f.expect(text, str, arg_docs.key_lines[key], f"{what}: arg_docs[{key!r}]")

    stateful = m.get("stateful", False)
    f.expect(stateful, bool, m.key_lines.get("stateful", m.line), f"{what}: 'stateful'")
    waits_for_peers = m.get("waits_for_peers", False)
    f.expect(waits_for_peers, bool, m.key_lines.get("waits_for_peers", m.line), f"{what}: 'waits_for_peers'")
    if waits_for_peers and not stateful:
        raise err("waits_for_peers", "an op that waits for peers must be stateful, so that traces keep its order")
    wrapper_signature = m.get("wrapper_signature")
    if wrapper_signature is not None:
        f.expect(wrapper_signature, str, m.key_lines["wrapper_signature"], f"{what}: 'wrapper_signature'")

    grad = m.get("grad")
    if grad is not None:
        f.expect(grad, str, m.key_lines["grad"], f"{what}: 'grad'")
        if not _IDENT.match(grad) or keyword.iskeyword(grad):
            raise err("grad", f"grad {grad!r} must name a function in python/ember/_grads/{family}.py, "
                              "or be 'none'")

    output_tuple = m.get("output_tuple")
    if output_tuple is not None:
        f.expect(output_tuple, str, m.key_lines["output_tuple"], f"{what}: 'output_tuple'")
        if not output_tuple.isidentifier() or keyword.iskeyword(output_tuple):
            raise err("output_tuple", f"output_tuple {output_tuple!r} must be a Python identifier")
        if len(outputs) < 2 or any(o.is_list for o in outputs):
            raise err("output_tuple", "output_tuple needs two or more outputs and no list output")

    host_indices = _arg_indices(f, m, "host_memory_inputs", inputs, what, err)
    metadata_indices = _arg_indices(f, m, "metadata_inputs", inputs, what, err)
    host_output_indices = _arg_indices(f, m, "host_memory_outputs", outputs, what, err)
    if set(host_indices) & set(metadata_indices):
        raise err("metadata_inputs", "an input cannot be both a metadata input and a host-memory input")
    if host_output_indices:
        # The op runs on the host: every input it reads must be there already.
        device_inputs = [a.name for i, a in enumerate(inputs) if i not in host_indices and i not in metadata_indices]
        if device_inputs:
            raise err("host_memory_outputs", "host_memory_outputs needs every input declared in metadata_inputs "
                                             f"or host_memory_inputs; {device_inputs[0]!r} is in neither")

    return Op(name=name, family=family, summary=summary.strip(), doc=doc.strip(),
              inputs=inputs, outputs=outputs, type_vars=tuple(type_vars), attrs=attrs,
              shape_fn=shape_fn, python_names=tuple(py), tensor_methods=tuple(methods),
              reusable_input=reusable, output_is_view=output_is_view, signature=signature,
              arg_docs=tuple((k, " ".join(v.split())) for k, v in arg_docs.items()),
              loc=f.loc(m.key_lines["name"]), wrapper_signature=wrapper_signature, stateful=stateful,
              waits_for_peers=waits_for_peers,
              grad=grad, output_tuple=output_tuple, host_memory_inputs=host_indices,
              metadata_inputs=metadata_indices, host_memory_outputs=host_output_indices)


def _arg_indices(f: _File, m: YMap, key: str, args: tuple, what: str, err) -> tuple[int, ...]:
    """The sorted indices of the arguments `key` names: single tensors
    before any list argument, within the first 32 (a bit mask each)."""
    items = m.get(key, YList())
    f.expect(items, YList, m.key_lines.get(key, m.line), f"{what}: {key!r}")
    noun = "output" if key.endswith("outputs") else "input"
    indices = []
    for item in items:
        index = next((i for i, a in enumerate(args) if a.name == item), None)
        if index is None:
            raise err(key, f"{key}: no {noun} {item!r}")
        if any(a.is_list for a in args[:index + 1]):
            raise err(key, f"{key}: {item!r} must be a single tensor before any list {noun}")
        if index >= 32:
            raise err(key, f"{key}: {item!r} is past the first 32 {noun}s")
        indices.append(index)
    return tuple(sorted(set(indices)))


def _parse_attrs(f: _File, m: YMap, what: str, err) -> tuple[Attr, ...]:
    items = m.get("attrs", YList())
    f.expect(items, YList, m.key_lines.get("attrs", m.line), f"{what}: 'attrs'")
    attrs = []
    for a, line in zip(items, items.item_lines):
        f.expect(a, YMap, line, f"{what}: an attr")
        f.check_keys(a, {"name", "type", "optional", "default"}, {"name", "type"},
                     f"{what}: attr")
        name, type_ = a["name"], a["type"]
        if not isinstance(name, str) or not _IDENT.match(name):
            raise err(a.key_lines["name"], f"bad attr name {name!r}")
        if type_ not in ATTR_TYPES:
            raise err(a.key_lines["type"], f"attr {name!r}: unknown attr type {type_!r} "
                                           f"(expected one of {list(ATTR_TYPES)})")
        if (name == "function" or name.endswith("_function")) and type_ != "int":
            # The runtime keeps such attrs' functions alive by this name
            # (IsFunctionAttr, Note [Function lifetime]).
            raise err(a.key_lines["type"], f"attr {name!r}: an attr named like a function id must be an int")
        optional = a.get("optional", False)
        f.expect(optional, bool, a.key_lines.get("optional", line), f"{what}: 'optional'")
        has_default = "default" in a or optional
        default = a.get("default")
        if "default" in a:
            default = _check_default(type_, optional, default,
                                     lambda msg: err(a.key_lines["default"],
                                                     f"attr {name!r}: {msg}"))
        attrs.append(Attr(name, type_, optional, has_default, default, f.loc(line)))
    return tuple(attrs)


def _check_default(type_: str, optional: bool, v: Any, fail) -> Any:
    """Returns the default normalized (lists to tuples), or raises fail(msg)."""
    if v is None:
        if not optional:
            raise fail("default null needs 'optional: true'")
        return None
    ok = {
        "bool": isinstance(v, bool),
        "int": isinstance(v, int) and not isinstance(v, bool),
        "float": isinstance(v, (int, float)) and not isinstance(v, bool),
        "string": isinstance(v, str),
        "list(int)": isinstance(v, list) and all(
            isinstance(x, int) and not isinstance(x, bool) for x in v),
        "dtype": v in DTYPES,
    }[type_]
    if not ok:
        raise fail(f"bad default {v!r} for type {type_!r}")
    if type_ == "float":
        return float(v)
    return tuple(v) if type_ == "list(int)" else v


def _check_shape_fn(m: YMap, inputs, outputs, attrs, err) -> ShapeFnSpec:
    fn_name = m["shape_fn"]
    spec = SHAPE_FNS.get(fn_name)
    if spec is None:
        raise err("shape_fn", f"unknown shape_fn {fn_name!r} (expected one of "
                              f"{sorted(SHAPE_FNS)})")
    n = len(inputs)
    if n < spec.min_inputs or (spec.max_inputs is not None and n > spec.max_inputs):
        want = (f"{spec.min_inputs}" if spec.max_inputs == spec.min_inputs
                else f"at least {spec.min_inputs}" if spec.max_inputs is None
                else f"{spec.min_inputs}..{spec.max_inputs}")
        raise err("shape_fn", f"shape_fn {fn_name!r} takes {want} input(s), op has {n}")
    if spec.num_outputs is not None and len(outputs) != spec.num_outputs:
        raise err("shape_fn", f"shape_fn {fn_name!r} sets exactly {spec.num_outputs} output(s), "
                              f"op has {len(outputs)}")
    want_attrs = ", ".join(f"{r.name or '<any>'}: {r.type}{' (optional)' if r.optional else ''}"
                           for r in spec.attrs) or "none"
    mismatch = err("shape_fn", f"shape_fn {fn_name!r} requires leading attrs [{want_attrs}]"
                               f"{'' if spec.extra_attrs else ' and no others'}; op has "
                               f"[{', '.join(f'{a.name}: {a.type}' for a in attrs)}]")
    if len(attrs) < len(spec.attrs) or (not spec.extra_attrs and len(attrs) > len(spec.attrs)):
        raise mismatch
    for req, a in zip(spec.attrs, attrs):
        if (req.name not in (None, a.name)) or req.type != a.type or req.optional != a.optional:
            raise mismatch
    return spec


def _check_global(defs: OpDefs) -> None:
    """Checks that exported names and tensor methods are unique."""
    exported: dict[str, Op] = {}
    namespaces = {full.split(".")[0] for op in defs.ops for full in op.python_names
                  if "." in full}
    for op in defs.ops:
        for full in op.python_names:
            if full in exported:
                raise OpDefError(f"{op.loc}: op {op.name!r}: python name {full!r} is already "
                                 f"exported by op {exported[full].name!r} ({exported[full].loc})")
            if full in namespaces:
                raise OpDefError(f"{op.loc}: op {op.name!r}: python name {full!r} collides "
                                 "with a namespace")
            exported[full] = op
    methods: dict[str, Op] = {}
    for op in defs.ops:
        for t in op.tensor_methods:
            if t.name in methods:
                raise OpDefError(f"{op.loc}: op {op.name!r}: tensor method {t.name!r} is "
                                 f"already set by op {methods[t.name].name!r}")
            methods[t.name] = op
