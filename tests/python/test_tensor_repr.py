"""Tensors show themselves without raising: repr, str, the notebook's HTML
view and the print options (ember/_tensor_repr.py)."""

import numpy as np
import pytest

import ember


def failed_tensor():
    return ember.gather(ember.constant([1.0, 2.0]), ember.constant([5]))


def test_repr_of_a_failed_op_shows_its_error_instead_of_raising():
    text = repr(failed_tensor())
    assert text.startswith("<ember.Tensor shape=(1,) dtype=float32 device=cpu:0 error=InvalidArgumentError(")
    assert "gather: indices[0] = 5 is not in [0, 2)" in text
    assert "gather" in str(failed_tensor()) and "error" in str(failed_tensor())
    # Reading the value still raises, and the runtime stays usable.
    with pytest.raises(ember.errors.InvalidArgumentError, match="gather"):
        failed_tensor().numpy()
    assert float(ember.constant(2.0) + 1.0) == 3.0


def test_repr_of_a_symbolic_tensor_inside_a_trace():
    seen = []

    @ember.function
    def f(x):
        seen.append((repr(x), str(x), x._repr_html_()))
        return x * 2

    np.testing.assert_array_equal(f(ember.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    text, plain, page = seen[0]
    assert text == "<ember.Tensor shape=(2,) dtype=float32 device=cpu:0 symbolic>"
    assert "<symbolic>" in plain
    assert "symbolic" in page


def test_variable_repr_uses_the_same_value_field():
    v = ember.Variable([1.0, 2.0], name="v")
    assert repr(v) == "<ember.Variable 'v' shape=(2,) dtype=float32 device=cpu:0 value=[1., 2.]>"


def test_large_tensors_are_summarized_under_settable_print_options():
    x = ember.constant(np.arange(2000, dtype=np.float32))
    assert "..." in repr(x)  # NumPy's threshold, 1000
    with ember.printoptions(threshold=5000):
        assert "..." not in repr(x)
        assert ember.get_printoptions()["threshold"] == 5000
    assert ember.get_printoptions()["threshold"] == np.get_printoptions()["threshold"]
    with ember.printoptions(threshold=3, edgeitems=1):
        assert repr(ember.constant([1, 2, 3, 4, 5])).endswith("value=[1, ..., 5]>")
    with ember.printoptions(precision=2):
        assert "3.14" in repr(ember.constant(np.pi)) and "3.142" not in repr(ember.constant(np.pi))
    ember.set_printoptions(edgeitems=2)
    try:
        assert ember.get_printoptions()["edgeitems"] == 2
    finally:
        ember.set_printoptions(edgeitems=None)
    assert ember.get_printoptions()["edgeitems"] == np.get_printoptions()["edgeitems"]
    with pytest.raises(TypeError, match="unknown option"):
        ember.set_printoptions(colour=True)


def test_html_view_of_a_matrix_is_a_summarized_table():
    page = ember.constant(np.arange(6, dtype=np.int32).reshape(2, 3))._repr_html_()
    assert "<b>shape</b> (2, 3)" in page and "<b>dtype</b> int32" in page and "<b>state</b> ready" in page
    assert page.count("<tr>") == 2 and page.count("<td>") == 6
    assert "<td>5</td>" in page
    big = ember.constant(np.arange(100 * 100, dtype=np.float32).reshape(100, 100))._repr_html_()
    edge = np.get_printoptions()["edgeitems"]
    assert big.count("<tr>") == 2 * edge + 1  # the gap row
    assert "&hellip;" in big and "<td>9999</td>" in big
    vector = ember.constant([0.5, -1.0])._repr_html_()
    assert "<b>shape</b> (2,)" in vector and "<td>0.5</td>" in vector


def test_html_view_of_errors_and_higher_ranks():
    page = failed_tensor()._repr_html_()
    assert "<b>state</b> error" in page and "gather: indices[0] = 5" in page
    cube = ember.zeros([2, 2, 2])._repr_html_()
    assert "<pre>" in cube and "<table>" not in cube
    assert "&lt;" not in ember.constant(1.0)._repr_html_().split("</div>")[0]  # escaped text only where needed
