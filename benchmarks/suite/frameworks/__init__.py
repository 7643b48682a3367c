"""One module per framework, each giving that framework's own ops under the
same names, so a case or a model is written once and run on every framework.

Every module defines:

  NAME, version(), threads()      what it is and how many threads it uses
  tensor(a)                       a NumPy array as this framework's tensor
  image(a), filters(w)            an NHWC image and an HWIO filter (PyTorch
                                  stores them its own way)
  params(tree)                    a dict/list tree of NumPy weights, converted
  to_numpy(y), image_to_numpy(y)  the value back as a NumPy array
  finish(y)                       wait until y is computed
  compilers()                     {label: decorator} for whole-function
                                  compilation (ember.function, jax.jit, ...)
  value_and_grad(f)               f(params, *args) -> scalar, turned into
                                  g(params, *args) -> (value, gradients in
                                  params' tree); NumPy has none
  memory_stats(), reset_memory_peak()
                                  the allocator's {"in_use", "peak"} bytes or
                                  None, and a reset of its peak; only where the
                                  framework counts (Ember, TensorFlow, JAX)

and the ops the cases and models call: add, multiply, exp, tanh, sigmoid,
gelu, relu, matmul, reduce_sum, conv2d(x, w, stride) with SAME padding,
batch_norm(x, bn), max_pool(x) (3x3, stride 2, SAME), spatial_mean(x),
dense(x, w, b), layer_norm(x, gamma, beta), attention(q, k, v, heads) on
[batch, seq, dim] inputs. Each maps to the framework's raw ops
(torch.nn.functional, tf.nn, jax.lax / jax.numpy), never to a layer
library, so every framework runs the same arithmetic.
"""

BN_EPSILON = 1e-5
LN_EPSILON = 1e-5


def same_pads(size, k, stride):
    """TensorFlow's SAME padding along one axis: (before, after); the odd
    extra element goes after."""
    out = -(-size // stride)
    total = max((out - 1) * stride + k - size, 0)
    return total // 2, total - total // 2


def tree_map(fn, tree, *rest):
    """fn over the leaves of a dict/list tree (and of trees `rest` shaped
    like it), keeping the structure."""
    if isinstance(tree, dict):
        return {k: tree_map(fn, v, *(r[k] for r in rest)) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [tree_map(fn, v, *(r[i] for r in rest)) for i, v in enumerate(tree)]
    return fn(tree, *rest)
