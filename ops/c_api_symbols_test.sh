#!/usr/bin/env bash
# libmshadow_ops.so exports the C ABI's MXOps* functions and nothing else.
set -euo pipefail
library=$1
exported=$(nm -D --defined-only "$library" | awk '{print $3}' | grep -v '^$' | sort)
unexpected=$(grep -v '^MXOps' <<<"$exported" || true)
if [[ -n "$unexpected" ]]; then
  echo "exported symbols outside the C ABI:"; echo "$unexpected" | head -20; exit 1
fi
for name in MXOpsGetLastError MXOpsGetVersion MXOpsListOperators MXOpsGetOperatorInfo \
    MXOpsCreateAttrs MXOpsFreeAttrs MXOpsGetArity MXOpsGetInputNames MXOpsInferShape \
    MXOpsInferType MXOpsInvoke MXOpsInvokeBackward MXOpsSetRandomSeed; do
  grep -qx "$name" <<<"$exported" || { echo "missing export: $name"; exit 1; }
done
echo "exports: $(wc -l <<<"$exported") MXOps* functions, nothing else"
