#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (ASan + UBSan) in build/fuzz and
# runs each for SECONDS with a fixed seed; exits nonzero on any crash, leak
# or UB report. Usage: tests/fuzz/run_libfuzzer.sh SECONDS
# Needs clang++ and a Python with Ember's build requirements (pybind11,
# numpy, cmeel-eigen, pyyaml, jinja2); set EMBER_FUZZ_PYTHON to choose it.
set -euo pipefail

seconds="${1:?usage: $0 SECONDS}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build/fuzz"
python="${EMBER_FUZZ_PYTHON:-python3}"
if ! "$python" -c "import pybind11, numpy, yaml, jinja2" 2>/dev/null; then
  echo "error: $python lacks Ember's build requirements; pip install pybind11 numpy cmeel-eigen pyyaml jinja2" >&2
  exit 2
fi

start=$(date +%s)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS_RELEASE="-O1" -DEMBER_NATIVE_ARCH=OFF -DEMBER_ENABLE_CUDA=OFF \
  -DEMBER_BUILD_FUZZERS=ON -DPython_EXECUTABLE="$(command -v "$python")" > "$build.configure.log"
cmake --build "$build" -j 2 --target graph_text_fuzzer shape_fn_fuzzer
echo "fuzz build: $(( $(date +%s) - start )) s"

status=0
for fuzzer in graph_text_fuzzer shape_fn_fuzzer; do
  seeds="$root/tests/fuzz/corpus/${fuzzer%_fuzzer}"
  corpus="$build/corpus/${fuzzer%_fuzzer}"  # grows here, not in the repository
  artifacts="$build/artifacts/$fuzzer/"
  mkdir -p "$corpus" "$artifacts"
  echo "== $fuzzer: $seconds s"
  if ! "$build/tests/fuzz/$fuzzer" -seed=1 -max_total_time="$seconds" -max_len=4096 -timeout=10 \
       -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" "$seeds" 2> "$build/$fuzzer.log"; then
    status=1
    echo "$fuzzer FAILED; see $build/$fuzzer.log and $artifacts" >&2
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|cov: " "$build/$fuzzer.log" | tail -3
done
exit $status
