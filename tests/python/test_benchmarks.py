"""The benchmark suite (python -m benchmarks) runs: a quick smoke run of
its dispatch cases, whose outputs it checks against NumPy, in the
interleaved and the isolated mode, and of its memory cases; a child process
that hangs or crashes is reported, not waited for. No timing or memory size
is asserted."""

import json
import pathlib
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the benchmarks package, for the comparison test

from benchmarks.suite import cases_memory, isolated, machine, targets  # noqa: E402


def test_quick_dispatch_run_checks_outputs_and_writes_results(tmp_path):
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", "dispatch",
                             "--peers", "numpy", "--interleaved", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["mode"] == {"name": "interleaved"} and results["options"]["mode"] == "interleaved", results["mode"]
    names = {case["name"] for case in results["cases"]}
    assert len(results["cases"]) >= 5 and any("add" in n for n in names), names
    for case in results["cases"]:
        assert not case["failures"] and not case["mismatches"], case
        assert case["results"], case


def _quick_run(tmp_path, only, *options, timeout=120):
    """A --quick run of the cases matching `only`, NumPy as the only peer:
    (the finished process, its results.json)."""
    result = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--only", only, "--peers", "numpy",
                             *options, "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stdout + result.stderr
    return result, json.loads((tmp_path / "results.json").read_text())


def test_quick_isolated_run_merges_every_process_into_the_same_records(tmp_path):
    _, results = _quick_run(tmp_path, r"dispatch/(add|relu)$", "--isolated", "--passes", "2")
    mode = results["mode"]
    assert mode["name"] == "isolated" and mode["passes"] == 2, mode
    assert mode["orders"] == [["numpy", "ember"], ["ember", "numpy"]], mode
    assert [(p["pass"], p["framework"]) for p in mode["processes"]] == [(1, "numpy"), (1, "ember"), (2, "ember"),
                                                                        (2, "numpy")], mode
    assert not any(p["failure"] for p in mode["processes"]) and all(p["load_before"] for p in mode["processes"])
    assert {n: p["used"] for n, p in results["peers"].items() if n in ("ember", "numpy")} == {"ember": True,
                                                                                                "numpy": True}
    assert set(results["machine"]["thread_pools_after_run"]) == {"ember", "numpy"}
    assert [c["name"] for c in results["cases"]] == ["add", "relu"]
    for case in results["cases"]:
        assert not case["failures"] and not case["mismatches"] and case["passes"] == 2, case
        assert len(case["reference_sha256"]) == 64, case  # every process computed the same reference
        entries = {e["impl"]: e for e in case["results"]}
        assert {e["framework"] for e in entries.values()} == {"ember", "numpy"}, entries
        for e in entries.values():
            # Each pass's rounds pooled: best and median over both processes' samples.
            assert e["check"]["ok"] and e["timed_in_passes"] == [1, 2], e
            assert e["samples"] == 2 * case["rounds"] and 0 < e["best_s"] <= e["median_s"], e
        (ratio,) = [r for r in case["ember_vs_peers"] if r["impl"] == "ember sync"]
        assert ratio["best_peer"] == "numpy", ratio
    text = (tmp_path / "results.md").read_text()
    assert "- Mode: isolated: each framework in a process of its own, 2 pass(es)" in text, text
    assert "in each of 2 passes, each framework in its own process" in text, text


def test_a_hung_child_is_killed_at_its_timeout(tmp_path):
    start = time.perf_counter()
    events, failure, code = isolated.launch([sys.executable, "-c", "import time; time.sleep(60)"],
                                            tmp_path / "events.jsonl", tmp_path / "log", timeout=1)
    assert time.perf_counter() - start < 30 and events == [] and code < 0, (failure, code)
    assert failure.startswith("timed out: 1 s without finishing a case"), failure


def _case_event(framework, key, impls, seconds):
    entries = [{"impl": i, "framework": framework, "ember": framework == "ember", "compiled": False,
                "setup_s": 0.1, "check": {"ok": True, "max_abs_diff": 0.0}} for i in impls]
    record = {"group": "g", "name": key.split("/")[1], "description": "d", "unit": "call", "per": 1, "rounds": 2,
              "inner": 1, "notes": [], "load_before": [0.1], "load_after": [0.2], "wall_s": 0.5,
              "reference_sha256": "ab" * 32, "entries": entries, "samples": {i: seconds for i in impls}}
    return {"event": "case", "key": key, "record": record}


def test_a_crashed_child_fails_its_case_and_skips_the_rest_without_losing_the_others():
    def process(framework, number, events, failure=None):
        return {"framework": framework, "pass": number, "failure": failure,
                "events": [{"event": "peer", "name": framework, "used": True, "version": "1"}] + events}
    crashed = "ended (killed by SIGSEGV) before finishing: ..."
    processes = [
        process("numpy", 1, [{"event": "start", "key": "g/a"}, _case_event("numpy", "g/a", ["numpy"], [3.0, 2.0]),
                             {"event": "start", "key": "g/b"}, _case_event("numpy", "g/b", ["numpy"], [4.0]),
                             {"event": "end", "thread_pools": []}]),
        process("ember", 1, [{"event": "start", "key": "g/a"},
                             _case_event("ember", "g/a", ["ember sync", "ember async"], [1.0, 5.0]),
                             {"event": "start", "key": "g/b"},
                             _case_event("ember", "g/b", ["ember sync", "ember async"], [1.0]),
                             {"event": "end", "thread_pools": []}]),
        process("ember", 2, [{"event": "start", "key": "g/a"},
                             _case_event("ember", "g/a", ["ember sync", "ember async"], [0.5]),
                             {"event": "start", "key": "g/b"}], failure=crashed),
        process("numpy", 2, [{"event": "start", "key": "g/a"}, _case_event("numpy", "g/a", ["numpy"], [1.5])],
                failure="timed out after 9 s and was killed"),
    ]
    a = isolated.merge_case("g", "a", processes)
    assert [e["impl"] for e in a["results"]] == ["ember sync", "ember async", "numpy"], a
    sync = a["results"][0]
    assert sync["best_s"] == 0.5 and sync["median_s"] == 1.0 and sync["timed_in_passes"] == [1, 2], sync
    assert a["ember_vs_peers"][0]["ratio_vs_best_peer"] == 0.5 / 1.5 and a["reference_sha256"] == "ab" * 32, a
    # Pass 1 timed case b, pass 2 crashed in it: the crash is Ember's error there, with no time.
    b = isolated.merge_case("g", "b", processes)
    errors = {e["impl"]: e.get("error", "") for e in b["results"]}
    assert errors["ember sync"] == errors["ember async"], errors
    assert errors["ember sync"].startswith("the ember process of pass 2 failed during this case: ended (killed by "
                                           "SIGSEGV)"), errors
    assert errors["numpy"].startswith("not run: the numpy process of pass 2 failed at case 'g/a'"), errors
    assert all("best_s" not in e for e in b["results"]) and len(b["failures"]) == 3, b
    assert isolated.peers(processes)["ember"]["used"]

    # A new process ran the cases after the crash: c is timed, not "not run".
    processes[2].update(keys=["g/a", "g/b", "g/c"], continued=True)
    processes.insert(3, process("ember", 2, [{"event": "start", "key": "g/c"},
                                             _case_event("ember", "g/c", ["ember sync"], [2.0]),
                                             {"event": "end", "thread_pools": []}]))
    processes[3]["keys"] = ["g/c"]
    c = isolated.merge_case("g", "c", processes)
    (sync,) = c["results"][:1]
    assert sync["impl"] == "ember sync" and sync["best_s"] == 2.0 and "error" not in sync, c


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


def test_memory_child_counts_modules_compiled_at_import(tmp_path):
    # The import's resident set counts the compiler's memory when bytecode
    # was stale or missing; the memory case says so (cases_memory.py).
    package = tmp_path / "stale_pkg_for_test"
    package.mkdir()
    (package / "__init__.py").write_text("from . import inner\n")
    (package / "inner.py").write_text("VALUE = 1\n")
    # A module object that answers any attribute (as torch.ops does) is skipped.
    code = ("import sys, types; sys.path[:0] = [{root!r}, {tmp!r}]; import stale_pkg_for_test; "
            "odd = types.ModuleType('stale_pkg_for_test.odd'); odd.__file__ = odd.__cached__ = object(); "
            "sys.modules[odd.__name__] = odd; "
            "from benchmarks.suite.memory_child import _compiled_at_import; "
            "print(_compiled_at_import('stale_pkg_for_test'))").format(root=str(ROOT), tmp=str(tmp_path))
    def count(*flags):
        done = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return int(done.stdout.split()[-1])
    assert count("-B") == 2  # no bytecode written: both compiled from source
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True, timeout=60)
    assert count("-B") == 0


def _timed(name, impl, best, framework=None, ember=False, compiled=False, throughput=None):
    e = {"impl": impl, "framework": framework or impl.split()[0].split(".")[0], "ember": ember,
         "compiled": compiled, "best_s": best, "median_s": best}
    if throughput:
        e["throughput"] = {"best": throughput, "unit": "GB/s"}
    return e


def test_targets_are_judged_from_the_run_and_say_what_they_cannot_judge():
    cases = [
        {"group": "dispatch", "name": "add", "results": [_timed("add", "ember sync", 300e-9, "ember", True),
                                                         _timed("add", "numpy", 250e-9)]},
        {"group": "dispatch", "name": "function call then read", "results": [
            _timed("f", "ember.function async", 1.9e-6, "ember", True, True),
            _timed("f", "ember.function sync", 2.1e-6, "ember", True, True),
            _timed("f", "jax.jit", 5e-6, "jax", compiled=True)]},
        {"group": "kernels", "name": "conv 56x56x64 1x1 256", "results": [
            _timed("c", "ember", 1.0e-3, "ember", True), _timed("c", "torch", 1.1e-3)]},
        {"group": "kernels", "name": "conv 224x224x3 7x7/2 64", "results": [
            _timed("c", "ember", 1.3e-3, "ember", True), _timed("c", "torch", 1.0e-3)]},
        {"group": "elementwise", "name": "memcpy", "results": [_timed("m", "numpy copyto", 1e-3, throughput=20.0)]},
        {"group": "elementwise", "name": "tanh(x*a+b)", "results": [
            _timed("t", "ember.function", 1e-3, "ember", True, True, throughput=17.0)]},
    ]
    idle = {t.text: o for t, o in targets.evaluate({"options": {"busy": 0}, "cases": cases})}
    assert idle["1-element add, sync <= numpy.add"].met is False, idle
    assert "1.20x of numpy" in idle["1-element add, sync <= numpy.add"].measured, idle
    assert idle["function call + read <= 2 us, async (idle machine)"].met is True, idle
    assert idle["function call + read <= 2 us, sync (idle machine)"].met is False, idle
    # The loaded-machine targets wait for a run with --busy; absent cases are not borrowed.
    assert idle["function call + read <= jax.jit, async, loaded machine"].met is None, idle
    assert idle["matmul 2x2, sync <= numpy"].met is None and "not in this run" in \
        idle["matmul 2x2, sync <= numpy"].measured, idle
    # The worst convolution decides, and the report names it.
    conv = idle["every convolution >= the best peer"]
    assert conv.met is False and "1.30x of torch (conv 224x224x3 7x7/2 64; 2 of 6" in conv.measured, conv
    assert idle["fused program at 16M elements >= 90% of memcpy"].met is False, idle
    loaded = {t.text: o for t, o in targets.evaluate({"options": {"busy": 2}, "cases": cases})}
    assert loaded["function call + read <= jax.jit, async, loaded machine"].met is True, loaded
    assert loaded["function call + read <= 2 us, async (idle machine)"].met is None, loaded
    table = targets.table({"options": {"busy": 0}, "cases": cases})
    assert "| NOT met |" in table and "what the profile says" in table, table


def test_busy_processes_run_for_the_whole_run_and_stop_after(tmp_path):
    result, results = _quick_run(tmp_path, r"dispatch/add$", "--interleaved", "--busy", "1", timeout=300)
    assert results["options"]["busy"] == 1, results["options"]
    text = (tmp_path / "results.md").read_text()
    assert "1 competing busy process(es)" in text and "## Targets (issue 24)" in text, text
    assert "targets (issue 24):" in result.stdout, result.stdout
    with machine.busy_processes(2) as busy:
        pids = [p.pid for p in busy.processes]
        assert all(p.poll() is None for p in busy.processes)
    assert all(not pathlib.Path(f"/proc/{pid}").exists() for pid in pids), pids
