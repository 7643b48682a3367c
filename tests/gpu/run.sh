#!/usr/bin/env bash
# The GPU check of the CUDA backend (docs/devices.md, "CUDA"): a session
# lent a GPU runs it first, in one command of under 10 minutes:
#
#   tests/gpu/run.sh [REPORT_DIR]        (default: $OUT, else gpu_report/)
#
# The lent machines have no package index: first run
# tests/gpu/fetch_wheels.sh here and carry .whl (the device tool's `carry`).
#
# 1. builds Ember with CUDA (skipped with EMBER_GPU_SKIP_BUILD=1, or when
#    the installed ember already has CUDA compiled in),
# 2. writes build_info.json and checks the library holds sm_90 code,
# 3. runs the GPU runtime tests (tests/gpu/test_gpu_runtime.py), a sample
#    of every GPU kernel family against the CPU (tests/gpu/sample_ops.py),
#    and the op database on gpu:0, each result checked against NumPy as on
#    the CPU (ops without a GPU kernel run on the CPU by soft placement),
# 4. runs the sample, and ResNet-50 eagerly and as a function, under
#    compute-sanitizer memcheck,
# 5. times the GPU benchmark cases against PyTorch on the same GPU
#    (tests/gpu/bench_gpu.py: MLP, ResNet-50, Transformer block; each case
#    in its own process).
# On an H200 steps 1-4 took about 200 s and step 5 about 45 s with
# EMBER_GPU_BENCH_ARGS="--no-compile --rounds 7" (run then as separate
# commands, not yet as this one script): one call of the device tool
# (10 minutes) should hold it all without torch.compile, which costs about
# a minute per model and can follow as a second call (EMBER_GPU_PART=bench).
# Each step's outcome goes to REPORT_DIR/summary.txt and its log beside it.
# Without a GPU (CI) only steps 1-2 run and the rest are reported skipped,
# so the script itself is exercised on every CI run.
set -u -o pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPORT=${1:-${OUT:-$ROOT/gpu_report}}
mkdir -p "$REPORT"
SUMMARY=$REPORT/summary.txt
: > "$SUMMARY"
PY=${PYTHON:-python3}
status=0

note() { echo "$*" | tee -a "$SUMMARY"; }
# step NAME COMMAND...: runs COMMAND with its output in REPORT/NAME.log,
# stopped after EMBER_GPU_STEP_LIMIT seconds (default 1800) so that one
# slow step leaves the lease's minutes to the others.
step() {
  local name=$1; shift
  local start=$SECONDS
  if timeout --kill-after=10 "${EMBER_GPU_STEP_LIMIT:-1800}" "$@" > "$REPORT/$name.log" 2>&1; then
    note "PASS $name ($((SECONDS - start)) s)"
  else
    note "FAIL $name ($((SECONDS - start)) s): see $name.log"; status=1
  fi
}

cd "$ROOT"
# Wheels carried to a machine without a package index (tests/gpu/fetch_wheels.sh).
if compgen -G ".whl/*.whl" > /dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
# The lent machines keep cuDNN and NCCL (and may keep cuBLAS) in PyTorch's
# nvidia-* wheels rather than under /usr/local/cuda: the build finds
# cudnn_version.h and nccl.h through CMAKE_INCLUDE_PATH and Ember's lazy
# loader (Note [Lazily loaded CUDA libraries]) the libraries through
# LD_LIBRARY_PATH.
for d in $("$PY" -c "import nvidia; print(' '.join(nvidia.__path__))" 2>/dev/null); do
  for inc in $(find "$d" \( -name cudnn_version.h -o -name nccl.h \) -printf '%h\n' 2>/dev/null | sort -u); do
    export CMAKE_INCLUDE_PATH=$inc${CMAKE_INCLUDE_PATH:+:$CMAKE_INCLUDE_PATH}
  done
  for lib in $(find "$d" \( -name 'libcudnn.so.*' -o -name 'libcublasLt.so.*' -o -name 'libnccl.so.*' \) \
                -printf '%h\n' 2>/dev/null | sort -u); do
    export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  done
done
has_cuda() { "$PY" -c "import ember, sys; sys.exit(0 if ember.config.build_info().get('is_cuda_build') else 1)" 2>/dev/null; }
if [ "${EMBER_GPU_SKIP_BUILD:-0}" != 1 ] && ! has_cuda; then
  EMBER_GPU_STEP_LIMIT=1800 step build "$PY" -m pip install --no-build-isolation --no-deps -v . \
    --config-settings=cmake.define.EMBER_ENABLE_CUDA=ON --config-settings=build-dir=build/gpu
fi
step build_info "$PY" -c "import ember, json; print(json.dumps(ember.config.build_info(), indent=1))"
cp "$REPORT/build_info.log" "$REPORT/build_info.json" 2>/dev/null
step sm90_code "$PY" tests/gpu/check_sm90.py

gpus=$("$PY" -c "import ember; print(len(ember.config.list_physical_devices('GPU')))" 2>/dev/null || echo 0)
if [ "$gpus" = 0 ]; then
  note "SKIP gpu steps: no GPU ($("$PY" -c "import ember; print(ember.config.build_info().get('gpu_status', ''))" 2>/dev/null))"
  exit $status
fi

export PYTHONUNBUFFERED=1
# EMBER_GPU_PART=tests runs steps 3-4 only, =bench step 5 only.
part=${EMBER_GPU_PART:-all}
if [ "$part" = bench ]; then
  step benchmarks "$PY" tests/gpu/bench_gpu.py --json "$REPORT/bench.json" ${EMBER_GPU_BENCH_ARGS:-}
  step profile_resnet50 "$PY" tests/gpu/bench_gpu.py --profile --case "resnet50 b1"
  exit $status
fi
step gpu_runtime "$PY" -m pytest -q -p no:cacheprovider tests/gpu/test_gpu_runtime.py
step sample_ops "$PY" tests/gpu/sample_ops.py
# pytest-xdist (on the lent machines) spreads the op database over 8 processes.
xdist=$("$PY" -c "import xdist" 2>/dev/null && echo "-n 8")
# The sanitizer runs beside the op database (it is CPU-bound in its own
# process); a failure of either shows in the summary.
step sanitizer compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check no "$PY" tests/gpu/sample_ops.py &
# ResNet-50 eagerly and as a function once, under memcheck: the graph passes
# and fused kernels the sample does not reach (it found a GPU kernel
# reading a host constant on the first GPU).
step sanitizer_resnet50 compute-sanitizer --tool memcheck --error-exitcode 1 --leak-check no \
  "$PY" tests/gpu/bench_gpu.py --check-only --case "resnet50 b1" &
step ops_on_gpu0 env EMBER_TEST_DEVICE=gpu:0 "$PY" -m pytest -q -p no:cacheprovider --maxfail=50 $xdist \
  tests/python/test_ops.py
wait
grep -q '^FAIL' "$SUMMARY" && status=1
[ "$part" = tests ] || step benchmarks "$PY" tests/gpu/bench_gpu.py --json "$REPORT/bench.json" ${EMBER_GPU_BENCH_ARGS:-}
# Where an eager ResNet-50 step's host time goes (ops per step, dispatch
# time per op): about 10 s.
[ "$part" = tests ] || step profile_resnet50 "$PY" tests/gpu/bench_gpu.py --profile --case "resnet50 b1"
exit $status
