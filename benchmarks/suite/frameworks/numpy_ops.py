"""NumPy's ops under the suite's common names; with float64 weights the same
functions give the reference outputs the other frameworks are checked against."""
import numpy as np

from benchmarks.suite.frameworks import BN_EPSILON, LN_EPSILON, same_pads

NAME = "numpy"


def version():
    return np.__version__


def threads():
    return {"blas": "see machine.blas"}


def tensor(a):
    return np.array(a)


image = filters = tensor


def params(tree):
    if isinstance(tree, dict):
        return {k: params(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [params(v) for v in tree]
    return np.asarray(tree)


def to_numpy(y):
    return np.asarray(y)


image_to_numpy = to_numpy


def finish(y):
    return y


def compilers():
    return {}


add = np.add
multiply = np.multiply
exp = np.exp
tanh = np.tanh
matmul = np.matmul
reduce_sum = np.sum


def relu(x):
    return np.maximum(x, 0)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def erf(x):
    """erf to 1.5e-7 (Abramowitz and Stegun 7.1.26): NumPy has none."""
    t = 1 / (1 + 0.3275911 * np.abs(x))
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return np.sign(x) * (1 - poly * np.exp(-x * x))


def gelu(x):
    return 0.5 * x * (1 + erf(x * np.asarray(1 / np.sqrt(2), x.dtype)))


def conv2d(x, w, stride):
    kh, kw, cin, cout = w.shape
    n, h, wd, _ = x.shape
    if kh == kw == 1:
        return x[:, ::stride, ::stride, :] @ w[0, 0]
    (t, b), (l, r) = same_pads(h, kh, stride), same_pads(wd, kw, stride)
    x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)))
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))[:, ::stride, ::stride]
    # [N, H', W', C, kh, kw] -> rows of (kh, kw, C) patches, to match w's HWIO order (im2col)
    patches = windows.transpose(0, 1, 2, 4, 5, 3).reshape(-1, kh * kw * cin)
    return (patches @ w.reshape(-1, cout)).reshape(n, windows.shape[1], windows.shape[2], cout)


def batch_norm(x, bn):
    return (x - bn["mean"]) / np.sqrt(bn["variance"] + BN_EPSILON) * bn["scale"] + bn["offset"]


def max_pool(x):
    (t, b), (l, r) = same_pads(x.shape[1], 3, 2), same_pads(x.shape[2], 3, 2)
    x = np.pad(x, ((0, 0), (t, b), (l, r), (0, 0)), constant_values=-np.inf)
    return np.lib.stride_tricks.sliding_window_view(x, (3, 3), axis=(1, 2))[:, ::2, ::2].max(axis=(-2, -1))


def spatial_mean(x):
    return x.mean(axis=(1, 2))


def dense(x, w, b):
    return x @ w + b


def layer_norm(x, gamma, beta):
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + LN_EPSILON) * gamma + beta


def attention(q, k, v, heads):
    batch, seq, dim = q.shape

    def split(t):
        return t.reshape(batch, seq, heads, dim // heads).transpose(0, 2, 1, 3)

    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(dim // heads).astype(q.dtype)
    scores = np.exp(scores - scores.max(-1, keepdims=True))
    out = (scores / scores.sum(-1, keepdims=True)) @ v
    return out.transpose(0, 2, 1, 3).reshape(batch, seq, dim)
