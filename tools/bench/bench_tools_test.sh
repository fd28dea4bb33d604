#!/usr/bin/env bash
# Runs the benchmark tools' unittest files (tools/bench/*_test.py) on Debian's Python, which
# has the SciPy, matplotlib and Google Benchmark tools that ./tools/bazel installs.
set -euo pipefail
export MPLCONFIGDIR="${TEST_TMPDIR:-$(mktemp -d)}"
cd "$(dirname "$0")"
exec /usr/bin/python3 -m unittest discover -s . -p '*_test.py' -v
