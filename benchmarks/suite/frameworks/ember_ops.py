"""Ember's ops under the suite's common names (see frameworks/__init__.py)."""
import os

import numpy as np

import ember
from benchmarks.suite.frameworks import BN_EPSILON, LN_EPSILON

NAME = "ember"


def version():
    return ember.__version__


def threads():
    # Ember has no API for its intra-op thread count: it is EMBER_NUM_THREADS,
    # or every hardware thread when unset (csrc/devices/cpu/cpu_device.cc).
    env = os.environ.get("EMBER_NUM_THREADS")
    return {"intra_op": int(env) if env else os.cpu_count(),
            "source": "EMBER_NUM_THREADS" if env else "default: all hardware threads (no API to query it)",
            "async_executor": "one worker thread per device"}


tensor = ember.constant
image = ember.constant
filters = ember.constant


def params(tree):
    if isinstance(tree, dict):
        return {k: params(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [params(v) for v in tree]
    return ember.constant(np.asarray(tree))


def to_numpy(y):
    return y.numpy()


image_to_numpy = to_numpy


def finish(y):
    # In async mode the op only queued its kernel; wait for all of them.
    ember.sync()
    return y


def compilers():
    return {"ember.function": ember.function}


def value_and_grad(f):
    def value_and_grad_f(p, *args):
        with ember.GradientTape() as tape:
            tape.watch(p)
            y = f(p, *args)
        return y, tape.gradient(y, p)
    return value_and_grad_f


def memory_stats():
    stats = ember.config.memory_stats("cpu:0")
    return {"in_use": stats["bytes_in_use"], "peak": stats["peak_bytes_in_use"]}


def reset_memory_peak():
    ember.config.reset_peak_memory_stats("cpu:0")


class sync_mode:
    """Runs ops synchronously inside the block, then restores the mode."""

    def __enter__(self):
        self.was = ember.config.is_async()
        ember.config.set_async(False)

    def __exit__(self, *exc):
        ember.config.set_async(self.was)
        return False


class async_mode(sync_mode):
    def __enter__(self):
        self.was = ember.config.is_async()
        ember.config.set_async(True)


class unfused_async_mode(async_mode):
    """Async mode with the fusion pass off (the remapping option), for timing
    graph nodes one by one; the options are read when a function traces."""

    def __enter__(self):
        super().__enter__()
        self.options = ember.config.optimizer.get_experimental_options()
        ember.config.optimizer.set_experimental_options({"remapping": False})

    def __exit__(self, *exc):
        ember.config.optimizer.set_experimental_options({"remapping": self.options["remapping"]})
        return super().__exit__(*exc)


add = ember.add
multiply = ember.multiply
exp = ember.exp
tanh = ember.tanh
sigmoid = ember.nn.sigmoid
relu = ember.nn.relu
matmul = ember.matmul
reduce_sum = ember.reduce_sum


def gelu(x):
    return ember.nn.gelu(x, approximate=False)


def conv2d(x, w, stride):
    return ember.nn.conv2d(x, w, strides=stride, padding="SAME")


def batch_norm(x, bn):
    return ember.nn.batch_normalization(x, bn["mean"], bn["variance"], bn["offset"], bn["scale"], BN_EPSILON)


def max_pool(x):
    return ember.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME")


def spatial_mean(x):
    return ember.reduce_mean(x, axis=[1, 2])


def dense(x, w, b):
    return ember.nn.bias_add(ember.matmul(x, w), b)


def layer_norm(x, gamma, beta):
    return ember.nn.layer_normalization(x, gamma, beta, axis=-1, epsilon=LN_EPSILON)


def attention(q, k, v, heads):
    batch, seq, dim = q.shape

    def split(t):
        return ember.transpose(ember.reshape(t, [batch, seq, heads, dim // heads]), [0, 2, 1, 3])

    out = ember.nn.scaled_dot_product_attention(split(q), split(k), split(v))
    return ember.reshape(ember.transpose(out, [0, 2, 1, 3]), [batch, seq, dim])
