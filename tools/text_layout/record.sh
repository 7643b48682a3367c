#!/usr/bin/env bash
# Regenerates cmake/text_layout.ld (Note [Text layout] in that file):
#   1. builds the extension with -finstrument-functions in BUILD_DIR/instrumented
#      and a plain release build in BUILD_DIR/release, both unstripped
#      (two full builds: ~25 min on 2 cores);
#   2. runs workload.py on the instrumented one with hook.c preloaded, which
#      records each function's first call;
#   3. writes the script: the recorded functions the release build has out
#      of line, in the order they first ran.
# Run it after large changes to what import and the common ops run. A stale
# script costs memory, never correctness: the linker skips names it lacks.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p "${1:-build/text_layout}"
BUILD_DIR=$(cd "${1:-build/text_layout}" && pwd)
PYTHON=${PYTHON:-python}

configure_and_build() {  # DIR CXX_FLAGS CUDA_FLAGS
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DEMBER_BUILD_TESTS=OFF -DEMBER_TEXT_LAYOUT=OFF \
    -DCMAKE_STRIP=true -DPython_EXECUTABLE="$(command -v "$PYTHON")" -DCMAKE_CXX_FLAGS="$2" -DCMAKE_CUDA_FLAGS="$3"
  ninja -C "$1" _C
}
configure_and_build "$BUILD_DIR/instrumented" "-finstrument-functions" "-Xcompiler=-finstrument-functions"
configure_and_build "$BUILD_DIR/release" "" ""

# A package directory: the sources, the generated bindings and the instrumented extension.
pkg="$BUILD_DIR/package"
rm -rf "$pkg" && mkdir -p "$pkg/ember"
cp -r python/ember/. "$pkg/ember/"
mkdir -p "$pkg/ember/_generated"
cp "$BUILD_DIR"/instrumented/generated/python/*.py "$pkg/ember/_generated/"
instrumented=$(ls "$BUILD_DIR"/instrumented/_C*.so)
cp "$instrumented" "$pkg/ember/"
cc -O2 -shared -fPIC -o "$BUILD_DIR/hook.so" tools/text_layout/hook.c

record="$BUILD_DIR/first_calls.txt"
EMBER_TEXT_LAYOUT_RECORD="$record" LD_PRELOAD="$BUILD_DIR/hook.so" EMBER_SIMULATED_DEVICES=0 \
  PYTHONPATH="$pkg:$PWD" "$PYTHON" tools/text_layout/workload.py
"$PYTHON" tools/text_layout/write_script.py "$record" "$instrumented" "$(ls "$BUILD_DIR"/release/_C*.so)" \
  cmake/text_layout.ld
