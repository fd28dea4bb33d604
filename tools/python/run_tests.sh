#!/usr/bin/env bash
# The Python package's test suite: builds libmshadow_ops.so, then runs python/tests with
# pytest in a virtualenv that has NumPy, pytest and MXNet 1.9.1 (the reference for operator
# semantics; PyPI, CPU build). The virtualenv is made once and cached in
# ~/.cache/mshadow_ops/mxnet-1.9.1 (tools/bench/mxnet_compare.py's ensure_venv).
#
#   tools/python/run_tests.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/../.."

# The virtualenv ($MSHADOW_OPS_VENV if set) is made, completed or (the cached one only) remade
# where broken by the one function that owns it.
python=$(python3 -c 'import sys; sys.path.insert(0, "tools/bench"); import mxnet_compare as m
print(m.ensure_venv(m.DEFAULT_VENV))')

./tools/bazel build //ops:libmshadow_ops.so
export MSHADOW_OPS_LIBRARY=$PWD/bazel-bin/ops/libmshadow_ops.so
cd python/tests
PYTHONPATH=$PWD/.. exec "$python" -m pytest -q -p no:warnings -p no:cacheprovider "$@" .
