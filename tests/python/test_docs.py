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
