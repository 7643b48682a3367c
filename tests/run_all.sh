#!/usr/bin/env bash
# Every test, from a fresh clone (the README's test command; .ci/run calls it):
#   1. build and install Ember with the C++ tests, run pytest and ctest;
#   2. the cross-device tests and the whole op database on the simulated
#      accelerator sim:0, with 20 us of latency on every kernel and copy
#      (docs/devices.md);
#   3. the API fuzzer's smoke run in async, sync and function modes
#      (tests/fuzz/test_fuzz_smoke.py, fixed seed, 20 s per mode);
#   4. the libFuzzer targets for graph text and shape functions, under
#      ASan+UBSan (tests/fuzz/run_libfuzzer.sh, fixed seed);
#   5. the quick sanitizer job: ASan+UBSan build of the C++ tests
#      (.ci/sanitize --quick; `.ci/sanitize` alone also runs the Python
#      sample under ASan and the threaded tests under TSan).
# Each step prints its wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
export PYTHON

step() {
  local name=$1
  shift
  local start=$SECONDS
  echo "=== $name"
  "$@"
  echo "=== $name: $((SECONDS - start)) s"
}

step "build and install" "$PYTHON" -m pip install ".[test]" --config-settings=cmake.define.EMBER_BUILD_TESTS=ON
step "pytest" "$PYTHON" -m pytest -q
step "ctest" ctest --test-dir build/py --output-on-failure
step "devices: cross-device tests and the op database on sim:0" \
  env EMBER_SIMULATED_DEVICES=2 EMBER_SIMULATED_LATENCY_US=20 EMBER_TEST_DEVICE=sim:0 \
  "$PYTHON" -m pytest -q tests/devices tests/python/test_ops.py
step "API fuzzer smoke" "$PYTHON" -m pytest -q tests/fuzz
if command -v clang++ > /dev/null; then
  step "libFuzzer" env EMBER_FUZZ_PYTHON="$PYTHON" tests/fuzz/run_libfuzzer.sh "${EMBER_LIBFUZZER_SECONDS:-45}"
else
  echo "=== libFuzzer: skipped, clang++ not found (apt-get install clang)"
fi
step "sanitizers (quick)" .ci/sanitize --quick
