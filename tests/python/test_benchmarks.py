"""The benchmark suite (python -m benchmarks) runs: a quick smoke run of
its dispatch cases, whose outputs it checks against NumPy. No timing is
asserted."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_quick_dispatch_run_checks_outputs_and_writes_results(tmp_path):
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "dispatch",
                             "--peers", "numpy", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    names = {case["name"] for case in results["cases"]}
    assert len(results["cases"]) >= 5 and any("add" in n for n in names), names
    for case in results["cases"]:
        assert not case["failures"] and not case["mismatches"], case
        assert case["results"], case
