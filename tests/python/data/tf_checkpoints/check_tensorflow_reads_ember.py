"""Checks that TensorFlow reads the checkpoints Ember writes with file_format="tensorflow" (run by hand).

TensorFlow is not a test dependency, so this runs outside the test suite, in the environment of
make_fixtures.py:

    /tmp/tfvenv/bin/python tests/python/data/tf_checkpoints/check_tensorflow_reads_ember.py \\
        --ember-python python --repo .

It runs twice: under --ember-python (with the repository's python/ on the path, no TensorFlow)
it restores the fixture module.* into Ember modules of the same structure and writes it back in
TensorFlow's format, plus a bundle of every dtype Ember writes; then, under TensorFlow, it
restores that checkpoint into make_fixtures.py's Model with assert_consumed() and compares every
variable, and every tensor of the other bundle, with expected.npz; last, a checkpoint of 301
variables (an index of several blocks) with a 4 MB tensor.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def ember_side(out_dir):
    import ember

    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    from test_tf_checkpoint import Model  # the Ember twin of make_fixtures.Model

    model = Model()
    ember.train.Checkpoint(model=model).restore(os.path.join(HERE, "module")).assert_consumed()
    ember.train.Checkpoint(model=model).write(os.path.join(out_dir, "module"), file_format="tensorflow")
    reader = ember.train.load_checkpoint(os.path.join(HERE, "raw"))
    dtypes = reader.get_variable_to_dtype_map()  # a dtype Ember lacks is a str there
    tensors = {k: ember.Variable(reader.get_tensor(k)) for k in dtypes
               if k.startswith("num/") and not isinstance(dtypes[k], str)}
    ember.train.Checkpoint(raw=tensors).write(os.path.join(out_dir, "raw"), file_format="tensorflow")
    # Many keys (a multi-block index) and a 4 MB tensor (the vectorized CRC).
    many = [ember.Variable(np.full([3], i, np.float32)) for i in range(300)]
    large = ember.Variable(np.sin(np.arange(1 << 20, dtype=np.float32)))
    ember.train.Checkpoint(many=many, large=large).write(os.path.join(out_dir, "big"), file_format="tensorflow")
    print(f"ember wrote {out_dir}: {sorted(os.listdir(out_dir))}")


def tensorflow_side(out_dir):
    import tensorflow as tf

    sys.path.insert(0, HERE)
    from make_fixtures import Model

    expected = np.load(os.path.join(HERE, "expected.npz"))
    with open(os.path.join(HERE, "expected.json")) as f:
        meta = json.load(f)["tensors"]
    model = Model()  # fresh random values
    tf.train.Checkpoint(model=model).restore(os.path.join(out_dir, "module")).assert_consumed()
    reader = tf.train.load_checkpoint(os.path.join(out_dir, "module"))
    checked = 0
    for name, record in meta.items():
        fixture, _, key = name.partition(":")
        if fixture == "module":
            got = reader.get_tensor(key)
            assert got.dtype.name == record["dtype"] and list(got.shape) == record["shape"], key
            want = expected[name]
            assert np.array_equal(got.view(np.uint16) if record["dtype"] == "bfloat16" else got, want), key
            checked += 1
    for variable in tf.nest.flatten(model.trainable_variables + model.non_trainable_variables):
        assert any(np.array_equal(variable.numpy(), reader.get_tensor(k)) for k in
                   reader.get_variable_to_shape_map() if k != "_CHECKPOINTABLE_OBJECT_GRAPH"), variable.name
    raw = tf.train.load_checkpoint(os.path.join(out_dir, "raw"))
    for key in raw.get_variable_to_shape_map():
        if key.startswith("raw/"):
            name = "raw:" + key[len("raw/"):].replace(".S", "/").replace("/.ATTRIBUTES/VARIABLE_VALUE", "")
            got, want = raw.get_tensor(key), expected[name]
            assert got.dtype.name == meta[name]["dtype"], key
            assert np.array_equal(got.view(np.uint16) if got.dtype.name == "bfloat16" else got, want), key
            checked += 1
    many = [tf.Variable(np.zeros([3], np.float32)) for _ in range(300)]
    large = tf.Variable(np.zeros([1 << 20], np.float32))
    tf.train.Checkpoint(many=many, large=large).restore(os.path.join(out_dir, "big")).assert_consumed()
    assert all(np.array_equal(v.numpy(), np.full([3], i, np.float32)) for i, v in enumerate(many))
    assert np.array_equal(large.numpy(), np.sin(np.arange(1 << 20, dtype=np.float32)))
    print(f"TensorFlow {tf.__version__} read {checked} tensors Ember wrote, all equal to expected.npz, "
          f"and a checkpoint of 301 variables ({os.path.getsize(os.path.join(out_dir, 'big.index'))}-byte index)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ember-python")
    parser.add_argument("--repo", default=os.path.join(HERE, "..", "..", "..", ".."))
    parser.add_argument("--ember-side", metavar="OUT_DIR")
    args = parser.parse_args()
    if args.ember_side:
        ember_side(args.ember_side)
        return
    out_dir = tempfile.mkdtemp()
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.abspath(args.repo), "python"))
    subprocess.run([args.ember_python, os.path.abspath(__file__), "--ember-side", out_dir], env=env, check=True)
    tensorflow_side(out_dir)


if __name__ == "__main__":
    main()
