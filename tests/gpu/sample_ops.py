"""A sample of ops on gpu:0 for compute-sanitizer (tests/gpu/run.sh): every
GPU kernel family over its dtypes, flat and broadcast shapes, empty and
scalar tensors, each result checked against NumPy, so memcheck sees every
kernel's loads and stores at the edges."""

import sys

import numpy as np

import ember

SHAPES = [((), ()), ((0,), (0,)), ((7,), ()), ((), (5,)), ((1000,), (1000,)), ((3, 1, 5), (1, 4, 5)),
          ((2, 3, 4, 5), (3, 1, 5)), ((33, 65), (65,))]
UNARY = {"exp": np.exp, "tanh": np.tanh, "negative": np.negative, "abs": np.abs, "sqrt": np.sqrt,
         "floor": np.floor, "sigmoid": lambda x: 1 / (1 + np.exp(-x))}
BINARY = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply, "maximum": np.maximum,
          "less": np.less, "equal": np.equal}


def check(name, got, want, dtype):
    tol = 1e-2 if dtype == "float16" else 1e-5
    if not np.allclose(got.astype(np.float64), np.asarray(want, dtype=np.float64), rtol=tol, atol=tol,
                       equal_nan=True):
        raise AssertionError(f"{name} {dtype}: {got} != {want}")


def main():
    rng = np.random.default_rng(0)
    count = 0
    with ember.device("gpu:0"):
        for dtype in ("float32", "float64", "float16", "int32"):
            for a_shape, b_shape in SHAPES:
                a = (rng.standard_normal(a_shape) * 3).astype(dtype)
                b = (rng.standard_normal(b_shape) * 3).astype(dtype)
                for name, ref in BINARY.items():
                    got = getattr(ember, name)(ember.constant(a), ember.constant(b)).numpy()
                    check(name, got, ref(a, b), dtype)
                    count += 1
                if dtype.startswith("float"):
                    for name, ref in UNARY.items():
                        x = np.abs(a) if name == "sqrt" else a
                        got = getattr(ember, name)(ember.constant(x)).numpy()
                        with np.errstate(all="ignore"):
                            check(name, got, ref(x.astype(np.float64)), dtype)
                        count += 1
    print(f"{count} op calls on gpu:0 matched NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
