"""PyTorch's ops (torch, torch.nn.functional) under the suite's common names.

Images stay NHWC in memory: an NHWC array seen as NCHW with permute() is
exactly PyTorch's channels_last layout, the fast one for CPU convolutions,
and filters are stored channels_last to match.
"""
import shutil
import sys

import numpy as np
import torch
import torch.nn.functional as F

from benchmarks.suite.frameworks import BN_EPSILON, LN_EPSILON, same_pads, tree_map

NAME = "torch"


def version():
    return torch.__version__


def threads():
    return {"intra_op": torch.get_num_threads(), "inter_op": torch.get_num_interop_threads()}


def tensor(a):
    return torch.from_numpy(np.array(a))


def image(a):
    return torch.from_numpy(np.array(a)).permute(0, 3, 1, 2)  # NCHW view of NHWC memory


def filters(w):
    return torch.from_numpy(np.array(w)).permute(3, 2, 0, 1).contiguous(memory_format=torch.channels_last)


def params(tree):
    """4-D arrays are HWIO filters, 2-D arrays dense weights [in, out]."""
    if isinstance(tree, dict):
        return {k: params(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return [params(v) for v in tree]
    a = np.asarray(tree)
    if a.ndim == 4:
        return filters(a)
    if a.ndim == 2:
        return tensor(a.T)  # F.linear's [out, in]
    return tensor(a)


def to_numpy(y):
    return y.numpy()


def image_to_numpy(y):
    return y.permute(0, 2, 3, 1).numpy()


def finish(y):
    return y


def _compile(fn):
    # torch.compile's code generator and TensorFlow each load LLVM; with both
    # in one process (torch 2.15, tf 2.21) the process aborts with "LLVM ERROR:
    # inconsistency in registered CommandLine options", which no try/except
    # can catch. So it only runs while TensorFlow is not loaded.
    if "tensorflow" in sys.modules:
        raise RuntimeError("skipped: TensorFlow is loaded in this process and torch.compile would abort it "
                           "(LLVM command-line options registered twice)")
    if not (shutil.which("c++") or shutil.which("g++") or shutil.which("clang++")):
        raise RuntimeError("skipped: torch.compile needs a C++ compiler and none is on PATH")
    return torch.compile(fn)


def compilers():
    return {"torch.compile": _compile}


def value_and_grad(f):
    def value_and_grad_f(p, *args):
        # Leaves that share the weights' storage; the caller's weights stay
        # plain tensors, so an update of them records no graph.
        p = tree_map(lambda t: t.detach().requires_grad_(), p)
        y = f(p, *args)
        y.backward()
        return y.detach(), tree_map(lambda t: t.grad, p)
    return value_and_grad_f


add = torch.add
multiply = torch.mul
exp = torch.exp
tanh = torch.tanh
sigmoid = torch.sigmoid
relu = torch.relu
reduce_sum = torch.sum


def matmul(a, b):
    return torch.matmul(a, b)


def gelu(x):
    return F.gelu(x)  # exact (erf) form by default


def _pad_same(x, kh, kw, stride, value=0.0):
    """Returns (x, padding): symmetric SAME padding goes to the op, the
    asymmetric kind (stride 2) is applied here."""
    (t, b), (l, r) = same_pads(x.shape[2], kh, stride), same_pads(x.shape[3], kw, stride)
    if t == b and l == r:
        return x, (t, l)
    return F.pad(x, (l, r, t, b), value=value), (0, 0)


def conv2d(x, w, stride):
    x, padding = _pad_same(x, w.shape[2], w.shape[3], stride)
    return F.conv2d(x, w, stride=stride, padding=padding)


def batch_norm(x, bn):
    return F.batch_norm(x, bn["mean"], bn["variance"], bn["scale"], bn["offset"], training=False, eps=BN_EPSILON)


def max_pool(x):
    x, padding = _pad_same(x, 3, 3, 2, value=float("-inf"))
    return F.max_pool2d(x, 3, 2, padding=padding)


def spatial_mean(x):
    return x.mean(dim=(2, 3))


def dense(x, w, b):
    return F.linear(x, w, b)  # w from params(): [out, in]


def layer_norm(x, gamma, beta):
    return F.layer_norm(x, (x.shape[-1],), gamma, beta, eps=LN_EPSILON)


def attention(q, k, v, heads):
    batch, seq, dim = q.shape

    def split(t):
        return t.reshape(batch, seq, heads, dim // heads).transpose(1, 2)

    out = F.scaled_dot_product_attention(split(q), split(k), split(v))
    return out.transpose(1, 2).reshape(batch, seq, dim)
