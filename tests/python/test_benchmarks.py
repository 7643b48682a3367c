"""The benchmark suite (python -m benchmarks) runs: a quick smoke run of
its dispatch cases, whose outputs it checks against NumPy, and of its
memory cases. No timing or memory size is asserted."""

import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the benchmarks package, for the comparison test

from benchmarks.suite import cases_memory  # noqa: E402


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


def test_quick_memory_run_measures_each_framework_in_its_own_process(tmp_path):
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "memory",
                             "--peers", "numpy", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert {c["name"] for c in results["cases"]} == {"resnet50 batch 1 inference", "mlp batch 64 training step"}
    for case in results["cases"]:
        assert case["kind"] == "memory" and not case["failures"] and not case["mismatches"], case
        entries = {e["framework"]: e for e in case["results"]}
        assert set(entries) == {"ember", "numpy"}, entries
        assert entries["numpy"]["reference"], entries["numpy"]
        ember = entries["ember"]
        assert ember["check"]["ok"], ember  # the same logits / losses as NumPy's
        for e in entries.values():
            assert 0 < e["import_rss"] <= e["baseline_rss"], e
            assert e["peak_rss"] >= e["baseline_rss"] and e["peak_increase"] == e["peak_rss"] - e["baseline_rss"], e
        # Ember's allocator held the weights at the baseline and its peak cannot be below that.
        assert 0 < ember["allocator"]["baseline_in_use"] <= ember["allocator"]["peak"], ember
        (row,) = case["ember_vs_peers"]
        assert row["lowest_peer"] == "numpy" and row["target_met"] == (row["ratio_peak_rss"] <= 1.0), row
    text = (tmp_path / "results.md").read_text()
    assert "## Peak memory" in text and text.count("**target: ember peak <= lowest peer's**") == 2, text


def test_memory_comparison_takes_the_lowest_peer_for_each_measure():
    MIB = 2**20
    def entry(name, peak, increase):
        return {"impl": name, "framework": name, "ember": name == "ember", "peak_rss": peak * MIB,
                "peak_increase": increase * MIB}
    skipped = {"impl": "torch", "framework": "torch", "ember": False, "skipped": "not installed"}
    (row,) = cases_memory._compare([entry("ember", 300, 60), entry("numpy", 200, 100), entry("jax", 400, 40),
                                    skipped])
    assert row["lowest_peer"] == "numpy" and row["ratio_peak_rss"] == 1.5 and not row["target_met"], row
    assert row["lowest_peer_by_increase"] == "jax" and row["ratio_peak_increase"] == 1.5, row
    # A peer whose workload added nothing counts as one page, not a division by zero.
    (row,) = cases_memory._compare([entry("ember", 100, 4096 / MIB), entry("numpy", 200, 0)])
    assert row["target_met"] and row["ratio_peak_increase"] == 1.0 and row["target_met_increase"], row
