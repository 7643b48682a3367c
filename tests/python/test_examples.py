"""The examples run and match their NumPy implementations (small sizes here)."""

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name, argv", [
    ("quickstart", None),
    ("mlp", ["--batch", "8"]),
    ("transformer", ["--batch", "2", "--seq", "16", "--dim", "32", "--heads", "4"]),
    ("resnet", ["--image-size", "32", "--batches", "1", "2", "--repeats", "1"]),
    ("function", ["--steps", "4", "--repeats", "1"]),
    ("train_mlp", ["--steps", "40", "--batch", "32"]),
    ("train_cnn", ["--steps", "20", "--batch", "16"]),
    ("keras_mnist_mlp", ["--epochs", "3", "--train", "3000"]),
])
def test_example_matches_numpy(name, argv, capsys):
    module = _load(name)  # quickstart runs (and asserts) at import
    if argv is not None:
        module.main(argv)  # each example asserts against its NumPy implementation
    out = capsys.readouterr().out
    want = {None: "all checks passed", "function": "matches eager", "train_mlp": "gradients match NumPy",
            "train_cnn": "gradients match NumPy", "keras_mnist_mlp": "predictions match"}.get(
        name if argv is not None else None, "matches NumPy")
    assert want in out
