"""A short fixed-seed fuzzing run per mode: no call may crash or hang the
process, and after any failed or interrupted call the runtime must still
compute (the worker's canary op; tests/fuzz/worker.py).

Not collected by the default ``pytest`` run (testpaths are tests/python and
tests/codegen); CI runs it as ``python -m pytest -q tests/fuzz``.
EMBER_FUZZ_SECONDS sets the time per mode (default 20).
"""

import os

import pytest

import api_fuzzer

SECONDS = float(os.environ.get("EMBER_FUZZ_SECONDS", "20"))


@pytest.mark.parametrize("mode", ["async", "sync", "function"])
def test_no_crash_or_hang(mode):
    summary = api_fuzzer.run([mode], SECONDS, seed=0, log=lambda _: None)
    (stats,) = summary["modes"]
    assert stats["calls"] > 0, "the fuzzer made no calls (did the worker fail to start?)"
    bad = [c for c in summary["classes"] if c["kind"] in ("crash", "hang", "unusable")]
    details = "\n\n".join(f"{c['kind']} {c['exception'] or ''} in {c['target']} ({c['count']}x):\n{c['code']}"
                          for c in bad)
    assert not bad, f"{len(bad)} crash/hang/unusable classes in {stats['calls']} calls:\n\n{details}"
