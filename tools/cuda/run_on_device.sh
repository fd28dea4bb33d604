#!/usr/bin/env bash
# One call's worth of GPU work on a lent GPU machine (the workplace's `device` tool), with the
# bundle from tools/cuda/gpu_bundle.sh carried as gpu-bundle.tar.xz:
#
#   tools/cuda/run_on_device.sh RESULTS [STAGE...]
#
# Stages (default: tests bench torch memcheck): tests = gpu-bundle/run_all.sh; bench = every
# GPU benchmark; torch = tools/cuda/torch_baseline.py (PyTorch on the same shapes); opctl =
# `opctl run|bench --device gpu` on a few operators (each run prints its largest difference
# from the CPU); layers = the layers of issue #17 timed by opctl (gpu-bundle/run_layers.sh);
# python = the Python package on PyTorch CUDA tensors; memcheck, racecheck, initcheck = the
# tests under compute-sanitizer. Each stage has its own time limit (STAGE_SECONDS, default
# 150) and the results are packed into RESULTS/results.tgz after every stage, so a call cut
# off at its limit still returns what finished.
set -uo pipefail
results=${1:?usage: run_on_device.sh RESULTS [STAGE...]}
shift
stages=("$@")
[[ ${#stages[@]} -gt 0 ]] || stages=(tests bench torch memcheck)
limit=${STAGE_SECONDS:-150}
work=/tmp/gpu-results
mkdir -p "$results" "$work"
cd "$(dirname "$0")/../.."
[[ -d gpu-bundle ]] || tar -xJf gpu-bundle.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv

for stage in "${stages[@]}"; do
  start=$(date +%s)
  case $stage in
    tests) timeout "$limit" gpu-bundle/run_all.sh "$work/tests" ;;
    bench) timeout "$limit" gpu-bundle/run_benchmarks.sh "$work/bench" --benchmark_min_time=0.2 --benchmark_color=false \
             > "$work/bench.txt" 2>&1
           grep -E "ratio|Project|Baseline|Overhead" "$work/bench.txt" | tail -80 ;;
    torch) timeout "$limit" python3 tools/cuda/torch_baseline.py "$work/torch.json" ;;
    opctl) timeout "$limit" gpu-bundle/run_opctl.sh 2>&1 | tee "$work/opctl.txt" ;;
    layers) timeout "$limit" gpu-bundle/run_layers.sh 2>&1 | tee "$work/layers.txt" ;;
    python) timeout "$limit" gpu-bundle/run_python.sh -x 2>&1 | tee "$work/python.txt" | tail -30 ;;
    memcheck|racecheck|initcheck|synccheck)
      SANITIZE=$stage timeout "$limit" gpu-bundle/run_all.sh "$work/$stage" ;;
    *) echo "unknown stage $stage" ;;
  esac
  echo "== stage $stage: exit $? in $(($(date +%s) - start)) s"
  tar -czf "$results/results.tgz" -C "$work" .
done
