"""Codegen of list arguments (Note [List arguments] in csrc/ops/op_def.h)."""
import pytest

from codegen.gen_cpp import generate_cpp
from codegen.gen_python import generate_python
from codegen.model import OpDefError, load_op_defs

_TYPES = "type_sets:\n  numeric: [int32, int64, float32, float64]\n"

_SPLIT_LIKE = """\
ops:
  - name: gather_all
    summary: Returns its inputs.
    inputs: [values: list(T), scale: T]
    outputs: [parts: list(T)]
    type_vars: {T: numeric}
    shape_fn: identity_n
    python: [gather_all]
"""


def _load(tmp_path, text):
    (tmp_path / "_types.yaml").write_text(_TYPES)
    (tmp_path / "lists.yaml").write_text(text)
    return load_op_defs(tmp_path)


def test_list_args_parse(tmp_path):
    text = _SPLIT_LIKE.replace("inputs: [values: list(T), scale: T]", "inputs: [values: list(T)]")
    op = _load(tmp_path, text).op("gather_all")
    assert [a.is_list for a in op.inputs] == [True]
    assert [a.is_list for a in op.outputs] == [True]
    assert op.outputs[0].type_var == "T"


def test_list_args_in_cpp_table(tmp_path):
    text = _SPLIT_LIKE.replace("inputs: [values: list(T), scale: T]", "inputs: [values: list(T)]")
    table = generate_cpp(_load(tmp_path, text))["ops/op_table.gen.cc"]
    assert '{"values", 0, DType::kBool, /*is_list=*/true}' in table
    assert '{"parts", 0, DType::kBool, /*is_list=*/true}' in table


def test_list_args_in_python(tmp_path):
    text = _SPLIT_LIKE.replace("inputs: [values: list(T), scale: T]", "inputs: [values: list(T)]")
    py = generate_python(_load(tmp_path, text))
    assert "def gather_all(values: Sequence[TensorLike], name: Optional[str] = ...) " \
           "-> list[Tensor]: ..." in py["ops.pyi"]
    assert "values: A list of `Tensor`s" in py["op_docs.py"]
    compile(py["ops.py"], "ops.py", "exec")
    compile(py["op_docs.py"], "op_docs.py", "exec")


def test_list_output_must_be_last(tmp_path):
    text = _SPLIT_LIKE.replace("outputs: [parts: list(T)]", "outputs: [parts: list(T), count: int32]")
    with pytest.raises(OpDefError, match=r"lists\.yaml:5: .*list output 'parts' must be the last output"):
        _load(tmp_path, text)
