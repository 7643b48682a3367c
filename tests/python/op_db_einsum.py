"""op_db entries for einsum (op_defs/einsum.yaml), checked against np.einsum."""

import numpy as np

from op_db import ErrorInput, OpInfo, Sample, make

# (sample name, equation, operand shapes): one row per einsum feature.
_CASES = [
    ("matmul", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("batch_matmul", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("transpose", "ij->ji", [(3, 4)]),
    ("permute_3d", "abc->cab", [(2, 3, 4)]),
    ("trace", "ii", [(4, 4)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("batch_diagonal", "bii->ib", [(2, 3, 3)]),
    ("outer", "i,j->ij", [(3,), (4,)]),
    ("dot", "i,i->", [(5,)]*2),
    ("sum_all", "ijk->", [(2, 3, 4)]),
    ("reduce_middle", "ijk->ik", [(2, 3, 4)]),
    ("elementwise", "ij,ij->ij", [(3, 4), (3, 4)]),
    ("implicit_matmul", "ba,ac", [(2, 3), (3, 4)]),
    ("implicit_case_order", "bA", [(2, 3)]),
    ("implicit_trace", "jii", [(2, 3, 3)]),
    ("sum_free_label", "ij,jk->k", [(2, 3), (3, 4)]),
    ("ellipsis_transpose", "...ij->...ji", [(2, 3, 4)]),
    ("ellipsis_bcast_matmul", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ellipsis_middle", "i...j,j...->...i", [(2, 3, 4), (4, 3)]),
    ("ellipsis_implicit", "...i,...i", [(3, 4), (4,)]),
    ("three_operands", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("three_trace", "ab,bc,ca->", [(2, 3), (3, 4), (4, 2)]),
    ("three_batch", "bi,bj,bk->bijk", [(2, 3), (2, 2), (2, 4)]),
    ("spaces", "ij, jk -> ki", [(2, 3), (3, 4)]),
    ("scalar", ",ij->ij", [(), (2, 3)]),
    ("scalar_out", "->", [()]),
    ("empty", "ij,jk->ik", [(0, 3), (3, 4)]),
    ("empty_contraction", "ij,jk->ik", [(3, 0), (0, 4)]),
    ("empty_reduce", "ij->i", [(3, 0)]),
]
# Above the parallel threshold (70k elements); float32 sums differ from
# NumPy's order by more than the default tolerance.
_LARGE = [
    ("large_batch_matmul", "bij,bjk->bik", [(70, 100, 10), (70, 10, 8)]),
    ("large_reduce", "ijk->kj", [(70, 100, 10)]),
]
_LARGE_TOLS = {"float32": (1e-4, 1e-4)}


def ref_einsum(equation, *operands):
    """np.einsum in float64 (complex128 for complex64), rounded once to the inputs' dtype."""
    dtype = operands[0].dtype
    if dtype.kind in "fcV":  # "V": bfloat16
        wide = np.complex128 if dtype.kind == "c" else np.float64
        operands = [x.astype(wide) for x in operands]
    return np.asarray(np.einsum(equation, *operands)).astype(dtype)


def einsum_samples(dtype, rng):
    for name, equation, shapes in _CASES:
        yield Sample(name, (equation,) + tuple(make(rng, s, dtype) for s in shapes))
    for name, equation, shapes in _LARGE:
        yield Sample(name, (equation,) + tuple(make(rng, s, dtype) for s in shapes), tols=_LARGE_TOLS)


def einsum_errors():
    a = np.ones((2, 3), np.float32)
    b = np.ones((3, 4), np.float32)

    def err(name, args, regex, exc=ValueError):
        return ErrorInput(name, args, {}, exc, "^einsum: .*" + regex)

    yield err("bad_character", ("ij;jk", a, b), "invalid character ';'")
    yield err("bad_dots", ("..ij", a), r"exactly '\.\.\.'")
    yield err("two_ellipses", ("...i...", a), r"more than one '\.\.\.'")
    yield err("two_arrows", ("ij->j->i", a), "more than one '->'")
    yield err("output_comma", ("ij->i,j", a), "a ',' after '->'")
    yield err("too_few_terms", ("ij,jk->ik", a), "2 input terms but 1 inputs")
    yield err("too_many_terms", ("ij", a, b), "1 input terms but 2 inputs")
    yield err("rank_mismatch", ("ijk->i", a), r"input 0 has shape \[2, 3\] \(rank 2\)")
    yield err("label_size_mismatch", ("ij,jk->ik", a, a), "label 'j' has size 3 .* 2 in input 1")
    yield err("diagonal_not_square", ("ii->i", a), "label 'i'")
    yield err("unknown_output_label", ("ij->k", a), "output label 'k' does not appear")
    yield err("repeated_output_label", ("ij->ii", a), "output label 'i' appears more than once")
    yield err("ellipsis_missing_in_output", ("...j->j", np.ones((2, 3, 4), np.float32)), r"needs '\.\.\.'")
    yield err("ellipsis_not_broadcastable", ("...i,...i->...i", a, np.ones((4, 3), np.float32)),
              r"'\.\.\.' do not broadcast")
    yield err("no_inputs", ("ij",), "equation 'ij' needs at least one input")
    yield err("equation_not_a_string", (1, a), "equation must be a string", TypeError)
    yield err("bool", ("ij->ji", np.ones((2, 2), np.bool_)), ".*dtype bool", TypeError)
    yield ErrorInput("unknown_kwarg", ("ij", a), {"axis": 0}, TypeError, "^einsum: invalid keyword")


def entries(ember):
    return [OpInfo("einsum", ember.einsum, ref_einsum, einsum_samples, einsum_errors)]
