"""op_db records for the optimizer updates (op_defs/training.yaml).

The references are the Keras update rules in float64, rounded once to the
tested dtype (the kernels compute in float32 for 16-bit types).
"""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make

SHAPES = [("vector", (5,)), ("matrix", (3, 4)), ("scalar", ()), ("empty", (0, 3)), ("large", (LARGE,))]


def _wide(*arrays):
    return [np.asarray(a, dtype=np.float64) for a in arrays]


def _scalar(value, dtype):
    return np.asarray(value, dtype=dtype)


def ref_gradient_descent(var, grad, lr):
    v, g, r = _wide(var, grad, lr)
    return (v - r * g).astype(var.dtype)


def ref_momentum(var, m, grad, lr, momentum, use_nesterov=False):
    v, mm, g, r, mu = _wide(var, m, grad, lr, momentum)
    next_m = mu * mm - r * g
    step = mu * next_m - r * g if use_nesterov else next_m
    return (v + step).astype(var.dtype), next_m.astype(var.dtype)


def ref_adam(var, m, v, grad, lr, beta_1, beta_2, epsilon, beta_1_power, beta_2_power, weight_decay):
    x, mm, vv, g, r, b1, b2, eps, p1, p2, wd = _wide(var, m, v, grad, lr, beta_1, beta_2, epsilon, beta_1_power,
                                                     beta_2_power, weight_decay)
    next_m = mm + (g - mm) * (1 - b1)
    next_v = vv + (g * g - vv) * (1 - b2)
    lr_t = r * np.sqrt(1 - p2) / (1 - p1)
    out = x * (1 - r * wd) - lr_t * next_m / (np.sqrt(next_v) + eps)
    return out.astype(var.dtype), next_m.astype(var.dtype), next_v.astype(var.dtype)


def gradient_descent_samples(dtype, rng):
    for name, shape in SHAPES:
        yield Sample(name, (make(rng, shape, dtype), make(rng, shape, dtype), _scalar(0.1, dtype)))


def momentum_samples(dtype, rng):
    for name, shape in SHAPES:
        args = (make(rng, shape, dtype), make(rng, shape, dtype), make(rng, shape, dtype), _scalar(0.05, dtype),
                _scalar(0.9, dtype))
        yield Sample(name, args)
        if name == "matrix":
            yield Sample("nesterov", args, {"use_nesterov": True})


def adam_samples(dtype, rng):
    for name, shape in SHAPES:
        v = make(rng, shape, dtype, "positive")  # the second moment is never negative
        hyper = [_scalar(x, dtype) for x in (0.01, 0.9, 0.999, 1e-3, 0.9 ** 3, 0.999 ** 3)]
        yield Sample(name, (make(rng, shape, dtype), make(rng, shape, dtype), v, make(rng, shape, dtype), *hyper,
                            _scalar(0.0, dtype)))
        if name == "matrix":
            yield Sample("adamw", (make(rng, shape, dtype), make(rng, shape, dtype), v, make(rng, shape, dtype),
                                   *hyper, _scalar(0.004, dtype)))


def _errors(op_name, num_state, num_scalars):
    def gen():
        state = [np.ones((2, 3), np.float32)] * num_state
        scalars = [np.float32(0.1)] * num_scalars
        yield ErrorInput("grad_shape", (*state, np.ones((3, 2), np.float32), *[np.asarray(s) for s in scalars]),
                         {}, ValueError, rf"^{op_name}: grad has shape \[3, 2\] but var has shape \[2, 3\]")
        yield ErrorInput("scalar_rank", (*state, np.ones((2, 3), np.float32), np.ones(2, np.float32),
                                         *[np.asarray(s) for s in scalars[1:]]),
                         {}, ValueError, rf"^{op_name}: lr must be a scalar")
        yield ErrorInput("int_dtype", (*[np.ones((2, 3), np.int32)] * (num_state + 1),
                                       *[np.asarray(1, np.int32)] * num_scalars),
                         {}, TypeError, rf"^{op_name}: .*dtype int32")
    return gen


def entries(ember):
    raw = ember.raw_ops
    tol16 = {"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}
    return [
        OpInfo("apply_gradient_descent", raw.apply_gradient_descent, ref_gradient_descent, gradient_descent_samples,
               _errors("apply_gradient_descent", 1, 1), tols=tol16),
        OpInfo("apply_momentum", raw.apply_momentum, ref_momentum, momentum_samples, _errors("apply_momentum", 2, 2),
               tols=tol16),
        OpInfo("apply_adam", raw.apply_adam, ref_adam, adam_samples, _errors("apply_adam", 3, 7), tols=tol16),
    ]
