"""JAX's ops (jax.numpy, jax.lax, jax.nn) under the suite's common names, on the CPU."""
import os

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

from benchmarks.suite.frameworks import BN_EPSILON, LN_EPSILON

NAME = "jax"


def version():
    return jax.__version__


def threads():
    # XLA's CPU client sizes its pool from the core count; no API reports it.
    return {"intra_op": "XLA default (one per core)", "xla_flags": os.environ.get("XLA_FLAGS", "")}


def tensor(a):
    return jnp.asarray(np.asarray(a))


image = filters = tensor


def params(tree):
    return jax.tree_util.tree_map(tensor, tree)


def to_numpy(y):
    return np.asarray(y)


image_to_numpy = to_numpy


def finish(y):
    # JAX dispatch returns before the computation ran.
    return jax.block_until_ready(y)


def compilers():
    return {"jax.jit": jax.jit}


value_and_grad = jax.value_and_grad


def memory_stats():
    # The CPU client keeps no counters in most jaxlib versions (None), and
    # none can be reset: a peak here would be the peak since start-up.
    stats = jax.devices("cpu")[0].memory_stats()
    return {"in_use": stats["bytes_in_use"], "peak": stats["peak_bytes_in_use"]} if stats else None


add = jnp.add
multiply = jnp.multiply
exp = jnp.exp
tanh = jnp.tanh
sigmoid = jax.nn.sigmoid
matmul = jnp.matmul
reduce_sum = jnp.sum


def relu(x):
    # jax.nn.relu computes this too, but behind a custom_jvp whose eager call
    # costs ~170 us on a 1-element array; the comparison is about ops, not that.
    return jnp.maximum(x, 0)


def gelu(x):
    return jax.nn.gelu(x, approximate=False)


def conv2d(x, w, stride):
    return lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batch_norm(x, bn):
    return (x - bn["mean"]) * lax.rsqrt(bn["variance"] + BN_EPSILON) * bn["scale"] + bn["offset"]


def max_pool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")


def spatial_mean(x):
    return jnp.mean(x, axis=(1, 2))


def dense(x, w, b):
    return jnp.matmul(x, w) + b


def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + LN_EPSILON) * gamma + beta


def attention(q, k, v, heads):
    batch, seq, dim = q.shape
    # jax.nn.dot_product_attention takes [batch, seq, heads, head_dim]: no transposes needed.
    split = [t.reshape(batch, seq, heads, dim // heads) for t in (q, k, v)]
    return jax.nn.dot_product_attention(*split).reshape(batch, seq, dim)
