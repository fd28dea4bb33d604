#!/usr/bin/env bash
# The Python package's test suite: builds libmshadow_ops.so, then runs python/tests with
# pytest in a virtualenv that has NumPy, pytest and MXNet 1.9.1 (the reference for operator
# semantics; PyPI, CPU build). The virtualenv is made once and cached in
# ~/.cache/mshadow_ops/mxnet-1.9.1 (the one tools/bench/mxnet_compare.py uses).
#
#   tools/python/run_tests.sh [pytest arguments]
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=${MSHADOW_OPS_VENV:-$HOME/.cache/mshadow_ops/mxnet-1.9.1}
python=$venv/bin/python
if ! "$python" -c "import mxnet, numpy, pytest; assert mxnet.__version__ == '1.9.1'" 2>/dev/null; then
  echo "run_tests: installing mxnet==1.9.1, numpy<1.24 and pytest into $venv"
  python3 -m venv "$venv"
  "$python" -m pip install -q "mxnet==1.9.1" "numpy<1.24" pytest
fi

./tools/bazel build //ops:libmshadow_ops.so
export MSHADOW_OPS_LIBRARY=$PWD/bazel-bin/ops/libmshadow_ops.so
cd python/tests
PYTHONPATH=$PWD/.. exec "$python" -m pytest -q -p no:warnings -p no:cacheprovider "$@" .
