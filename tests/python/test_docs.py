"""docs/ops.md, the op reference, is generated from op_defs/ and committed;
this test fails when it no longer matches what codegen writes."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
COMMAND = "python codegen/generate.py --op-defs op_defs --docs-out docs/ops.md"


def test_ops_md_is_up_to_date(tmp_path):
    fresh = tmp_path / "ops.md"
    # Run from the repository root with a relative --op-defs, as COMMAND does:
    # each entry's "defined at op_defs/<file>:<line>" depends on it.
    result = subprocess.run([sys.executable, "codegen/generate.py", "--op-defs", "op_defs", "--docs-out", str(fresh)],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"codegen failed:\n{result.stderr}"
    committed = ROOT / "docs" / "ops.md"
    assert committed.exists(), f"docs/ops.md is missing: run `{COMMAND}` from the repository root"
    assert committed.read_text(encoding="utf-8") == fresh.read_text(encoding="utf-8"), (
        f"docs/ops.md is stale: run `{COMMAND}` from the repository root")


def _public_function(name):
    import ember

    obj = ember
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def test_public_functions_match_their_documented_signatures():
    # An op whose public name is a hand-written wrapper declares the wrapper's
    # parameters (wrapper_signature); the docs and stubs show those, so they
    # must be the wrapper's real ones. Every other public name must be the
    # generated function, or the docs would describe the wrong parameters.
    import inspect

    sys.path.insert(0, str(ROOT / "codegen"))
    try:
        from model import load_op_defs
    finally:
        sys.path.pop(0)
    for op in load_op_defs(ROOT / "op_defs").ops:
        for name in op.python_names:
            fn = _public_function(name)
            generated = fn.__module__.startswith("ember._generated")
            if op.wrapper_signature is None:
                assert generated, f"ember.{name} is a wrapper: give op {op.name!r} a wrapper_signature"
                continue
            assert not generated, f"op {op.name!r} has a wrapper_signature but ember.{name} is generated"
            documented = inspect.signature(eval(f"lambda {op.wrapper_signature}: None"))  # noqa: S307
            actual = inspect.signature(fn)
            assert [(p.name, p.kind) for p in documented.parameters.values()] == [
                (p.name, p.kind) for p in actual.parameters.values()], name
