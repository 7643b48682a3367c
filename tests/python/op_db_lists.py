"""op_db entries for ops over lists of tensors (op_defs/lists.yaml)."""

import numpy as np

from op_db import LARGE, ErrorInput, OpInfo, Sample, make


def _identity_n_samples(dtype, rng):
    yield Sample("two", ([make(rng, (2, 3), dtype), make(rng, (4,), dtype)],))
    yield Sample("scalar", ([make(rng, (), dtype)],))
    yield Sample("empty", ([make(rng, (0, 3), dtype), make(rng, (1,), dtype), make(rng, (2, 2), dtype)],))
    yield Sample("large", ([make(rng, (LARGE,), dtype)],))


def _identity_n_errors():
    yield ErrorInput("not_a_list", (np.zeros(3, np.float32),), {}, TypeError,
                     r"^identity_n: argument 'input' expects a list")
    yield ErrorInput("bad_element", (["abc"],), {}, TypeError, r"^identity_n: ")


def entries(ember):
    return [
        OpInfo("identity_n", ember.identity_n, lambda values: [np.array(v) for v in values],
               _identity_n_samples, _identity_n_errors),
    ]
