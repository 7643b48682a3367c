"""What the fuzzer calls: every public Ember callable, with a description of its parameters.

Two sources, in this order:

1. The op definitions. ``codegen.model.load_op_defs`` reads ``op_defs/*.yaml``
   (names, public Python names, parameter order, attribute types, defaults
   and docs); ``ember._C._op_info`` gives the dtypes the installed binary
   accepts for each type variable. A hand-written wrapper under an op's
   public name (``ember.pad``, ``ember.nn.conv2d``) keeps the op's knowledge
   for each parameter it shares by name.
2. A walk of the public namespaces (``ember``, ``ember.nn``, ``ember.math``,
   ``ember.random``, ...) for the callables no op covers, and the methods of
   ``Tensor``, ``Variable``, ``random.Generator`` and ``TensorSpec``. Their
   parameters are described by name (``shape``, ``axis``, ``dtype``, ``seed``).
"""

import dataclasses
import inspect
import pathlib
import re
import sys
import types
from typing import Optional

import ember

from values import DTYPES

REPO = pathlib.Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class Param:
    name: str
    # tensor, tensors (a list input), bool, int, float, string, list(int), dtype (the op attr
    # types), or a hint for parameters known by name only: shape, axis, seed, equation, ...
    kind: str
    dtypes: tuple = DTYPES
    required: bool = True
    choices: tuple = ()  # source text of valid values, for strings
    star: bool = False  # *args: any number of values


@dataclasses.dataclass(frozen=True)
class Target:
    name: str  # how findings name it: "ember.nn.conv2d", "Tensor.reshape"
    callee: str  # source of the callable; "{recv}" stands for the receiver
    params: tuple
    receiver: Optional[str] = None  # tensor, variable, generator, spec: an object the call is made on
    op: Optional[str] = None  # the op behind it, if any
    traceable: bool = True  # may run inside @ember.function (constructors of variables may not)


# Valid values of string attributes and of parameters with these names (source text).
STRING_CHOICES = {
    "padding": ("'SAME'", "'VALID'", "'EXPLICIT'", "[[0, 0], [1, 1], [1, 1], [0, 0]]",
                "[[0, 0], [2**62, 1], [0, 0], [0, 0]]", "[[0, 0], [-3, 1], [1, 1], [0, 0]]"),
    "data_format": ("'NHWC'", "'NCHW'", "None"),
    "mode": ("'CONSTANT'", "'REFLECT'", "'SYMMETRIC'", "'reflect'"),
    "direction": ("'ASCENDING'", "'DESCENDING'"),
    "ord": ("'euclidean'", "'fro'", "1", "2", "np.inf", "'inf'", "0", "-1", "'nuc'"),
    "output_stream": ("'stderr'", "'stdout'", "'file'"),
    "message": ("'check'", "'%s %d {}'"),
    "format": ("'{}'", "'{} {}'", "'{'", "'{0}{1}{2}'"),
    "alg": ("'philox'", "'threefry'", "'auto_select'", "None", "1"),
    "rng_alg": ("'philox'", "None", "3"),
    "sep": ("' '", "''"),
    "end": ("'\\n'", "''"),
    "name": ("'n'", "None"),
    "device": ("'cpu:0'", "'cpu'", "'/device:CPU:0'", "'gpu:0'", "'cpu:99'", "'cpu:-1'", "'cpu:2**63'",
               "'/job:x/device:CPU:0'", "':'", "None"),
}
EQUATIONS = ("'ij,jk->ik'", "'ij->ji'", "'i,i->'", "'ii->i'", "'bij,bjk->bik'", "'...ij->...ji'", "'i->'",
             "'ij'", "'i,j->ij'", "'ij,jk'", "'...,...->...'", "''", "'->'", "'i->j'", "'ij->i->'",
             "'a' * 100", "'\\u00e9->\\u00e9'", "'ij,,jk->ik'", "'0->0'", "'i' * 60 + '->'",
             "'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ->'", "'...i...->i'", "'i..->i'",
             "'ij->jj'", "'\\ud800'", "'ij->ij ' * 3", "'I,I->I'")

# Parameter names -> hint kinds, for callables no op describes.
_HINTS = {
    "shape": "shape", "dims": "shape", "output_shape": "shape", "noise_shape": "shape", "multiples": "shape",
    "dtype": "dtype", "out_type": "dtype", "dtype_hint": "dtype", "output_type": "dtype", "index_type": "dtype",
    "seed": "seed", "axis": "axis", "axes": "axes", "perm": "axes", "equation": "equation",
    "text": "text", "keepdims": "bool", "trainable": "bool", "read_value": "bool", "use_locking": "bool",
    "enabled": "bool", "transpose_a": "bool", "transpose_b": "bool", "reduce_retracing": "bool",
    "jit_compile": "bool", "copy": "bool", "num": "int", "count": "int", "k": "int", "capacity": "int",
    "summarize": "int", "maximum_iterations": "int", "batch_dims": "int", "depth": "int",
    "num_or_size_splits": "splits", "state": "state", "copy_from": "generator", "generator": "generator",
    "true_fn": "callable", "false_fn": "callable", "fn": "callable", "func": "callable", "body": "body",
    "cond": "cond", "loop_vars": "tensors", "values": "tensors", "inputs": "tensors",
    "input_signature": "signature", "shape_invariants": "invariants", "output_stream": "string",
    "strides": "list(int)", "dilations": "list(int)", "ksize": "list(int)", "paddings": "list(int)",
    "begin": "list(int)", "size": "list(int)", "shift": "list(int)", "max_norm": "float", "rate": "float", "epsilon": "float", "variance_epsilon": "float", "alpha": "float",
}
for _name in STRING_CHOICES:
    _HINTS.setdefault(_name, "string")


def hint(name):
    return _HINTS.get(name, "tensor")


# Callables that change the fuzzer's own footing or only wait: not fuzzed.
# ConcreteFunction is made by tracing, never by users.
SKIP = {"ember.config.set_async", "ember.sync", "ember.random.Generator.from_non_deterministic_state",
        "ember.config.set_log_device_placement", "ember.config.run_functions_eagerly", "ember.ConcreteFunction"}


def _load_op_defs():
    sys.path.insert(0, str(REPO))
    try:
        from codegen.model import load_op_defs
    finally:
        sys.path.pop(0)
    return load_op_defs(REPO / "op_defs")


def _uppercase_choices(doc, default):
    """Valid string values an attr's doc names (SAME, VALID, ...), with its default."""
    words = set(re.findall(r"\b[A-Z][A-Z0-9_]{2,}\b", doc))
    if isinstance(default, str):
        words.add(default)
    return tuple(sorted(repr(w) for w in words))


def _op_params(op, info):
    """Param per input and attr of an op, by name."""
    type_vars = info["type_vars"]
    params = {}
    for arg in op.inputs:
        dtypes = tuple(type_vars.get(arg.type_var, ())) or ((arg.fixed_dtype,) if arg.fixed_dtype in DTYPES
                                                             else DTYPES)
        params[arg.name] = Param(arg.name, "tensors" if arg.is_list else "tensor", dtypes)
    for attr in op.attrs:
        choices = ()
        if attr.type == "string":
            choices = STRING_CHOICES.get(attr.name) or _uppercase_choices(op.arg_doc(attr.name), attr.default)
        allowed = DTYPES
        if attr.type == "dtype":  # a dtype attr bound to a type var takes that var's set
            allowed = next((tuple(type_vars[tv.name]) for tv in op.type_vars if tv.bound_by_attr == attr.name),
                           DTYPES)
        params[attr.name] = Param(attr.name, attr.type, allowed, not (attr.optional or attr.has_default), choices)
    return params


def _signature_params(fn, known=None, method=False):
    """Params of a Python callable, described by `known` (an op's params by name) or by name hints.

    A method's first parameter (the receiver) is left out."""
    known = known or {}
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # a C function without a signature: up to 3 values of any kind
        return (Param("args", "anything", star=True),)
    out = []
    for p in list(sig.parameters.values())[1 if method else 0:]:
        if p.kind == p.VAR_KEYWORD or p.name == "self":
            continue
        star = p.kind == p.VAR_POSITIONAL
        if p.name in known:
            out.append(dataclasses.replace(known[p.name], required=p.default is p.empty and not star, star=star))
        else:
            out.append(Param(p.name, hint(p.name), required=p.default is p.empty and not star, star=star))
    return tuple(out)


def op_targets(seen):
    """One target per distinct public function of each op, plus its raw_ops entry."""
    out = []
    for op in _load_op_defs().ops:
        try:
            info = ember._C._op_info(op.name)
        except Exception:  # noqa: BLE001 - an op the installed binary lacks: nothing to fuzz
            continue
        params = _op_params(op, info)
        for public in (*op.python_names, f"raw_ops.{op.name}"):
            fn = _resolve(public)
            if fn is None or id(fn) in seen or f"ember.{public}" in SKIP:
                continue
            seen.add(id(fn))
            out.append(Target(f"ember.{public}", f"ember.{public}", _signature_params(fn, params), op=op.name))
    out.append(Target("ember.execute", "ember.execute",
                      (Param("op_name", "op_name"), Param("inputs", "tensors"), Param("attrs", "attr_dict"))))
    seen.add(id(ember.execute))
    return out


def _resolve(dotted):
    obj = ember
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


NAMESPACES = ("", "nn", "math", "random", "linalg", "config", "debugging", "bitwise", "raw_ops", "signal", "image")


def api_targets(seen):
    """The public callables no op covers, found by walking the namespaces."""
    out = []
    for ns in NAMESPACES:
        module = _resolve(ns) if ns else ember
        prefix = f"ember.{ns}." if ns else "ember."
        for name in sorted(getattr(module, "__all__", None) or dir(module)):
            obj = getattr(module, name, None)
            if name.startswith("_") or isinstance(obj, (types.ModuleType, ember.DType)) or not callable(obj):
                continue
            if _from_private_module(obj) and name not in getattr(module, "__all__", ()):
                continue  # a helper imported into the namespace (ember.config.check_int), not its API
            if id(obj) in seen or f"{prefix}{name}" in SKIP:
                continue
            seen.add(id(obj))
            if isinstance(obj, type):
                out.extend(_class_targets(obj, f"{prefix}{name}"))
            else:
                out.append(Target(f"{prefix}{name}", f"{prefix}{name}", _signature_params(obj)))
    return out


def _from_private_module(obj):
    module = getattr(obj, "__module__", None) or ""
    return any(part.startswith("_") and part not in ("_generated", "_C") for part in module.split("."))


# Objects the method targets are called on, and how the fuzzer spells them.
RECEIVERS = {ember.Tensor: "tensor", ember.Variable: "variable", ember.random.Generator: "generator",
             ember.TensorSpec: "spec"}
# Special methods worth calling through their operator or builtin.
DUNDERS = ("__getitem__", "__setitem__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__truediv__",
           "__floordiv__", "__mod__", "__pow__", "__rpow__", "__matmul__", "__rmatmul__", "__and__", "__or__",
           "__xor__", "__invert__", "__neg__", "__abs__", "__lt__", "__le__", "__gt__", "__ge__", "__eq__",
           "__ne__", "__bool__", "__float__", "__int__", "__index__", "__len__", "__iter__", "__array__",
           "__format__", "__repr__", "__str__", "__lshift__", "__rshift__")


def _class_targets(cls, dotted):
    receiver = RECEIVERS.get(cls)
    out = []
    if not issubclass(cls, BaseException):
        out.append(Target(dotted, dotted, _signature_params(cls), traceable=cls is not ember.Variable))
    if receiver is None:
        return out
    for name in sorted(set(dir(cls))):
        if name.startswith("_") and (name not in DUNDERS or receiver not in ("tensor", "variable")):
            continue
        attr = inspect.getattr_static(cls, name, None)
        short = f"{cls.__name__}.{name}"
        if isinstance(attr, (classmethod, staticmethod)):
            fn = getattr(cls, name)
            if f"{dotted}.{name}" not in SKIP:
                out.append(Target(f"{dotted}.{name}", f"{dotted}.{name}", _signature_params(fn)))
        elif isinstance(attr, property) or not callable(getattr(cls, name, None)):
            continue  # attributes: only the receiver would vary
        else:
            fn = getattr(cls, name)
            params = _signature_params(fn, method=inspect.isfunction(fn))
            out.append(Target(short, f"{{recv}}.{name}", params, receiver=receiver))
    return out


def all_targets():
    seen = set()
    return op_targets(seen) + api_targets(seen)
