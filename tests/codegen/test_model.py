"""Tests for codegen/model.py: parsing the fixture and every validation error."""
import re
from pathlib import Path

import pytest

from codegen.model import OpDefError, load_op_defs

FIXTURES = Path(__file__).parent / "fixtures" / "op_defs"

_TYPES = (FIXTURES / "_types.yaml").read_text()

# A valid op; each error case below edits one line of it.
_GOOD = """\
ops:
  - name: good
    summary: A good op.
    inputs: [x: T, y: T]
    outputs: [z: T]
    type_vars: {T: numeric}
    attrs:
      - {name: transpose_a, type: bool, default: false}
      - {name: transpose_b, type: bool, default: false}
    shape_fn: matmul
    python: [good]
"""


def test_parses_fixture():
    defs = load_op_defs(FIXTURES)
    assert [op.name for op in defs.ops] == sorted(op.name for op in defs.ops)
    sub = defs.op("sub")
    assert [a.name for a in sub.inputs] == ["x", "y"]
    assert sub.type_vars[0].allowed == ("int32", "int64", "float32", "float64")
    assert [(t.name, t.reversed) for t in sub.tensor_methods] == [
        ("__sub__", False), ("__rsub__", True)]
    assert sub.reusable_input == 0 and sub.loc.line == 3
    assert defs.op("less").outputs[0].fixed_dtype == "bool"
    assert defs.op("div").type_vars[0].int_promotion == "float64"
    cast = defs.op("cast")
    assert cast.type_vars[1].bound_by_attr == "dtype"
    assert defs.op("fill").signature == ("dims", "value")
    axis, keepdims = defs.op("reduce_sum").attrs
    assert (axis.type, axis.optional, axis.has_default, axis.default) == (
        "list(int)", True, True, None)
    assert (keepdims.type, keepdims.default) == ("bool", False)
    fancy = {a.name: a.default for a in defs.op("fancy").attrs}
    assert fancy == {"alpha": 0.5, "count": 3, "mode": 'a"b', "sizes": (1, 2)}
    assert defs.namespaces()["math"] == [("sub", defs.op("sub")), ("truediv", defs.op("div"))]


def test_good_base_parses(tmp_path):
    assert [o.name for o in _load(tmp_path, _GOOD).ops] == ["good"]


def _load(tmp_path, text):
    (tmp_path / "_types.yaml").write_text(_TYPES)
    (tmp_path / "bad.yaml").write_text(text)
    return load_op_defs(tmp_path)


def _error(tmp_path, text, at_line_containing, *fragments):
    with pytest.raises(OpDefError) as e:
        _load(tmp_path, text)
    msg = str(e.value)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if at_line_containing in l)
    assert msg.startswith(f"{tmp_path / 'bad.yaml'}:{line}: "), msg
    for f in fragments:
        assert f in msg, msg


def _edit(old, new, text=_GOOD):
    assert old in text
    return text.replace(old, new)


def test_unknown_dtype(tmp_path):
    text = _edit("{T: numeric}", "{T: [float32, float33]}")
    _error(tmp_path, text, "float33", "op 'good'", "unknown dtype 'float33'")


def test_unknown_type_set(tmp_path):
    _error(tmp_path, _edit("{T: numeric}", "{T: numerik}"), "numerik",
           "unknown dtype or type set 'numerik'")


def test_unknown_type_var(tmp_path):
    _error(tmp_path, _edit("outputs: [z: T]", "outputs: [z: U]"), "[z: U]",
           "op 'good'", "unknown type var or dtype 'U'")


def test_duplicate_op_name(tmp_path):
    second = _GOOD.split("\n", 1)[1].replace("python: [good]", "python: [good2]")
    text = _GOOD + "\n" + second
    with pytest.raises(OpDefError) as e:
        _load(tmp_path, text)
    assert f"bad.yaml:{len(_GOOD.splitlines()) + 2}: " in str(e.value)
    assert "duplicate op name 'good'" in str(e.value)
    assert "bad.yaml:2" in str(e.value)  # points at the first definition


def test_duplicate_op_across_files(tmp_path):
    (tmp_path / "a.yaml").write_text(_GOOD)
    with pytest.raises(OpDefError, match=r"bad\.yaml:2: .*duplicate op name 'good'"):
        _load(tmp_path, _GOOD.replace("python: [good]", "python: [good2]"))


def test_unknown_shape_fn(tmp_path):
    _error(tmp_path, _edit("shape_fn: matmul", "shape_fn: matmull"), "shape_fn",
           "unknown shape_fn 'matmull'")


@pytest.mark.parametrize("old,new", [
    ("{name: transpose_a, type: bool, default: false}",
     "{name: adjoint_a, type: bool, default: false}"),                   # wrong name
    ("{name: transpose_b, type: bool, default: false}",
     "{name: transpose_b, type: int, default: 0}"),                      # wrong type
    ("    shape_fn: matmul", "    shape_fn: broadcast_binary"),          # takes no attrs
    ("      - {name: transpose_b, type: bool, default: false}\n",
     "      - {name: transpose_b, type: bool, default: false}\n"
     "      - {name: extra, type: int, default: 0}\n"),                  # extra attr
])
def test_shape_fn_attr_mismatch(tmp_path, old, new):
    text = _edit(old, new)
    _error(tmp_path, text, "shape_fn", "requires leading attrs")


def test_shape_fn_input_count(tmp_path):
    _error(tmp_path, _edit("inputs: [x: T, y: T]", "inputs: [x: T]"), "shape_fn",
           "takes 2 input(s), op has 1")


def test_bad_attr_type(tmp_path):
    text = _edit("{name: transpose_b, type: bool,", "{name: transpose_b, type: boolean,")
    _error(tmp_path, text, "boolean", "unknown attr type 'boolean'")


@pytest.mark.parametrize("default", ["3", "null", "'false'", "[1]"])
def test_bad_default(tmp_path, default):
    text = _edit("type: bool, default: false}\n    shape_fn",
                 f"type: bool, default: {default}}}\n    shape_fn")
    _error(tmp_path, text, f"default: {default}", "attr 'transpose_b'",
           "optional" if default == "null" else "bad default")


def test_missing_summary(tmp_path):
    _error(tmp_path, _edit("    summary: A good op.\n", ""), "name: good",
           "missing required key 'summary'")


def test_unknown_key(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    pyhton: [x]"),
           "pyhton", "unknown key 'pyhton'")


def test_output_tuple_needs_several_outputs(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    output_tuple: Good"),
           "output_tuple", "output_tuple needs two or more outputs")


_TWO_OUTPUTS = """\
ops:
  - name: pair
    summary: An op with two outputs.
    inputs: [x: T]
    outputs: [values: T, indices: int32]
    type_vars: {T: numeric}
    attrs:
      - {name: k, type: int, default: 1}
      - {name: sorted, type: bool, default: true}
    shape_fn: top_k
    python: [pair]
    output_tuple: Pair
"""


def test_output_tuple_must_be_identifier(tmp_path):
    _error(tmp_path, _edit("output_tuple: Pair", "output_tuple: 2Pair", _TWO_OUTPUTS), "output_tuple",
           "must be a Python identifier")


def test_output_tuple_parses(tmp_path):
    assert _load(tmp_path, _TWO_OUTPUTS).op("pair").output_tuple == "Pair"


def test_tensor_method_arity(tmp_path):
    text = _edit("    python: [good]", "    python: [good]\n    tensor_methods: [__neg__]")
    _error(tmp_path, text, "__neg__", "needs an op with 1 input(s)")


def test_reflected_method_must_be_reversed(tmp_path):
    text = _edit("    python: [good]", "    python: [good]\n    tensor_methods: [__rmatmul__]")
    _error(tmp_path, text, "__rmatmul__", "must be marked ':reversed'")


def test_required_param_after_default(tmp_path):
    text = _edit("    python: [good]", "    python: [good]\n"
                 "    signature: [transpose_a, x, y, transpose_b]")
    _error(tmp_path, text, "inputs:", "parameter 'x' without a default")


def test_duplicate_python_name(tmp_path):
    (tmp_path / "a.yaml").write_text(_GOOD.replace("name: good", "name: other"))
    with pytest.raises(OpDefError, match=r"a\.yaml:2: op 'other': python name 'good' is "
                                         r"already exported by op 'good' \(.*bad\.yaml:2\)"):
        _load(tmp_path, _GOOD)


def test_duplicate_yaml_key(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    python: [x]"),
           "python: [x]", "duplicate key 'python'")


def test_yaml_syntax_error(tmp_path):
    with pytest.raises(OpDefError, match=r"bad\.yaml:\d+: invalid YAML"):
        _load(tmp_path, _edit("inputs: [x: T, y: T]", "inputs: [x: T, y: T"))


def test_real_op_defs_parse():
    op_defs_dir = Path(__file__).resolve().parents[2] / "op_defs"
    defs = load_op_defs(op_defs_dir)
    declared = {m for f in op_defs_dir.glob("*.yaml")
                for m in re.findall(r"^  - name: (\w+)", f.read_text(), re.M)}
    assert {op.name for op in defs.ops} == declared
    assert {"add", "matmul", "reduce_sum", "check_numerics"} <= declared
    matmul = defs.op("matmul")
    assert [a.name for a in matmul.attrs] == ["transpose_a", "transpose_b"]
    assert defs.op("divide").type_vars[0].int_promotion == "float64"


def test_host_memory_inputs_parse_to_indices(tmp_path):
    text = _edit("    python: [good]", "    python: [good]\n    host_memory_inputs: [y]")
    assert _load(tmp_path, text).op("good").host_memory_inputs == (1,)


def test_host_memory_inputs_must_name_an_input(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    host_memory_inputs: [z]"),
           "host_memory_inputs", "host_memory_inputs: no input 'z'")


def test_metadata_inputs_and_host_memory_outputs_parse_to_indices(tmp_path):
    text = _edit("    python: [good]", "    python: [good]\n    metadata_inputs: [x, y]\n    host_memory_outputs: [z]")
    op = _load(tmp_path, text).op("good")
    assert (op.metadata_inputs, op.host_memory_outputs) == ((0, 1), (0,))


def test_host_memory_outputs_need_every_input_on_the_host(tmp_path):
    # y would have to be read on the device, but the op runs on the host.
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    metadata_inputs: [x]\n"
                                                 "    host_memory_outputs: [z]"),
           "host_memory_outputs", "'y' is in neither")


def test_host_memory_outputs_must_name_an_output(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    host_memory_outputs: [x]"),
           "host_memory_outputs", "host_memory_outputs: no output 'x'")


def test_an_input_is_not_both_metadata_and_host_memory(tmp_path):
    _error(tmp_path, _edit("    python: [good]", "    python: [good]\n    metadata_inputs: [x]\n"
                                                 "    host_memory_inputs: [x]"),
           "metadata_inputs", "both a metadata input and a host-memory input")


def test_waits_for_peers_parses_and_needs_stateful(tmp_path):
    text = _edit("    python: [good]\n", "    python: [good]\n    stateful: true\n    waits_for_peers: true\n")
    (op,) = _load(tmp_path, text).ops
    assert op.stateful and op.waits_for_peers
    _error(tmp_path, _edit("    python: [good]\n", "    python: [good]\n    waits_for_peers: true\n"),
           "waits_for_peers", "must be stateful")
