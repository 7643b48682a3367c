# Tests ember.saved_model.save / load against tf.saved_model's documented behaviour, and the format's errors.

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import ember


class Dense(ember.Module):
    def __init__(self, n_in, n_out, name=None):
        super().__init__(name=name)
        self.w = ember.Variable(ember.random.normal([n_in, n_out]), name="w")
        self.b = ember.Variable(ember.random.normal([n_out]), name="b")

    @ember.function
    def __call__(self, x):
        return ember.nn.relu(ember.matmul(x, self.w) + self.b)


class MLP(ember.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Dense(4, 8), Dense(8, 3)]
        self.calls = ember.Variable(0, trainable=False, name="calls")

    @ember.function(input_signature=[ember.TensorSpec([None, 4], ember.float32, name="features")])
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.calls.assign_add(1)
        return x


def _x(rows=3, seed=0):
    return np.random.default_rng(seed).standard_normal((rows, 4)).astype(np.float32)


def _reference(model, x):
    """The MLP's result computed here, op by op in NumPy, from the model's current variables."""
    for layer in model.layers:
        x = np.maximum(x @ layer.w.numpy() + layer.b.numpy(), 0)
    return x


def test_round_trip_of_an_mlp(tmp_path):
    model = MLP()
    x = _x()
    expected = model(x).numpy()
    np.testing.assert_allclose(expected, _reference(model, x), rtol=1e-5, atol=1e-6)
    ember.saved_model.save(model, str(tmp_path / "mlp"))
    loaded = ember.saved_model.load(str(tmp_path / "mlp"))
    np.testing.assert_array_equal(loaded(x).numpy(), expected)  # the same graph on the same values
    np.testing.assert_array_equal(loaded(ember.constant(_x(7, 1))).numpy(), model(_x(7, 1)).numpy())  # any batch
    assert ember.saved_model.contains_saved_model(str(tmp_path / "mlp"))
    assert not ember.saved_model.contains_saved_model(str(tmp_path))


def test_variables_are_restored_with_their_names_and_trainability(tmp_path):
    model = MLP()
    model(_x())
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    assert [v.name for v in loaded.variables] == [v.name for v in model.variables]
    for got, want in zip(loaded.variables, model.variables):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        assert got.trainable == want.trainable and got.dtype == want.dtype
    assert len(loaded.trainable_variables) == 4 and len(loaded.variables) == 5
    np.testing.assert_array_equal(loaded.layers[1].w.numpy(), model.layers[1].w.numpy())
    assert int(loaded.calls.numpy()) == 1


def test_the_value_at_save_time_is_saved_not_the_value_at_trace_time(tmp_path):
    model = MLP()
    x = _x()
    model(x)  # traced with the first weights
    model.layers[0].w.assign(model.layers[0].w * 2.0 + 1.0)
    expected = _reference(model, x)
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(loaded.layers[0].w.numpy(), model.layers[0].w.numpy())


def test_loaded_functions_read_and_write_the_loaded_variables(tmp_path):
    model = MLP()
    x = _x()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    loaded.layers[1].b.assign(loaded.layers[1].b + 5.0)
    model.layers[1].b.assign(model.layers[1].b + 5.0)
    np.testing.assert_allclose(loaded(x).numpy(), _reference(model, x), rtol=1e-5, atol=1e-6)
    before = int(loaded.calls.numpy())
    loaded(x)
    assert int(loaded.calls.numpy()) == before + 1  # the assign_add in the saved graph writes back


def test_loading_twice_gives_independent_variables(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    first = ember.saved_model.load(tmp_path / "m")
    second = ember.saved_model.load(tmp_path / "m")
    x = _x()
    expected = second(x).numpy()
    first.layers[0].w.assign(ember.zeros([4, 8]))
    first(x)
    np.testing.assert_array_equal(second(x).numpy(), expected)
    np.testing.assert_array_equal(second.layers[0].w.numpy(), model.layers[0].w.numpy())
    assert int(first.calls.numpy()) == 1 and int(second.calls.numpy()) == 2


def test_methods_keep_the_traces_made_before_saving(tmp_path):
    model = MLP()
    x = _x()
    layer_out = model.layers[0](x)  # a trace of the submodule's own function, for (3, 4)
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded.layers[0](x).numpy(), layer_out.numpy())
    with pytest.raises(ValueError, match=r"layers\[0\].__call__.*float32 tensor of shape \(5, 4\).*"
                                         r"TensorSpec\(shape=\(3, 4\), dtype=ember.float32\)"):
        loaded.layers[0](_x(5))
    with pytest.raises(ValueError, match=r"layers\[1\].__call__.*never traced"):
        loaded.layers[1](ember.ones([2, 8]))


def test_concrete_functions_of_loaded_functions(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    concrete = loaded.__call__.get_concrete_function(ember.TensorSpec([None, 4], ember.float32))
    assert concrete is loaded.__call__.get_concrete_function()
    assert concrete.input_signature[0].shape.as_list() == [None, 4]
    assert concrete.structured_outputs.shape.as_list() == [None, 3]
    x = _x()
    np.testing.assert_array_equal(concrete(ember.constant(x)).numpy(), model(x).numpy())
    with pytest.raises(ValueError, match="match none"):
        loaded.__call__.get_concrete_function(ember.TensorSpec([None, 5], ember.float32))


def test_a_call_that_matches_no_saved_signature_names_the_function_and_its_specs(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    with pytest.raises(ValueError, match=r"__call__: the arguments \(x=float32 tensor of shape \(2, 5\)\) match none"
                                         r".*TensorSpec\(shape=\(None, 4\), dtype=ember.float32\)"):
        loaded(np.ones((2, 5), np.float32))
    with pytest.raises(ValueError, match="match none"):
        loaded(np.ones((2, 4), np.int32))  # a dtype the signature does not take
    with pytest.raises(TypeError, match="__call__"):
        loaded(np.ones((2, 4), np.float32), 1)


def test_python_arguments_select_their_trace(tmp_path):
    class Scaled(ember.Module):
        def __init__(self):
            super().__init__()
            self.v = ember.Variable(3.0)

        @ember.function
        def apply(self, x, double=False, mode="add"):
            y = x * self.v
            if double:
                y = y * 2.0
            return y + 1.0 if mode == "add" else y - 1.0

    m = Scaled()
    x = ember.constant([1.0, 2.0])
    expected = {(d, mode): m.apply(x, double=d, mode=mode).numpy() for d in (False, True) for mode in ("add", "sub")}
    ember.saved_model.save(m, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    for (d, mode), want in expected.items():
        np.testing.assert_array_equal(loaded.apply(x, double=d, mode=mode).numpy(), want)
    np.testing.assert_array_equal(loaded.apply(x).numpy(), expected[(False, "add")])  # saved defaults
    np.testing.assert_array_equal(loaded.apply(x, True, "sub").numpy(), expected[(True, "sub")])
    with pytest.raises(ValueError, match="mode='mul'"):
        loaded.apply(x, mode="mul")


def test_structured_results_and_arguments(tmp_path):
    class Pair(ember.Module):
        def __init__(self):
            super().__init__()
            self.v = ember.Variable([1.0, -1.0])

        @ember.function
        def split(self, inputs):
            a, b = inputs["a"], inputs["b"]
            return {"sum": a + b * self.v, "parts": (a, [b * 2.0]), "none": None}

    m = Pair()
    inputs = {"a": ember.constant([1.0, 2.0]), "b": ember.constant([3.0, 4.0])}
    want = m.split(inputs)
    ember.saved_model.save(m, tmp_path / "m")
    got = ember.saved_model.load(tmp_path / "m").split(inputs)
    assert set(got) == {"sum", "parts", "none"} and got["none"] is None
    np.testing.assert_array_equal(got["sum"].numpy(), want["sum"].numpy())
    assert isinstance(got["parts"], tuple) and isinstance(got["parts"][1], list)
    np.testing.assert_array_equal(got["parts"][1][0].numpy(), want["parts"][1][0].numpy())


def test_default_serving_signature(tmp_path):
    model = MLP()
    x = _x()
    expected = model(x).numpy()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    assert list(loaded.signatures) == ["serving_default"]
    serving = loaded.signatures["serving_default"]
    result = serving(features=ember.constant(x))  # named by the TensorSpec's name
    assert list(result) == ["output_0"]
    np.testing.assert_array_equal(result["output_0"].numpy(), expected)
    assert list(serving.structured_input_signature[1]) == ["features"]
    with pytest.raises(TypeError, match="keyword arguments only"):
        serving(ember.constant(x))
    with pytest.raises(TypeError, match="features"):
        serving(x=ember.constant(x))


def test_no_default_signature_without_a_single_input_signature_function(tmp_path):
    model = Dense(2, 2)  # its one function has no input_signature
    model(ember.ones([1, 2]))
    ember.saved_model.save(model, tmp_path / "m")
    assert len(ember.saved_model.load(tmp_path / "m").signatures) == 0


def test_explicit_signatures(tmp_path):
    class Model(ember.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.Variable([[1.0, 2.0], [3.0, 4.0]])

        @ember.function
        def encode(self, x):
            return {"code": ember.matmul(x, self.w), "norm": ember.reduce_sum(x * x, axis=1)}

        @ember.function(input_signature=[ember.TensorSpec([None, 2])])
        def decode(self, y):
            return y - 1.0, y + 1.0

    m = Model()
    x = np.array([[1.0, 2.0]], np.float32)
    encode = m.encode.get_concrete_function(ember.TensorSpec([None, 2], ember.float32))
    want_code = (x @ m.w.numpy())
    ember.saved_model.save(m, tmp_path / "m", signatures={"encode": encode, "decode": m.decode})
    loaded = ember.saved_model.load(tmp_path / "m")
    assert sorted(loaded.signatures) == ["decode", "encode"]
    out = loaded.signatures["encode"](x=ember.constant(x))
    assert set(out) == {"code", "norm"}
    np.testing.assert_allclose(out["code"].numpy(), want_code)
    np.testing.assert_allclose(out["norm"].numpy(), (x * x).sum(axis=1))
    out = loaded.signatures["decode"](y=ember.constant(x))
    assert list(out) == ["output_0", "output_1"]
    np.testing.assert_allclose(out["output_1"].numpy(), x + 1.0)
    np.testing.assert_allclose(loaded.encode(x)["code"].numpy(), want_code)  # the method has that trace too

    # A single function is the serving_default signature.
    ember.saved_model.save(m, tmp_path / "one", signatures=m.decode)
    assert list(ember.saved_model.load(tmp_path / "one").signatures) == ["serving_default"]
    with pytest.raises(ValueError, match="input_signature"):
        ember.saved_model.save(m, tmp_path / "bad", signatures=m.encode)
    assert not os.path.exists(tmp_path / "bad")


def test_loading_needs_no_python_source_of_the_class(tmp_path):
    model = MLP()
    x = _x(5, 3)
    expected = model(x).numpy()
    ember.saved_model.save(model, tmp_path / "m")
    child = """
import json, sys
import numpy as np
import ember
loaded = ember.saved_model.load(sys.argv[1])
x = np.asarray(json.loads(sys.argv[2]), np.float32)
out = loaded(x).numpy()
sig = loaded.signatures["serving_default"](features=ember.constant(x))["output_0"].numpy()
print(json.dumps({"out": out.tolist(), "sig": sig.tolist(), "calls": int(loaded.calls.numpy()),
                  "trainable": len(loaded.trainable_variables), "type": type(loaded).__name__}))
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    result = subprocess.run([sys.executable, "-c", child, str(tmp_path / "m"), json.dumps(x.tolist())], env=env,
                            capture_output=True, text=True, timeout=300, cwd=str(tmp_path))
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert "MLP" not in got["type"]  # the class was not needed, nor made
    np.testing.assert_array_equal(np.asarray(got["out"], np.float32), expected)
    np.testing.assert_array_equal(np.asarray(got["sig"], np.float32), expected)
    assert got["calls"] == 3 and got["trainable"] == 4  # saved after one call; two calls in the child


class Loop(ember.Module):
    def __init__(self):
        super().__init__()
        self.scale = ember.Variable(2.0)

    @ember.function(input_signature=[ember.TensorSpec([2]), ember.TensorSpec([], ember.int32)])
    def run(self, x, n):
        def body(i, x):
            x = ember.cond(ember.reduce_sum(x) > 50.0, lambda: x - 1.0, lambda: x * self.scale)
            return i + 1, x

        _, y = ember.while_loop(lambda i, x: i < n, body, [ember.constant(0), x])
        return y + ember.constant([1.0, 2.0])


def _loop_reference(x, n, scale):
    x = np.array(x, np.float32)
    for _ in range(n):
        x = x - 1.0 if x.sum() > 50.0 else x * scale
    return x + np.array([1.0, 2.0], np.float32)


def test_control_flow_in_a_saved_function(tmp_path):
    model = Loop()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    for x, n in (([1.0, 2.0], 0), ([1.0, 2.0], 3), ([1.0, 2.0], 8), ([30.0, 30.0], 2)):
        want = _loop_reference(x, n, 2.0)
        np.testing.assert_allclose(model.run(ember.constant(x), ember.constant(n)).numpy(), want)
        np.testing.assert_allclose(loaded.run(ember.constant(x), ember.constant(n)).numpy(), want)
    loaded.scale.assign(3.0)  # the loop body reads the loaded variable
    np.testing.assert_allclose(loaded.run(ember.constant([1.0, 2.0]), ember.constant(3)).numpy(),
                               _loop_reference([1.0, 2.0], 3, 3.0))
    with open(tmp_path / "m" / "saved_model.json") as f:
        # The loop's cond, the cond's two branches, the loop's body, the function.
        assert len(json.load(f)["graphs"]) == 5


def test_functions_with_python_callbacks_are_refused_at_save_time(tmp_path):
    class Callback(ember.Module):
        @ember.function
        def hook(self, x):
            return ember.py_function(lambda t: t * 2.0, [x], ember.float32)

    m = Callback()
    m.hook(ember.constant(1.0))
    with pytest.raises(ValueError, match=r"obj.hook calls py_function"):
        ember.saved_model.save(m, tmp_path / "m")
    assert not os.path.exists(tmp_path / "m") and os.listdir(tmp_path) == []


def test_a_variable_outside_the_saved_object_is_refused(tmp_path):
    outside = ember.Variable(2.0, name="outside")

    class Reader(ember.Module):
        @ember.function
        def f(self, x):
            return x * outside

    m = Reader()
    m.f(ember.constant(1.0))
    with pytest.raises(ValueError, match="obj.f reads the variable 'outside'"):
        ember.saved_model.save(m, tmp_path / "m")


def test_gradients_through_loaded_functions_are_not_supported(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    with ember.GradientTape() as tape:
        loss = ember.reduce_sum(loaded(_x()))
    with pytest.raises(LookupError, match="call_function"):  # an error, never a silent None
        tape.gradient(loss, loaded.trainable_variables)


def test_a_loaded_function_called_in_a_new_function(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")

    @ember.function
    def twice(x):
        return loaded(x) + loaded(x)

    x = _x()
    np.testing.assert_allclose(twice(x).numpy(), 2 * model(x).numpy(), rtol=1e-6)
    loaded.layers[1].b.assign(loaded.layers[1].b + 1.0)  # read at each call, not frozen into twice's trace
    model.layers[1].b.assign(model.layers[1].b + 1.0)
    np.testing.assert_allclose(twice(x).numpy(), 2 * _reference(model, x), rtol=1e-5, atol=1e-6)
    assert int(loaded.calls.numpy()) == 4


def test_the_variables_checkpoint_restores_into_the_original_class(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    fresh = MLP()
    status = ember.train.Checkpoint(root=fresh).read(str(tmp_path / "m" / "variables" / "variables"))
    status.assert_existing_objects_matched()
    x = _x()
    np.testing.assert_array_equal(fresh(x).numpy(), model(x).numpy())


def test_saving_replaces_a_saved_model_and_leaves_no_temporary_files(tmp_path):
    target = tmp_path / "m"
    first = MLP()
    ember.saved_model.save(first, target)
    second = MLP()
    ember.saved_model.save(second, target)
    x = _x()
    np.testing.assert_array_equal(ember.saved_model.load(target)(x).numpy(), second(x).numpy())
    assert os.listdir(tmp_path) == ["m"]
    empty = tmp_path / "empty"
    empty.mkdir()
    ember.saved_model.save(second, empty)  # an empty directory is fine, as from tempfile.mkdtemp()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="no saved model"):
        ember.saved_model.save(second, other)
    assert os.listdir(other) == ["notes.txt"]


def test_load_errors_name_the_problem(tmp_path):
    with pytest.raises(FileNotFoundError, match="no directory"):
        ember.saved_model.load(tmp_path / "missing")
    with pytest.raises(FileNotFoundError, match="not an Ember saved model"):
        ember.saved_model.load(tmp_path)
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")
    manifest_path = tmp_path / "m" / "saved_model.json"
    manifest = json.loads(manifest_path.read_text())

    manifest_path.write_text('{"format": "ember.saved_model", "version": 1, "objects": [')
    with pytest.raises(ValueError, match="corrupt"):
        ember.saved_model.load(tmp_path / "m")
    manifest_path.write_text(json.dumps(dict(manifest, version=99)))
    with pytest.raises(ValueError, match="format version 99; this Ember reads version 1"):
        ember.saved_model.load(tmp_path / "m")
    manifest_path.write_text(json.dumps(dict(manifest, format="something.else")))
    with pytest.raises(ValueError, match="not an Ember saved model manifest"):
        ember.saved_model.load(tmp_path / "m")
    manifest_path.write_text(json.dumps(dict(manifest, objects=[{"kind": "object"}])))
    with pytest.raises(ValueError, match="corrupt or inconsistent"):
        ember.saved_model.load(tmp_path / "m")
    manifest_path.write_text(json.dumps(dict(manifest, variables="../../elsewhere")))
    with pytest.raises(ValueError, match="not a relative path inside it"):
        ember.saved_model.load(tmp_path / "m")
    manifest_path.write_text(json.dumps(manifest))
    ember.saved_model.load(tmp_path / "m")  # intact again

    graph_path = tmp_path / "m" / manifest["graphs"][0]
    graph_path.write_text(graph_path.read_text().replace("matmul", "no_such_op"))
    with pytest.raises(ValueError, match=r"graphs/0.txt.*not a valid graph.*no_such_op"):
        ember.saved_model.load(tmp_path / "m")
    graph_path.unlink()
    with pytest.raises(ValueError, match="incomplete.*graphs/0.txt"):
        ember.saved_model.load(tmp_path / "m")


def test_a_damaged_variables_file_is_refused(tmp_path):
    ember.saved_model.save(MLP(), tmp_path / "m")
    path = tmp_path / "m" / "variables" / "variables.ckpt"
    data = bytearray(path.read_bytes())
    data[-256] ^= 0xFF  # inside the last tensors' bytes (the data ends in at most 63 bytes of padding)
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="checksum"):
        ember.saved_model.load(tmp_path / "m")


def test_save_refuses_objects_that_are_not_modules(tmp_path):
    with pytest.raises(TypeError, match="ember.Module"):
        ember.saved_model.save([ember.Variable(1.0)], tmp_path / "m")


def test_options_are_accepted(tmp_path):
    model = MLP()
    ember.saved_model.save(model, tmp_path / "m", options=ember.saved_model.SaveOptions(save_debug_info=True))
    loaded = ember.saved_model.load(tmp_path / "m", options=ember.saved_model.LoadOptions(
        allow_partial_checkpoint=True))
    x = _x()
    np.testing.assert_array_equal(loaded(x).numpy(), model(x).numpy())
    with pytest.raises(NotImplementedError, match="experimental_skip_checkpoint"):
        ember.saved_model.load(tmp_path / "m", options=ember.saved_model.LoadOptions(
            experimental_skip_checkpoint=True))


def test_random_ops_draw_new_numbers_at_each_call_after_loading(tmp_path):
    class Noisy(ember.Module):
        def __init__(self):
            super().__init__()
            self.scale = ember.Variable(1.0)

        @ember.function(input_signature=[ember.TensorSpec([4])])
        def __call__(self, x):
            return x + ember.random.uniform([4]) * self.scale

    ember.saved_model.save(Noisy(), tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    x = ember.zeros([4])
    a, b = loaded(x).numpy(), loaded(x).numpy()
    assert not np.array_equal(a, b)
    assert ((a >= 0) & (a < 1)).all()


def test_a_compiled_keras_model_saves_its_variables_not_its_private_train_step(tmp_path):
    model = ember.keras.Sequential([ember.keras.layers.Dense(4, activation="relu"), ember.keras.layers.Dense(2)])
    x = np.ones((3, 5), np.float32)
    model.compile(optimizer="adam", loss="mse")
    model.fit(x, np.zeros((3, 2), np.float32), epochs=1, verbose=0)  # makes the private _train_fn
    ember.saved_model.save(model, tmp_path / "m")
    loaded = ember.saved_model.load(tmp_path / "m")
    assert len(loaded.variables) == len(model.variables)  # the optimizer is kept, but is not a module
    for got, want in zip(loaded.trainable_variables, model.trainable_variables):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert int(loaded.optimizer.iterations.numpy()) == 1
    assert not hasattr(loaded, "_train_fn")


_KILLED_SAVE = """
import os, signal, sys
import ember
from ember.saved_model import _format

target, where = sys.argv[1], sys.argv[2]


class Model(ember.Module):
    def __init__(self):
        super().__init__()
        self.v = ember.Variable([2.0, 2.0])

    @ember.function(input_signature=[ember.TensorSpec([2])])
    def __call__(self, x):
        return x * self.v


def die():
    os.kill(os.getpid(), signal.SIGKILL)


if where == "manifest":  # while the new directory is being written
    write_file = _format._write_file
    _format._write_file = lambda path, data: die() if path.endswith(_format.MANIFEST) else write_file(path, data)
else:  # between moving the old directory aside and renaming the new one in
    replace = _format.os.replace
    def replace_then_die(src, dst):
        replace(src, dst)
        if ".tmp-old-" in os.path.basename(dst):
            die()
    _format.os.replace = replace_then_die
ember.saved_model.save(Model(), target)
"""


@pytest.mark.parametrize("where", ["manifest", "between_renames"])
def test_a_save_killed_midway_leaves_the_previous_saved_model_whole(tmp_path, where):
    class Model(ember.Module):
        def __init__(self):
            super().__init__()
            self.v = ember.Variable([5.0, 7.0])

        @ember.function(input_signature=[ember.TensorSpec([2])])
        def __call__(self, x):
            return x * self.v

    target = tmp_path / "m"
    ember.saved_model.save(Model(), target)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    child = subprocess.run([sys.executable, "-c", _KILLED_SAVE, str(target), where], env=env, timeout=300)
    assert child.returncode == -9
    if where == "manifest":
        previous = target  # untouched; the half-written directory is a .tmp- one beside it
        assert any(name.startswith(".tmp-m-") for name in os.listdir(tmp_path))
    else:
        assert not target.exists()
        [aside] = [name for name in os.listdir(tmp_path) if name.startswith(".tmp-old-m-")]
        previous = tmp_path / aside
    loaded = ember.saved_model.load(previous)
    np.testing.assert_array_equal(loaded(ember.constant([1.0, 1.0])).numpy(), [5.0, 7.0])


def test_a_failed_save_leaves_nothing_behind(tmp_path, monkeypatch):
    from ember.saved_model import _format

    model = MLP()
    ember.saved_model.save(model, tmp_path / "m")

    def fail(path, data):
        raise OSError("disk full")

    monkeypatch.setattr(_format, "_write_file", fail)
    with pytest.raises(OSError, match="disk full"):
        ember.saved_model.save(MLP(), tmp_path / "m")
    assert os.listdir(tmp_path) == ["m"]
    x = _x()
    np.testing.assert_array_equal(ember.saved_model.load(tmp_path / "m")(x).numpy(), model(x).numpy())
