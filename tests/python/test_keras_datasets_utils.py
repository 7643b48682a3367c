"""ember.keras datasets (from Keras' cache layout, no downloads), utils and backend."""

import gzip
import pickle
import tarfile
import urllib.error
import urllib.request

import numpy as np
import pytest

from ember import keras


@pytest.fixture
def keras_home(tmp_path, monkeypatch):
    monkeypatch.setenv("KERAS_HOME", str(tmp_path))

    def no_network(*args, **kwargs):
        raise urllib.error.URLError("network disabled in tests")
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    (tmp_path / "datasets").mkdir()
    return tmp_path / "datasets"


def test_mnist_reads_the_cached_npz(keras_home):
    x = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    np.savez(keras_home / "mnist.npz", x_train=x, y_train=np.array([3, 4], np.uint8), x_test=x[:1],
             y_test=np.array([7], np.uint8))
    (x_train, y_train), (x_test, y_test) = keras.datasets.mnist.load_data()
    np.testing.assert_array_equal(x_train, x)
    assert y_train.tolist() == [3, 4] and x_test.shape == (1, 28, 28) and y_test.tolist() == [7]


def test_missing_dataset_says_network_access_is_needed(keras_home):
    with pytest.raises(RuntimeError, match="network access") as info:
        keras.datasets.mnist.load_data()
    assert str(keras_home / "mnist.npz") in str(info.value)
    assert not (keras_home / "mnist.npz.part").exists()


def _idx(path, array, magic_len):
    with gzip.open(path, "wb") as f:
        f.write(b"\0" * magic_len + array.tobytes())


def test_fashion_mnist_reads_the_gzip_files(keras_home):
    d = keras_home / "fashion-mnist"
    d.mkdir()
    images = np.random.default_rng(0).integers(0, 255, (3, 28, 28), dtype=np.uint8)
    labels = np.array([1, 2, 9], np.uint8)
    _idx(d / "train-labels-idx1-ubyte.gz", labels, 8)
    _idx(d / "train-images-idx3-ubyte.gz", images, 16)
    _idx(d / "t10k-labels-idx1-ubyte.gz", labels[:1], 8)
    _idx(d / "t10k-images-idx3-ubyte.gz", images[:1], 16)
    (x_train, y_train), (x_test, y_test) = keras.datasets.fashion_mnist.load_data()
    np.testing.assert_array_equal(x_train, images)
    assert y_train.tolist() == [1, 2, 9] and x_test.shape == (1, 28, 28)


def test_cifar10_reads_the_cached_tarball(keras_home, tmp_path):
    src = tmp_path / "cifar-10-batches-py"
    src.mkdir()
    rng = np.random.default_rng(0)
    for name in [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]:
        with open(src / name, "wb") as f:
            pickle.dump({b"data": rng.integers(0, 255, (2, 3072), dtype=np.uint8), b"labels": [1, 5]}, f)
    with tarfile.open(keras_home / "cifar-10-batches-py.tar.gz", "w:gz") as archive:
        archive.add(src, arcname="cifar-10-batches-py")
    (x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
    assert x_train.shape == (10, 32, 32, 3) and y_train.shape == (10, 1) and x_test.shape == (2, 32, 32, 3)
    assert y_test.ravel().tolist() == [1, 5]


def test_to_categorical():
    out = keras.utils.to_categorical([0, 2, 1])
    np.testing.assert_array_equal(out, np.eye(3, dtype=np.float32)[[0, 2, 1]])
    assert keras.utils.to_categorical(np.array([[1], [0]]), 4).shape == (2, 4)
    assert keras.utils.to_categorical(np.zeros((2, 3), int), 5).shape == (2, 3, 5)
    with pytest.raises(ValueError):
        keras.utils.to_categorical([-1])


def test_backend_basics():
    assert keras.backend.floatx() == "float32" and keras.backend.epsilon() == 1e-7
    assert keras.backend.image_data_format() == "channels_last"
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == "dense"
