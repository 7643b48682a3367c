"""The op database, the op definitions and the kernel registry agree with each other."""

import itertools

import pytest

import ember
from ember import _C
from op_db import OP_DB

OP_NAMES = _C._op_names()


def _promised_kernels(device="cpu"):
    """Every (op, device, dtypes) binding the op definitions allow, one dtype per type var."""
    promised = set()
    for name in OP_NAMES:
        type_vars = _C._op_info(name)["type_vars"]
        for combo in itertools.product(*type_vars.values()):
            promised.add((name, device, combo))
    return promised


def _registered_kernels():
    return {(op, device, tuple(dtypes)) for op, device, dtypes in _C._registered_kernels()}


def test_op_names_are_unique():
    assert len(OP_NAMES) == len(set(OP_NAMES))
    assert len(OP_NAMES) >= 32


@pytest.mark.parametrize("name", OP_NAMES)
def test_every_op_has_a_db_entry(name):
    assert name in OP_DB, f"op {name!r} has no entry in tests/python/op_db.py"


@pytest.mark.parametrize("name", sorted(OP_DB))
def test_every_db_entry_is_a_real_op(name):
    assert name in OP_NAMES
    info = OP_DB[name]
    assert callable(info.op)
    assert len(info.dtypes) > 0
    assert set(info.dtypes) - set(info.extra_dtypes) <= {d.name for d in ember.dtypes.ALL_DTYPES}


def test_every_promised_cpu_kernel_is_registered():
    missing = sorted(_promised_kernels() - _registered_kernels())
    assert missing == [], f"missing CPU kernels: {missing}"


def test_no_kernel_outside_the_declared_type_sets():
    extra = sorted(k for k in _registered_kernels() if k[1] == "cpu" and k not in _promised_kernels())
    assert extra == [], f"kernels registered for dtypes the op does not allow: {extra}"


def test_cast_has_every_dtype_pair():
    info = _C._op_info("cast")
    assert set(info["type_vars"]) == {"SrcT", "DstT"}
    pairs = {tuple(d) for op, dev, d in _C._registered_kernels() if op == "cast" and dev == "cpu"}
    dtypes = [d.name for d in ember.dtypes.ALL_DTYPES]
    assert len(dtypes) == 11
    assert pairs == set(itertools.product(dtypes, dtypes))


def test_divide_kernels_are_floating_or_complex_only():
    # Integers reach divide only by promotion to float64 (int_promotion).
    floating_and_complex = {"float16", "bfloat16", "float32", "float64", "complex64"}
    assert set(_C._op_info("divide")["type_vars"]["T"]) == floating_and_complex
    dtypes = {tuple(d) for op, dev, d in _C._registered_kernels() if op == "divide" and dev == "cpu"}
    assert dtypes == {(d,) for d in floating_and_complex}


def test_db_dtypes_follow_the_op_definitions():
    # divide also takes integers by promotion; everything else is exactly its type var set.
    for name, info in OP_DB.items():
        type_vars = _C._op_info(name)["type_vars"]
        if not type_vars:  # list(any) ops name their tested dtypes
            assert info.dtypes, name
            continue
        var = info.type_var or next(iter(type_vars))
        assert info.dtypes[:len(type_vars[var])] == tuple(type_vars[var])
    assert OP_DB["divide"].extra_dtypes == ("int8", "int16", "int32", "int64", "uint8")
    every = {d.name for d in ember.dtypes.ALL_DTYPES}
    assert set(OP_DB["add"].dtypes) == every - {"bool"}
    assert set(OP_DB["exp"].dtypes) == {"float16", "bfloat16", "float32", "float64", "complex64"}
    assert set(OP_DB["equal"].dtypes) == every


def test_op_info_shape():
    info = _C._op_info("matmul")
    assert [n for n, _ in info["inputs"]] == ["a", "b"]
    assert [a[0] for a in info["attrs"]] == ["transpose_a", "transpose_b"]
    with pytest.raises(Exception, match="no_such_op"):
        _C._op_info("no_such_op")
