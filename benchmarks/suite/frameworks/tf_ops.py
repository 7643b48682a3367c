"""TensorFlow's ops (tf, tf.nn) under the suite's common names."""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep TensorFlow's start-up chatter off the report

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

from benchmarks.suite.frameworks import BN_EPSILON, LN_EPSILON  # noqa: E402

NAME = "tensorflow"


def version():
    return tf.__version__


def threads():
    # 0 means "TensorFlow picks": one thread per core.
    return {"intra_op": tf.config.threading.get_intra_op_parallelism_threads(),
            "inter_op": tf.config.threading.get_inter_op_parallelism_threads(),
            "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on)")}


def tensor(a):
    return tf.constant(np.asarray(a))


image = filters = tensor


def params(tree):
    if isinstance(tree, dict):
        return {k: params(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [params(v) for v in tree]
    return tensor(tree)


def to_numpy(y):
    return y.numpy()


image_to_numpy = to_numpy


def finish(y):
    return y  # eager ops on the CPU run before they return


def compilers():
    return {"tf.function": tf.function}


def value_and_grad(f):
    def value_and_grad_f(p, *args):
        with tf.GradientTape() as tape:
            tape.watch(p)
            y = f(p, *args)
        return y, tape.gradient(y, p)
    return value_and_grad_f


def memory_stats():
    try:  # the CPU device keeps no counters in most builds: ValueError
        info = tf.config.experimental.get_memory_info("CPU:0")
    except (ValueError, tf.errors.OpError):
        return None
    return {"in_use": info["current"], "peak": info["peak"]}


def reset_memory_peak():
    try:
        tf.config.experimental.reset_memory_stats("CPU:0")
    except (ValueError, tf.errors.OpError):
        pass


add = tf.add
multiply = tf.multiply
exp = tf.exp
tanh = tf.tanh
sigmoid = tf.sigmoid
relu = tf.nn.relu
matmul = tf.matmul
reduce_sum = tf.reduce_sum


def gelu(x):
    return tf.nn.gelu(x, approximate=False)


def conv2d(x, w, stride):
    return tf.nn.conv2d(x, w, strides=stride, padding="SAME")


def batch_norm(x, bn):
    return tf.nn.batch_normalization(x, bn["mean"], bn["variance"], bn["offset"], bn["scale"], BN_EPSILON)


def max_pool(x):
    return tf.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME")


def spatial_mean(x):
    return tf.reduce_mean(x, axis=[1, 2])


def dense(x, w, b):
    return tf.nn.bias_add(tf.matmul(x, w), b)


def layer_norm(x, gamma, beta):
    # What Keras' LayerNormalization does with tf.nn: moments, then the affine normalisation.
    mean, var = tf.nn.moments(x, axes=[-1], keepdims=True)
    return tf.nn.batch_normalization(x, mean, var, beta, gamma, LN_EPSILON)


def attention(q, k, v, heads):
    # tf.nn has no fused attention op: the matmul, softmax, matmul of Keras' MultiHeadAttention.
    batch, seq, dim = q.shape

    def split(t):
        return tf.transpose(tf.reshape(t, [batch, seq, heads, dim // heads]), [0, 2, 1, 3])

    q, k, v = split(q), split(k), split(v)
    scores = tf.matmul(q, k, transpose_b=True) * (1.0 / float(np.sqrt(dim // heads)))
    out = tf.matmul(tf.nn.softmax(scores, axis=-1), v)
    return tf.reshape(tf.transpose(out, [0, 2, 1, 3]), [batch, seq, dim])
