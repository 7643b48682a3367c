"""Renders the C++ op tables (ops/*.gen.*) from the op data model."""
from __future__ import annotations

from codegen.model import ANY_DTYPE, DTYPES, ATTR_TYPES, Attr, Arg, Op, OpDefs, camel
from codegen.render import render

_CPP_FIELD_TYPES = {
    "bool": "bool",
    "int": "int64_t",
    "float": "double",
    "string": "std::string",
    "list(int)": "std::vector<int64_t>",
    "dtype": "DType",
}
_GETTERS = {
    "bool": "as_bool",
    "int": "as_int",
    "float": "as_float",
    "string": "as_string",
    "list(int)": "as_int_list",
    "dtype": "as_dtype",
}


# The C++ element type kernels are instantiated with, per dtype name.
CPP_ELEMENT_TYPES = {
    "bool": "bool",
    "int32": "int32_t",
    "int64": "int64_t",
    "float32": "float",
    "float64": "double",
    "float16": "Eigen::half",
    "bfloat16": "Eigen::bfloat16",
    "int8": "int8_t",
    "int16": "int16_t",
    "uint8": "uint8_t",
    "complex64": "std::complex<float>",
}

# DType enumerators whose spelling is not camel(name).
_ENUM_NAMES = {"bfloat16": "BFloat16", "uint8": "UInt8"}


def dtype_enum(name: str) -> str:
    return "DType::k" + _ENUM_NAMES.get(name, camel(name))


def dtype_set(allowed: tuple[str, ...]) -> str:
    bits = sum(1 << DTYPES.index(d) for d in allowed)
    return f"DTypeSet(0x{bits:02x}u) /* {', '.join(allowed)} */"


def _string_literal(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def attr_value(attr: Attr) -> str:
    v = attr.default
    if not attr.has_default or v is None:
        return "AttrValue()"
    if attr.type == "bool":
        return f"AttrValue({'true' if v else 'false'})"
    if attr.type == "int":
        return f"AttrValue(int64_t{{{v}}})"
    if attr.type == "float":
        return f"AttrValue({float(v)!r})"
    if attr.type == "string":
        return f"AttrValue(std::string({_string_literal(v)}))"
    if attr.type == "list(int)":
        return f"AttrValue(std::vector<int64_t>{{{', '.join(str(x) for x in v)}}})"
    return f"AttrValue({dtype_enum(v)})"


def _arg(op: Op, a: Arg) -> str:
    if a.fixed_dtype == ANY_DTYPE:
        return f'{{"{a.name}", kAnyDTypeVar, DType::kBool, /*is_list=*/true}}'
    type_var = op.type_var_index(a.type_var) if a.type_var is not None else -1
    fixed = dtype_enum(a.fixed_dtype) if a.type_var is None else "DType::kBool"
    if a.is_list:
        return f'{{"{a.name}", {type_var}, {fixed}, /*is_list=*/true}}'
    if a.type_var is not None:
        return f'{{"{a.name}", {type_var}}}'
    return f'{{"{a.name}", -1, {fixed}}}'


def _op_view(op: Op) -> dict:
    type_vars = []
    for t in op.type_vars:
        bound = op.attr_index(t.bound_by_attr) if t.bound_by_attr else -1
        promo = f"static_cast<int>({dtype_enum(t.int_promotion)})" if t.int_promotion else "-1"
        type_vars.append(f'{{"{t.name}", {dtype_set(t.allowed)}, {bound}, {promo}}}')
    attrs = [f'{{"{a.name}", AttrType::{ATTR_TYPES[a.type]}, {str(a.optional).lower()}, '
             f'{str(a.has_default).lower()}, {attr_value(a)}}}' for a in op.attrs]
    fields = []
    for i, a in enumerate(op.attrs):
        ctype = _CPP_FIELD_TYPES[a.type]
        get = f"a[{i}].{_GETTERS[a.type]}()"
        if a.optional:
            ctype = f"std::optional<{ctype}>"
            get = f"OptionalAttr(a[{i}], &AttrValue::{_GETTERS[a.type]})"
        fields.append({"name": a.name, "type": ctype, "init": get})
    return {
        "name": op.name,
        "camel": op.camel,
        "inputs": [_arg(op, a) for a in op.inputs],
        "outputs": [_arg(op, a) for a in op.outputs],
        "type_vars": type_vars,
        "attrs": attrs,
        "fields": fields,
        "shape_fn": op.shape_fn.cpp_name,
        "reusable_input": -1 if op.reusable_input is None else op.reusable_input,
        "output_is_view": op.output_is_view,
        "stateful": op.stateful,
        "waits_for_peers": op.waits_for_peers,
        "host_memory_inputs": sum(1 << i for i in op.host_memory_inputs),
        "metadata_inputs": sum(1 << i for i in op.metadata_inputs),
        "host_memory_outputs": sum(1 << i for i in op.host_memory_outputs),
        "grad": op.grad,
        "loc": str(op.loc),
    }


def generate_cpp(defs: OpDefs) -> dict[str, str]:
    """Returns {relative path: content} for the --cpp-out directory."""
    ops = [_op_view(op) for op in defs.ops]
    ctx = {"ops": ops, "num_ops": len(ops)}
    # Note [Per-family attrs headers]: a kernel includes only the attrs of
    # its own family (ops/attrs/<file stem>.gen.h), so adding an op to one
    # family does not recompile the kernels of every other family.
    families = sorted({op.family for op in defs.ops})
    type_sets = [{"camel": camel(name), "name": name,
                  "types": [CPP_ELEMENT_TYPES[d] for d in members]}
                 for name, members in defs.type_sets]
    out = {
        "ops/type_sets.gen.h": render("type_sets.gen.h.j2", type_sets=type_sets),
        "ops/op_ids.gen.h": render("op_ids.gen.h.j2", **ctx),
        "ops/op_attrs.gen.h": render("op_attrs_all.gen.h.j2", families=families),
        "ops/op_table.gen.cc": render("op_table.gen.cc.j2", **ctx),
    }
    for family in families:
        members = [v for v, op in zip(ops, defs.ops) if op.family == family]
        out[f"ops/attrs/{family}.gen.h"] = render("op_attrs.gen.h.j2", ops=members, family=family)
    return out
