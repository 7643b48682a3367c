"""One fuzzed call: drawn from a Target with Hypothesis, rendered as the Python code that makes it.

The code is what the worker executes and what a finding records, so every
reproducer is exact. It comes in three modes:

- async: the default mode; every tensor in the result is read and
  ``ember.sync()`` runs, so kernel errors surface inside the call.
- sync: ``ember.config.set_async(False)``.
- function: array arguments become parameters of a function that
  ``ember.function`` traces and calls once.
"""

import dataclasses
import re

from hypothesis import strategies as st

import values as v
from targets import EQUATIONS, STRING_CHOICES

MODES = ("async", "sync", "function")

PRELUDE = """\
import functools
import numpy as np
import ember


def _read(out):  # reads every tensor of a result, so asynchronous kernel errors surface
    if isinstance(out, (list, tuple)):
        for item in out:
            _read(item)
    elif isinstance(out, (ember.Tensor, ember.Variable)):
        out.numpy()

"""


@dataclasses.dataclass(frozen=True)
class Call:
    target: str
    setup: tuple  # lines that make the receiver
    callee: str
    args: tuple  # Arg
    kwargs: tuple  # (name, Arg)
    traceable: bool = True
    recv_param: bool = False  # the receiver is a tensor: a parameter in function mode

    def code(self, mode):
        """The statements that make this call in `mode` (run after PRELUDE)."""
        lines = [f"ember.config.set_async({mode == 'async'})", *self.setup]
        if mode != "function" or not self.traceable:
            lines.append(f"out = {self._expr(lambda i, a: a.src)}")
        else:  # array arguments (and a tensor receiver) become the traced function's parameters
            names = {i: f"a{i}" for i, a in enumerate(self._all_args()) if a.tensor}
            lines += [f"{names[i]} = {a.src}" for i, a in enumerate(self._all_args()) if i in names]
            params = ", ".join((["recv"] if self.recv_param else []) + list(names.values()))
            lines.append(f"f = ember.function(lambda {params}: {self._expr(lambda i, a: names.get(i, a.src))})")
            lines.append(f"out = f({params})")
        lines += ["_read(out)", "ember.sync()"]
        return "\n".join(lines) + "\n"

    def script(self, mode):
        return PRELUDE + self.code(mode)

    def _all_args(self):
        return list(self.args) + [a for _, a in self.kwargs]

    def _expr(self, show):
        all_args = self._all_args()
        pos = [show(i, a) for i, a in enumerate(all_args[:len(self.args)])]
        kw = [f"{k}={show(len(self.args) + i, a)}" for i, (k, a) in enumerate(self.kwargs)]
        callee = self.callee.replace("{recv}", "recv")
        method = callee.rsplit(".", 1)[-1]
        if method == "__getitem__" and len(pos) == 1 and not kw:
            return f"recv[{pos[0]}]"
        if method == "__iter__" and not pos and not kw:
            return "list(iter(recv))"
        return f"{callee}({', '.join(pos + kw)})"


# --- Drawing a call ------------------------------------------------------------

RECEIVER_SETUP = {
    "tensor": lambda src: f"recv = ember.constant({src})",
    "variable": lambda src: f"recv = ember.Variable({src})",
}
GENERATOR_SEEDS = ("0", "1", "2**63 - 1", "2**64 - 1", "-1", "10**30")
SPEC_SHAPES = ("[None, 3]", "[2, 3]", "[]", "[None]", "[0]", "[2**62, 2**62]", "[-1]")
INDEXES = ("0", "-1", "1", "5", "-5", "2**63", "-2**63 - 1", "10**400", "slice(None, None, -1)",
           "slice(1, None, 2)", "slice(None, None, 0)", "slice(-2**63, 2**63)", "slice(2**62, None, 2**62)", "...",
           "None", "(None, ...)", "(..., ...)", "(0, 0, 0, 0, 0, 0)", "[0, 1]", "[[0], [1]]", "[-10]", "[True]",
           "np.array([0, -1])", "np.array([2**40])", "np.array([], 'int64')", "np.array([0.5])", "np.array(0)",
           "np.array([True, False, True])", "np.frombuffer(b'\\x02\\x01', np.bool_)", "ember.constant([0, 1])",
           "ember.constant(True)", "(slice(None), None, 0)", "'a'", "1.5", "(0, [0, 1], slice(None))",
           "([0, 1], [1, 0])", "np.zeros((2, 2), 'int32')", "np.uint64(2**64 - 1)", "[slice(0, 1)]")
FUNCTIONS = ("lambda: ember.constant(1.0)", "lambda: (ember.constant(1), ember.constant([2.0]))",
             "lambda *a: a", "lambda: None", "lambda: [ember.constant(1.0)]", "lambda: 3", "None", "5",
             "lambda: ember.zeros([2**40])", "lambda: ember.constant([1.0, 2.0])[5]")
CONDS = ("lambda *a: False", "lambda i, *r: i < 3", "lambda *a: ember.constant(False)",
         "lambda *a: ember.constant([True, False])", "lambda *a: None", "5")
BODIES = ("lambda *a: a", "lambda i, *r: (i + 1, *r)", "lambda *a: [x * 2 for x in a]", "lambda *a: ()",
          "lambda *a: ember.constant(1.0)", "lambda i, *r: (ember.cast(i, ember.float64), *r)")
TEXT_SEEDS = ("''", "'\\ud800'", "'graph {'", "'graph f(a: float32[2]) -> (b) { b = add(a, a) }'", "None", "5")


@st.composite
def draw_call(draw, target, texts=()):
    """A Call of `target`: receiver, then each parameter (optional ones only sometimes)."""
    base = draw(v.plausible_shape())
    setup = []
    if target.receiver in RECEIVER_SETUP:
        recv = draw(v.plausible_tensor()) if draw(st.integers(0, 7)) else v.Arg(draw(st.sampled_from(v.ODD_ARRAYS)))
        base = recv.shape if recv.shape is not None else base
        setup.append(RECEIVER_SETUP[target.receiver](recv.src))
    elif target.receiver == "generator":
        setup.append(f"recv = ember.random.Generator.from_seed({draw(st.sampled_from(GENERATOR_SEEDS))})")
    elif target.receiver == "spec":
        setup.append(f"recv = ember.TensorSpec({draw(st.sampled_from(SPEC_SHAPES))}, "
                     f"{draw(v.dtypes()).src})")
    ctx = {"rank": len(base), "base": base, "texts": texts}
    args, kwargs, positional, fitted = [], [], True, target.receiver in RECEIVER_SETUP
    for p in target.params:
        if p.star:
            args += [draw(value(p, ctx)) for _ in range(draw(st.integers(0, 3)))]
            positional = False
            continue
        if not p.required and draw(st.integers(0, 9)) < 4:
            positional = False  # left out: the later ones must be passed by name
            continue
        arg = draw(value(p, ctx))
        if positional and (p.required or draw(st.booleans())):
            args.append(arg)
        else:
            positional = False
            kwargs.append((p.name, arg))
        if arg.shape is not None and p.kind == "tensor" and not fitted:
            ctx["rank"], ctx["base"], fitted = len(arg.shape), arg.shape, True  # axes follow the first tensor
    if target.callee.endswith("__getitem__"):
        args, kwargs = [v.Arg(draw(st.sampled_from(INDEXES)))], []
    return Call(target.name, tuple(setup), target.callee, tuple(args), tuple(kwargs), target.traceable,
                target.receiver == "tensor")


def value(p, ctx):
    """The strategy for one parameter, by its kind."""
    rank, base = ctx["rank"], ctx["base"]
    kind, name = p.kind, p.name
    if kind == "tensor":
        return st.one_of(v.tensor(p.dtypes, base), v.tensor(p.dtypes, base), v.tensor(p.dtypes))
    if kind == "tensors":
        return tensor_list(p.dtypes, base)
    if kind == "int":
        return v.axis(rank) if name in ("axis", "batch_dims") else v.ints()
    if kind == "list(int)":
        if name in ("axis", "perm", "axes"):
            return v.axis_list(rank)
        if name in ("shape", "dims", "output_shape"):
            return v.shape(base)
        return v.int_list(rank)
    if kind == "shape":
        return v.shape(base)
    if kind in ("axis", "axes"):
        return v.axis_list(rank)
    if kind == "float":
        return v.floats()
    if kind == "bool":
        return v.bools()
    if kind == "dtype":
        return v.dtypes(p.dtypes)
    if kind == "string":
        valid = st.sampled_from(p.choices or STRING_CHOICES.get(name) or ("'a'",)).map(v.Arg)
        return st.one_of(valid, valid, v.strings(()))
    if kind == "seed":
        return v.seeds()
    if kind == "equation":
        return st.sampled_from(EQUATIONS).map(v.Arg)
    if kind == "splits":
        return st.one_of(v.ints(-1, 4), v.int_list(2), v.tensor(("int32", "int64")))
    if kind == "state":
        return st.sampled_from(("(0, 1)", "[2**64, -1]", "(1,)", "None", "(1.5, 2)", "np.array([1, 2])",
                                "(10**400, 0)", "ember.constant([1, 2])")).map(v.Arg)
    if kind == "generator":
        return st.sampled_from(("ember.random.Generator.from_seed(1)", "None", "5", "'g'")).map(v.Arg)
    if kind == "callable":
        return st.sampled_from(FUNCTIONS).map(v.Arg)
    if kind == "cond":
        return st.sampled_from(CONDS).map(v.Arg)
    if kind == "body":
        return st.sampled_from(BODIES).map(v.Arg)
    if kind == "signature":
        return st.sampled_from(("None", "[ember.TensorSpec([None], ember.float32)]", "[]", "[None]", "5",
                                "[ember.TensorSpec([2**63], 'int8')]")).map(v.Arg)
    if kind == "invariants":
        return st.sampled_from(("None", "[None]", "[[None]]", "[]", "[[2**63]]", "[ember.TensorSpec([None])]",
                                "[[1, 2, 3]]")).map(v.Arg)
    if kind == "text":
        return text(ctx["texts"])
    if kind == "op_name":
        return st.sampled_from(("'add'", "'reshape'", "'pad'", "'call_function'", "'cond'", "'while_loop'",
                                "'print'", "'split'", "'concat'", "'gather'", "'nope'", "''", "'\\ud800'",
                                "'stateless_random_uniform'", "'transfer'", "None")).map(v.Arg)
    if kind == "attr_dict":
        return st.sampled_from(("{}", "{'axis': 0}", "{'shape': [2**62]}", "{'nope': 1}", "{1: 2}",
                                "{'f': 2**63}", "{'then_branch': 10**6}", "{'function_id': -1}",
                                "{'num_captures': 2**31}", "{'dtype': 'complex128'}", "{'\\ud800': 1}",
                                "{'paddings': [2**62, 2**62]}", "None", "[]")).map(v.Arg)
    if kind == "anything":
        return v.anything()
    # An unknown parameter: usually a tensor, sometimes anything at all.
    return st.one_of(v.tensor(shape=base), v.tensor(), v.anything())


@st.composite
def tensor_list(draw, dtypes, base):
    """A list input: tensors of one dtype and shape (usually) or a broken list."""
    if draw(st.integers(0, 4)) == 0:
        return v.Arg(draw(st.sampled_from(("[]", "None", "np.zeros((2, 3), 'float32')", "[[]]", "'ab'",
                                          "[np.zeros(2, 'float32')] * 1000", "[1, 'a']", "(x for x in [1])"))),
                     tensor=False)
    dtype = draw(st.sampled_from(tuple(dtypes) or v.DTYPES))
    items = [draw(v.tensor((dtype,), base)).src for _ in range(draw(st.integers(1, 4)))]
    return v.Arg("[" + ", ".join(items) + "]", tensor=True)


@st.composite
def text(draw, texts):
    """Graph text for function_from_text: a real function's text, cut or with a token replaced."""
    if not texts or draw(st.integers(0, 4)) == 0:
        return v.Arg(draw(st.sampled_from(TEXT_SEEDS)))
    base = draw(st.sampled_from(texts))
    how = draw(st.integers(0, 3))
    if how == 0:
        cut = draw(st.integers(0, len(base)))
        return v.Arg(repr(base[:cut]))
    if how == 1:  # a number replaced by an extreme one
        spans = [m.span() for m in re.finditer(r"-?\d+", base)]
        if spans:
            start, end = draw(st.sampled_from(spans))
            extreme = draw(st.sampled_from(("9223372036854775808", "-1", "4294967296", "99999999999999999999",
                                            "0", "-9223372036854775809")))
            return v.Arg(repr(base[:start] + extreme + base[end:]))
    if how == 2:  # a character replaced
        i = draw(st.integers(0, max(len(base) - 1, 0)))
        ch = draw(st.sampled_from(("\x00", "\ud800", "{", "}", "(", ",", ":", " ", "\n", "%", "=")))
        return v.Arg(repr(base[:i] + ch + base[i + 1:]))
    return v.Arg(repr(base))
