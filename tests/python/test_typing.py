"""The installed package is typed (py.typed plus the generated .pyi stubs):
mypy accepts correct calls and flags wrong ones."""

import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("mypy", reason="mypy is not installed (pip install '.[test]')")

GOOD = """\
import numpy as np

import ember

x: ember.Tensor = ember.add(1, 2)
y = ember.matmul(ember.constant([[1.0]]), np.ones((1, 1), np.float32), transpose_a=True)
z = ember.math.reduce_sum(y, axis=0, keepdims=False, name="total")
t = ember.from_dlpack(np.arange(3))

# ember.Tensor's own stub (ember/_tensor.pyi): properties, methods, operators.
a: np.ndarray = x.numpy()
dims: list = y.shape.as_list()
n: int = y.ndim + len(y) + int(x)
name: str = x.dtype.name
w: ember.Tensor = -(y @ y) + 1.0 * y[0] - abs(y) ** 2
mask: ember.Tensor = (y == y) & (y > 0.5)
"""

BAD = """\
import ember

ember.add(1, 2, 3, 4, 5)
ember.add(1, 2, bogus=3)
ember.add(1, 2).nump()
"""


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    # One cache for this module's runs: the first (about 6 s, mostly numpy's
    # stubs) fills it and the next takes under a second; --no-incremental
    # would cost about 5 s each. A fresh directory, so nothing stale is read.
    return tmp_path_factory.mktemp("mypy-cache")


def _mypy(tmp_path, cache_dir, source):
    example = tmp_path / "example.py"
    example.write_text(source)
    command = [sys.executable, "-m", "mypy", "--cache-dir", str(cache_dir), "--no-color-output",
               "--hide-error-context", str(example)]
    return subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_package_ships_its_type_information():
    import ember

    package = pathlib.Path(ember.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_generated" / "ops.pyi").is_file()


def test_correct_calls_type_check(tmp_path, cache_dir):
    result = _mypy(tmp_path, cache_dir, GOOD)
    assert result.returncode == 0, result.stdout + result.stderr


def test_wrong_calls_are_flagged(tmp_path, cache_dir):
    result = _mypy(tmp_path, cache_dir, BAD)
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'example.py:3: error: Too many arguments for "add"' in result.stdout, result.stdout
    assert 'example.py:4: error: Unexpected keyword argument "bogus" for "add"' in result.stdout, result.stdout
    assert 'example.py:5: error: "Tensor" has no attribute "nump"' in result.stdout, result.stdout


def _stub_names():
    """The attributes the stubs declare for Tensor: its class and _TensorOperators."""
    import ast

    import ember

    package = pathlib.Path(ember.__file__).parent
    names = set()
    for path, cls in ((package / "_tensor.pyi", "Tensor"), (package / "_generated" / "ops.pyi", "_TensorOperators")):
        tree = ast.parse(path.read_text())
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls).body
        for node in body:
            if isinstance(node, ast.FunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.AnnAssign):
                names.add(node.target.id)
    return names


def test_tensor_stub_declares_every_attribute():
    import ember

    runtime = {n for n in dir(ember.Tensor) if not n.startswith("_") or n.endswith("__")}
    runtime -= set(dir(object)) - {"__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__",
                                    "__format__"}
    runtime -= {"__module__", "__getstate__", "__dict__", "__weakref__"}
    runtime.add("_repr_html_")
    missing = runtime - _stub_names()
    assert not missing, f"ember/_tensor.pyi lacks: {sorted(missing)}"
