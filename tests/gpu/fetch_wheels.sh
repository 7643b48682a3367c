#!/usr/bin/env bash
# Downloads, on a machine with the package index, the wheels the lent GPU
# machines lack for building Ember (they have no package index; see the
# device tool's README): cmeel-eigen (Eigen's headers, a build requirement)
# and cmeel, and mpi4py with the mpich wheel (the collective ops' entries in
# the op database run on gpu:0 through NCCL with them), for CPython 3.12 on
# x86-64, into .whl/ (ignored by git; about 50 MB).
# scipy-openblas32 (OpenBLAS and LAPACK: GEMM and every matrix decomposition)
# is fetched too. The device call then carries .whl, and tests/gpu/run.sh installs them into
# /tmp/site before building.
#
#   tests/gpu/fetch_wheels.sh && echo /.whl/ >> .git/info/exclude
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p .whl
python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
  -d .whl cmeel-eigen cmeel scipy-openblas32 mpi4py mpich
ls -la .whl
