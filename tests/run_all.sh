#!/usr/bin/env bash
# Every test, from a fresh clone (the README's test command; .ci/run calls it):
#   1. build and install Ember with the C++ tests, run pytest and ctest;
#   2. the API fuzzer's smoke run in async, sync and function modes
#      (tests/fuzz/test_fuzz_smoke.py, fixed seed, 20 s per mode);
#   3. the libFuzzer targets for graph text and shape functions, under
#      ASan+UBSan (tests/fuzz/run_libfuzzer.sh, fixed seed);
#   4. the quick sanitizer job: ASan+UBSan build of the C++ tests
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
step "API fuzzer smoke" "$PYTHON" -m pytest -q tests/fuzz
if command -v clang++ > /dev/null; then
  step "libFuzzer" env EMBER_FUZZ_PYTHON="$PYTHON" tests/fuzz/run_libfuzzer.sh "${EMBER_LIBFUZZER_SECONDS:-45}"
else
  echo "=== libFuzzer: skipped, clang++ not found (apt-get install clang)"
fi
step "sanitizers (quick)" .ci/sanitize --quick
