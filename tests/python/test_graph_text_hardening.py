"""Malformed graph text, and control flow given bad predicates or loop
bounds: each case is a clean error, never a crash, hang or buffer overrun."""

import re

import numpy as np
import pytest

import ember


def _transpose_text():
    @ember.function
    def f(x):
        return ember.transpose(ember.nn.relu(x))

    return f.get_concrete_function(ember.TensorSpec([2, 3], ember.float32)).graph.to_text()


TEXT = None


def _text():
    global TEXT
    if TEXT is None:
        TEXT = _transpose_text()
    return TEXT


def _lines():
    return _text().rstrip("\n").split("\n")


def _with_line(index, edit):
    """The base text with line `index` (0-based) replaced by edit(fields)."""
    lines = _lines()
    fields = lines[index].split(" ")
    lines[index] = " ".join(edit(fields))
    return "\n".join(lines) + "\n"


def _set(field, value):
    def edit(fields):
        fields[field] = value
        return fields
    return edit


def _node_line(op):
    return next(i for i, line in enumerate(_lines()) if line.startswith("node ") and line.split(" ")[2] == op)


def test_base_text_reads_and_runs():
    fn = ember.function_from_text(_text())
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    np.testing.assert_allclose(fn(ember.constant(x)).numpy(), np.maximum(x, 0).T)


CASES = {
    # node ids out of range or not in order
    "id_skips": lambda: _with_line(_node_line("relu"), _set(1, "5")),
    "id_not_a_number": lambda: _with_line(_node_line("relu"), _set(1, "1x")),
    "id_overflows": lambda: _with_line(_node_line("relu"), _set(1, "99999999999999999999")),
    # endpoints naming nonexistent nodes or outputs
    "input_later_node": lambda: _with_line(_node_line("relu"), _set(3, "7:0")),
    "input_negative_node": lambda: _with_line(_node_line("relu"), _set(3, "-1:0")),
    "input_missing_output": lambda: _with_line(_node_line("relu"), _set(3, "0:3")),
    "input_huge_output": lambda: _with_line(_node_line("relu"), _set(3, "0:99999999999999999999")),
    "input_no_colon": lambda: _with_line(_node_line("relu"), _set(3, "0")),
    "return_missing_node": lambda: _with_line(-1, _set(1, "9:0")),
    "return_missing_output": lambda: _with_line(-1, _set(1, "1:4")),
    # ops, arity, attrs
    "unknown_op": lambda: _with_line(_node_line("relu"), _set(2, "no_such_op")),
    "too_many_inputs": lambda: _with_line(_node_line("relu"), _set(3, "0:0,0:0")),
    "too_few_inputs": lambda: _with_line(_node_line("relu"), _set(3, "-")),
    "attr_count": lambda: _with_line(_node_line("relu"), _set(7, "b1")),
    "attr_type": lambda: _with_line(_node_line("transpose"), _set(7, "b1")),
    "attr_int_overflow": lambda: _with_line(_node_line("transpose"), _set(7, "l99999999999999999999|0")),
    "attr_bool_garbage": lambda: _with_line(_node_line("transpose"), _set(7, "lx")),
    "bad_binding": lambda: _with_line(_node_line("relu"), _set(6, "float99")),
    "binding_not_allowed": lambda: _with_line(_node_line("relu"), _set(6, "bool")),
    "binding_count": lambda: _with_line(_node_line("relu"), _set(6, "float32,float32")),
    "input_dtype_mismatch": lambda: _with_line(1, _set(3, "int32[2,3]")),
    # values and shapes
    "bad_dtype": lambda: _with_line(1, _set(3, "float99[2,3]")),
    "dim_negative": lambda: _with_line(1, _set(3, "float32[-5,3]")),
    "dim_garbage": lambda: _with_line(1, _set(3, "float32[3a,3]")),
    "dim_overflow": lambda: _with_line(1, _set(3, "float32[99999999999999999999,3]")),
    "elements_overflow": lambda: _with_line(1, _set(3, "float32[4611686018427387904,4]")),
    "huge_rank": lambda: _with_line(1, _set(3, "float32[" + ",".join(["1"] * 300) + "]")),
    "no_bracket": lambda: _with_line(1, _set(3, "float32")),
    # declared outputs smaller than what the op writes (was an ASan WRITE in transpose)
    "output_too_small": lambda: _with_line(_node_line("transpose"), _set(8, "float32[3,1]")),
    "output_wrong_dtype": lambda: _with_line(_node_line("transpose"), _set(8, "float64[3,2]")),
    "output_count": lambda: _with_line(_node_line("transpose"), _set(8, "float32[3,2];float32[3,2]")),
    "output_unknown_dims_wrong_rank": lambda: _with_line(_node_line("transpose"), _set(8, "float32[?]")),
    # devices
    "device_index_overflow": lambda: _with_line(_node_line("relu"), _set(9, "cpu:99999999999999999999")),
    "device_missing": lambda: _with_line(_node_line("relu"), _set(9, "cpu:12345")),
    "device_garbage": lambda: _with_line(_node_line("relu"), _set(9, "cpu:x")),
    # escapes
    "truncated_escape": lambda: _with_line(_node_line("relu"), _set(10, "a%4")),
    "non_hex_escape": lambda: _with_line(_node_line("relu"), _set(10, "%zz")),
    # structure
    "control_input_self": lambda: _with_line(_node_line("relu"), _set(5, str(_node_line("relu") - 1))),
    "control_input_later": lambda: _with_line(_node_line("relu"), _set(5, "2")),
    "arg_index_out_of_order": lambda: _with_line(1, _set(2, "3")),
    "arg_index_negative": lambda: _with_line(1, _set(2, "-1")),
    "arg_two_outputs": lambda: _with_line(1, _set(3, "float32[2,3];float32[2,3]")),
    "few_fields": lambda: _with_line(_node_line("relu"), lambda f: f[:4]),
    "blank_fields": lambda: _text().replace("\nreturn", "\n    \nnode\nreturn"),
    "no_return": lambda: "\n".join(_lines()[:-1]) + "\n",
    "after_return": lambda: _text() + "return 0:0\n",
    "bad_header": lambda: _text().replace("ember.graph 1", "ember.graph 2"),
    "empty": lambda: "",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_graph_text_is_a_value_error(case):
    text = CASES[case]()
    assert text != _text()
    with pytest.raises(ValueError, match="graph text"):
        ember.function_from_text(text)


def test_error_names_the_line():
    with pytest.raises(ValueError, match=rf"line {_node_line('transpose') + 1}: transpose: output 0"):
        ember.function_from_text(CASES["output_too_small"]())


def test_error_is_invalid_argument_when_available():
    cls = getattr(getattr(ember, "errors", None), "InvalidArgumentError", ValueError)
    with pytest.raises(cls):
        ember.function_from_text(CASES["unknown_op"]())


def _loop_text():
    @ember.function
    def f(n):
        return ember.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + ember.cast(i, ember.float32)),
                                (ember.constant(0), ember.constant(0.0)))

    concrete = f.get_concrete_function(ember.TensorSpec([], ember.int32))
    return concrete, concrete.graph.to_text()


def test_control_flow_graph_round_trips():
    f, text = _loop_text()
    again = ember.function_from_text(text)
    assert again.graph.to_text() == text
    captured = [t for kind, t in f._args if kind == "capture"]  # the initial loop values
    i, s = again(ember.constant(5), *captured)
    assert int(i) == 5 and float(s) == 10.0


def _edit_loop_attr(text, index, value):
    lines = text.rstrip("\n").split("\n")
    k = next(i for i, line in enumerate(lines) if " while_loop " in line)
    fields = lines[k].split(" ")
    attrs = fields[7].split(";")
    attrs[index] = value
    fields[7] = ";".join(attrs)
    lines[k] = " ".join(fields)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("index,value", [(2, "i1"), (2, "i5"), (2, "i-1"), (3, "i3"), (3, "i-7"),
                                         (0, "i999999"), (1, "i999999")])
def test_while_loop_node_with_wrong_sub_graph_counts(index, value):
    f, text = _loop_text()
    with pytest.raises(ValueError, match="graph text"):
        ember.function_from_text(_edit_loop_attr(text, index, value))
    del f  # keeps the sub-graphs registered while the text is read


def test_while_loop_node_with_swapped_cond_and_body():
    f, text = _loop_text()
    lines = text.rstrip("\n").split("\n")
    k = next(i for i, line in enumerate(lines) if " while_loop " in line)
    fields = lines[k].split(" ")
    attrs = fields[7].split(";")
    attrs[0], attrs[1] = attrs[1], attrs[0]
    fields[7] = ";".join(attrs)
    lines[k] = " ".join(fields)
    with pytest.raises(ValueError, match="graph text"):
        ember.function_from_text("\n".join(lines) + "\n")
    del f


# --- while_loop and cond given bad predicates or bounds ---------------------


def _in_function(fn):
    return lambda: ember.function(fn)(ember.constant(0))


BAD_CONDS = {
    "tuple": lambda i: (i < 3,),
    "list": lambda i: [i < 3],
    "vector": lambda i: ember.stack([i < 3, i < 4]),
    "int_scalar": lambda i: i,
}


@pytest.mark.parametrize("kind", sorted(BAD_CONDS))
@pytest.mark.parametrize("where", ["eager", "function"])
def test_while_loop_cond_must_return_a_scalar_bool(kind, where):
    def run(x):
        return ember.while_loop(BAD_CONDS[kind], lambda i: i + 1, x)

    call = (lambda: run(ember.constant(0))) if where == "eager" else _in_function(run)
    with pytest.raises((TypeError, ValueError), match="while_loop: cond"):
        call()


@pytest.mark.parametrize("bound,error", [(2**63, ValueError), (2**64 - 1, ValueError), (-1, ValueError),
                                         (1.5, TypeError), ("3", TypeError), (True, TypeError)])
@pytest.mark.parametrize("where", ["eager", "function"])
def test_while_loop_maximum_iterations_is_checked(bound, error, where):
    def run(x):
        return ember.while_loop(lambda i: i < 10, lambda i: i + 1, x, maximum_iterations=bound)

    call = (lambda: run(ember.constant(0))) if where == "eager" else _in_function(run)
    with pytest.raises(error, match="maximum_iterations"):
        call()


@pytest.mark.parametrize("where", ["eager", "function"])
def test_while_loop_maximum_iterations_at_the_limits(where):
    def run(x):
        a = ember.while_loop(lambda i: i < 10, lambda i: i + 1, x, maximum_iterations=2**63 - 1)
        b = ember.while_loop(lambda i: i < 10, lambda i: i + 1, x, maximum_iterations=np.int64(0))
        return a, b

    a, b = run(ember.constant(0)) if where == "eager" else ember.function(run)(ember.constant(0))
    assert int(a) == 10 and int(b) == 0


@pytest.mark.parametrize("pred,error", [([True], TypeError), ((True,), TypeError), ("yes", TypeError),
                                        (np.array([True, False]), ValueError)])
def test_cond_pred_must_be_a_scalar_bool(pred, error):
    with pytest.raises(error, match="cond: pred"):
        ember.cond(pred, lambda: ember.constant(1.0), lambda: ember.constant(2.0))


def test_cond_pred_vector_tensor_eagerly_and_in_function():
    with pytest.raises(ValueError, match="cond: pred"):
        ember.cond(ember.constant([True, False]), lambda: ember.constant(1.0), lambda: ember.constant(2.0))

    @ember.function
    def f(p):
        return ember.cond(p, lambda: ember.constant(1.0), lambda: ember.constant(2.0))

    with pytest.raises(ValueError, match="cond: pred"):
        f(ember.constant([True, False]))


def test_cond_branches_must_return_the_same_structure():
    @ember.function
    def f(p, x):
        return ember.cond(p, lambda: (x, x), lambda: [x, x])

    with pytest.raises(ValueError, match="same structure"):
        f(ember.constant(True), ember.constant(1.0))


def test_good_predicates_still_work():
    assert float(ember.cond(True, lambda: ember.constant(1.0), lambda: ember.constant(2.0))) == 1.0
    assert float(ember.cond(np.bool_(False), lambda: ember.constant(1.0), lambda: ember.constant(2.0))) == 2.0
    assert int(ember.while_loop(lambda i: i < 3, lambda i: i + 1, ember.constant(0))) == 3
    assert re.match(r"ember\.graph 1", _text())
