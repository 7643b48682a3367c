"""Renders the Python bindings, type stubs and the op reference page."""
from __future__ import annotations

import textwrap

from codegen.model import Arg, Attr, Op, OpDefs
from codegen.render import render

_PY_TYPES = {
    "bool": "bool",
    "int": "int",
    "float": "float",
    "string": "str",
    "list(int)": "Union[int, Sequence[int]]",  # an int is one axis (attr_convert.cc)
    "dtype": "DTypeLike",
}


def py_default(attr: Attr) -> str:
    """The default as Python source; dtypes are passed by name ("float32")."""
    v = attr.default
    if isinstance(v, tuple):
        return "(" + ", ".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
    return repr(v)


def signature(op: Op, stub: bool = False) -> str:
    parts = []
    for pname in op.signature:
        p = op.param(pname)
        if isinstance(p, Arg):
            kind = "Sequence[TensorLike]" if p.is_list else "TensorLike"
            parts.append(f"{p.name}: {kind}" if stub else p.name)
            continue
        if stub:
            t = _PY_TYPES[p.type]
            t = f"Optional[{t}]" if p.optional else t
            parts.append(f"{p.name}: {t}" + (" = ..." if p.has_default else ""))
        else:
            parts.append(p.name + (f"={py_default(p)}" if p.has_default else ""))
    parts.append("name: Optional[str] = ..." if stub else "name=None")
    return ", ".join(parts)


def _type_desc(op: Op, a: Arg) -> str:
    if a.fixed_dtype == "any":
        return "any dtypes"
    return f"dtype `{a.type_var}`" if a.type_var else f"dtype `{a.fixed_dtype}`"


def type_var_line(op: Op, tv) -> str:
    text = f"{tv.name}: {', '.join(tv.allowed)}"
    if tv.bound_by_attr:
        text += f" (set by the `{tv.bound_by_attr}` argument)"
    if tv.int_promotion:
        text += f" (bool and integer inputs are computed in {tv.int_promotion})"
    return text


def _wrap(text: str, indent: str, width: int = 76) -> str:  # 76 + the def indent
    return textwrap.fill(text, width=width, initial_indent=indent,
                         subsequent_indent=indent + "  ")


def doc_text(op: Op) -> str:
    """The op function's docstring."""
    lines = [op.summary, ""]
    if op.doc:
        lines += op.doc.splitlines() + [""]
    lines.append("Args:")
    for pname in op.signature:
        p = op.param(pname)
        if isinstance(p, Arg) and p.is_list:
            desc = f"A list of `Tensor`s (or tensor-like values) of {_type_desc(op, p)}."
        elif isinstance(p, Arg):
            desc = f"A `Tensor` (or tensor-like value) of {_type_desc(op, p)}."
        else:
            desc = f"{'An optional' if p.optional else 'A'} `{p.type}`."
            if p.has_default:
                desc += f" Defaults to `{py_default(p)}`."
        extra = op.arg_doc(pname)
        lines.append(_wrap(f"{pname}: {desc}" + (f" {extra}" if extra else ""), "  "))
    lines += ["  name: Ignored in eager mode; accepted for TensorFlow compatibility.", "",
              "Returns:"]
    for o in op.outputs:
        extra = op.arg_doc(o.name)
        what = "A list of `Tensor`s" if o.is_list else "A `Tensor`"
        lines.append(_wrap(f"{what} of {_type_desc(op, o)} (`{o.name}`)."
                           + (f" {extra}" if extra else ""), "  "))
    if op.type_vars:
        lines += ["", "Dtypes:"] + [_wrap(type_var_line(op, t), "  ") for t in op.type_vars]
    return "\n".join(lines)


def _escaped(text: str) -> str:
    """text for a triple-quoted literal."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _op_view(op: Op) -> dict:
    args = [a.name for a in op.inputs] + [a.name for a in op.attrs]
    return {
        "name": op.name,
        "const": "_OP_" + op.name.upper(),
        "signature": signature(op),
        "text_signature": repr("(" + signature(op) + ")"),
        "stub_signature": op.wrapper_signature or signature(op, stub=True),
        "doc": _escaped(doc_text(op)) + "\n",
        "params": _tuple_source(op.signature),
        "call_order": _tuple_source(args),
        "defaults": "{" + ", ".join(f"{p.name!r}: {py_default(p)}" for p in
                                    (op.param(n) for n in op.signature)
                                    if not isinstance(p, Arg) and p.has_default) + "}",
        "returns": _returns(op),
        "output_tuple": op.output_tuple,
        "output_names": [o.name for o in op.outputs],
    }


def _tuple_source(names) -> str:
    return "(" + "".join(f"{n!r}, " for n in names).rstrip() + ")" if len(names) != 1 else f"({names[0]!r},)"


def _returns(op: Op) -> str:
    """The stub's return type: a list output is a list of tensors."""
    if op.output_tuple:
        return "tuple[Tensor, ...]"
    kinds = ["list[Tensor]" if o.is_list else "Tensor" for o in op.outputs]
    return kinds[0] if len(kinds) == 1 else f"tuple[{', '.join(kinds)}]"


def _namespace_view(defs: OpDefs, ns: str) -> list[dict]:
    return [{"short": short, "op": op.name, "alias": short != op.name}
            for short, op in defs.namespaces()[ns]]


def generate_python(defs: OpDefs) -> dict[str, str]:
    """Returns {relative path: content} for the --py-out directory."""
    ops = [_op_view(op) for op in defs.ops]
    methods = [{"method": t.name, "op": op.name, "reversed": t.reversed}
               for op in defs.ops for t in op.tensor_methods]
    namespaces = [ns for ns in defs.namespaces() if ns]
    out = {
        "ops.py": render("ops.py.j2", ops=ops, methods=methods),
        "op_docs.py": render("op_docs.py.j2", ops=ops),
        "ops.pyi": render("ops.pyi.j2", ops=ops, methods=[
            {"method": t.name, "unary": len(op.inputs) == 1,
             # Element-wise == and != return tensors, not bool, as in TensorFlow.
             "override": t.name in ("__eq__", "__ne__")}
            for op in defs.ops for t in op.tensor_methods]),
        "__init__.py": render("init.py.j2", namespaces=namespaces,
                              top_level=_namespace_view(defs, "")),
        "gradients.py": render(
            "gradients.py.j2",
            functions=[{"op": op.name, "family": op.family, "fn": op.grad}
                       for op in defs.ops if op.grad not in (None, "none")],
            not_differentiable=[op.name for op in defs.ops if op.grad == "none"]),
    }
    for ns in namespaces:
        names = _namespace_view(defs, ns)
        out[f"{ns}.py"] = render("namespace.py.j2", ns=ns, names=names, stub=False)
        out[f"{ns}.pyi"] = render("namespace.py.j2", ns=ns, names=names, stub=True)
    return out


def _memory_line(op) -> str:
    """Host-memory declarations in words (docs/devices.md, "Host memory");
    empty for the ops that have none."""
    parts = []
    if op.metadata_inputs:
        parts.append("reads only the shape of " + ", ".join(f"`{op.inputs[i].name}`" for i in op.metadata_inputs))
    if op.host_memory_inputs:
        parts.append("reads " + ", ".join(f"`{op.inputs[i].name}`" for i in op.host_memory_inputs) + " in host memory")
    if op.host_memory_outputs:
        parts.append(", ".join(f"`{op.outputs[i].name}`" for i in op.host_memory_outputs) +
                     " in host memory (runs on the host)")
    return "; ".join(parts)


def generate_docs(defs: OpDefs) -> str:
    families: dict[str, list[dict]] = {}
    for op in sorted(defs.ops, key=lambda o: (o.family, o.name)):
        families.setdefault(op.family, []).append({
            "name": op.name,
            "signature": f"{op.python_names[0]}({op.wrapper_signature or signature(op)})",
            "summary": op.summary,
            "doc": op.doc,
            "names": ", ".join(f"`ember.{n}`" for n in op.python_names),
            "methods": ", ".join(f"`{t.name}`" for t in op.tensor_methods),
            "dtypes": [type_var_line(op, t) for t in op.type_vars],
            "params": [(p, op.arg_doc(p)) for p in op.signature if op.arg_doc(p)],
            "outputs": [f"{o.name}: {'list(' + o.type_name + ')' if o.is_list else o.type_name}"
                        for o in op.outputs],
            "shape_fn": op.shape_fn.name,
            "grad": ("not differentiable" if op.grad == "none" else
                     "none yet" if op.grad is None else f"`{op.grad}` in `python/ember/_grads/{op.family}.py`"),
            "memory": _memory_line(op),
            "loc": str(op.loc),
        })
    return render("ops.md.j2", families=families, num_ops=len(defs.ops))
