"""keras.datasets: mnist, fashion_mnist and cifar10 loaders over Keras' cache (~/.keras/datasets), and get_file."""

import os as _os
from types import SimpleNamespace as _SimpleNamespace

import numpy as _np

_ORIGIN = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def _cache_root(cache_dir=None):
    # Keras' rule: $KERAS_HOME, else ~/.keras.
    if cache_dir is not None:
        return _os.path.expanduser(cache_dir)
    return _os.environ.get("KERAS_HOME") or _os.path.join(_os.path.expanduser("~"), ".keras")


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """The path of ``fname`` in the cache, downloaded from ``origin`` if absent.

    Raises a RuntimeError saying that network access is needed (and where to
    put the file by hand) when the file is absent and the download fails.
    """
    import shutil
    import tarfile
    import urllib.error
    import urllib.request  # here, not at the top: `import ember` need not load the HTTP stack

    if fname is None:
        fname = _os.path.basename(origin)
    directory = _os.path.join(_cache_root(cache_dir), cache_subdir)
    path = _os.path.join(directory, fname)
    if force_download or not _os.path.exists(path):
        _os.makedirs(directory, exist_ok=True)
        partial = path + ".part"
        try:
            with urllib.request.urlopen(origin, timeout=30) as response, open(partial, "wb") as out:
                shutil.copyfileobj(response, out)
        except (urllib.error.URLError, OSError, ValueError) as error:
            if _os.path.exists(partial):
                _os.remove(partial)
            raise RuntimeError(
                f"{fname} is not in the Keras cache and downloading it from {origin} failed ({error}). "
                f"This needs network access; or download the file elsewhere and place it at {path}") from None
        _os.replace(partial, path)
    if (untar or extract) and tarfile.is_tarfile(path):
        target = _os.path.join(directory, fname[:-len(".tar.gz")] if fname.endswith(".tar.gz") else fname + "_x")
        if not _os.path.exists(target):
            with tarfile.open(path) as archive:
                archive.extractall(directory, filter="data")
        return target
    return path


def _mnist_like(name, files_dir, cache_files):
    import gzip

    paths = [get_file(f, origin=_ORIGIN + files_dir + f, cache_subdir=_os.path.join("datasets", files_dir)
                      if files_dir else "datasets") for f in cache_files]
    with gzip.open(paths[0], "rb") as f:
        y_train = _np.frombuffer(f.read(), _np.uint8, offset=8)
    with gzip.open(paths[1], "rb") as f:
        x_train = _np.frombuffer(f.read(), _np.uint8, offset=16).reshape(len(y_train), 28, 28)
    with gzip.open(paths[2], "rb") as f:
        y_test = _np.frombuffer(f.read(), _np.uint8, offset=8)
    with gzip.open(paths[3], "rb") as f:
        x_test = _np.frombuffer(f.read(), _np.uint8, offset=16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)


def _load_mnist(path="mnist.npz"):
    """((x_train, y_train), (x_test, y_test)): uint8 images [n, 28, 28] and labels, from ~/.keras/datasets/mnist.npz."""
    path = get_file(fname=path, origin=_ORIGIN + "mnist.npz")
    with _np.load(path, allow_pickle=False) as data:
        return (data["x_train"], data["y_train"]), (data["x_test"], data["y_test"])


def _load_fashion_mnist():
    """Fashion-MNIST from the four gzip files in ~/.keras/datasets/fashion-mnist/."""
    files = ["train-labels-idx1-ubyte.gz", "train-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz",
             "t10k-images-idx3-ubyte.gz"]
    return _mnist_like("fashion_mnist", "fashion-mnist/", files)


def _load_cifar10():
    """CIFAR-10 from ~/.keras/datasets/cifar-10-batches-py (uint8 images [n, 32, 32, 3], labels [n, 1])."""
    import pickle

    directory = get_file(fname="cifar-10-batches-py.tar.gz",
                         origin="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz", untar=True)

    def batch(name):
        with open(_os.path.join(directory, name), "rb") as f:
            d = pickle.load(f, encoding="bytes")
        x = _np.asarray(d[b"data"], _np.uint8).reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return x, _np.asarray(d[b"labels"], _np.uint8).reshape(-1, 1)

    parts = [batch(f"data_batch_{i}") for i in range(1, 6)]
    x_test, y_test = batch("test_batch")
    return (_np.concatenate([p[0] for p in parts]), _np.concatenate([p[1] for p in parts])), (x_test, y_test)


mnist = _SimpleNamespace(load_data=_load_mnist)
fashion_mnist = _SimpleNamespace(load_data=_load_fashion_mnist)
cifar10 = _SimpleNamespace(load_data=_load_cifar10)

__all__ = ["mnist", "fashion_mnist", "cifar10", "get_file"]
