#!/usr/bin/env bash
# opctl's demo must train (loss falls) and a bad command must fail with a message.
set -euo pipefail
opctl="${TEST_SRCDIR}/${TEST_WORKSPACE}/tools/opctl"
out=$("$opctl")
echo "$out"
grep -q '^epoch 10 ' <<<"$out"
grep -q 'loss fell from' <<<"$out"
if "$opctl" frobnicate 2>err.txt; then
  echo "expected a failure for an unknown command" >&2
  exit 1
fi
grep -q "unknown command 'frobnicate'" err.txt
echo "opctl_test: ok"
