#!/usr/bin/env bash
# Builds every GPU test (Bazel targets tagged "gpu", and the external workspace's) and GPU
# benchmark (tagged "gpu_bench") into one folder that runs on a machine with a GPU and CUDA 13
# but no Bazel and none of this machine's libraries:
#
#   ./tools/cuda/gpu_bundle.sh [FOLDER]      # default: gpu-bundle/, and FOLDER.tar.xz
#   tar -xJf FOLDER.tar.xz                   # there, if the archive was carried (a twentieth
#                                            # of the folder: every binary holds the operators'
#                                            # device code, which xz's window finds again)
#   FOLDER/run_all.sh [RESULTS]              # there: every test, results (XML, logs) in RESULTS
#   SANITIZE=memcheck FOLDER/run_all.sh R    # the same under compute-sanitizer (any report fails)
#   FOLDER/run_benchmarks.sh [RESULTS]       # there: every benchmark, JSON and ratios in RESULTS
#   FOLDER/run_opctl.sh                      # there: the demo and `opctl run|bench --device gpu`
#   FOLDER/run_python.sh [PYTEST ARGS]       # there: the Python package on PyTorch CUDA tensors
#   FOLDER/run_layers.sh                     # there: the layers timed by opctl (beside PyTorch's)
#
# The project's own code is linked statically (--dynamic_mode=off); the third-party shared
# libraries a bare CUDA machine lacks (OpenBLAS, SLEEF, the Fortran runtime) are copied into
# FOLDER/lib; the CUDA runtime and cuBLAS come from the toolkit there, cuDNN from PyTorch's
# NVIDIA wheel (env.sh). Host code is built for x86-64-v3 (AVX2, FMA), which any machine with
# an H100/H200 has, not for this CPU.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=${1:-gpu-bundle}
# Its own output folder: these flags change every action, which would otherwise replace the
# default build's outputs.
# The lent machines are H100s and H200s: sm_90 code (and its PTX) alone unless CUDA_ARCHS
# names more, which costs a compile per architecture.
flags=(--config=cuda --define=cuda_archs="${CUDA_ARCHS:-90}" --dynamic_mode=off
       --copt=-march=x86-64-v3 --platform_suffix=gpu_bundle)

mapfile -t targets < <(./tools/bazel query 'attr(tags, "\bgpu\b", tests(//...))' 2>/dev/null)
mapfile -t benchmarks < <(./tools/bazel query 'attr(tags, "\bgpu_bench\b", //...)' 2>/dev/null)
echo "GPU tests: ${targets[*]}"
echo "GPU benchmarks: ${benchmarks[*]}"
./tools/bazel build "${flags[@]}" "${targets[@]}" "${benchmarks[@]}" //tools:opctl \
  //ops:libmshadow_ops.so
bin=$(./tools/bazel info "${flags[@]}" bazel-bin 2>/dev/null)
# The GPU test of the workspace that builds on this one (issue #18), built there.
external=examples/external_workspace
(cd "$external" && ../../tools/bazel build "${flags[@]}" //:softplus_beta_gpu_test)
external_bin=$(cd "$external" && ../../tools/bazel info "${flags[@]}" bazel-bin 2>/dev/null)

rm -rf "$out"
mkdir -p "$out/bin" "$out/bench" "$out/lib" "$out/tools" "$out/data/ops/testing"
for target in "${targets[@]}"; do
  path=${target#//}
  cp "$bin/${path/://}" "$out/bin/"
done
cp "$external_bin/softplus_beta_gpu_test" "$out/bin/"
for target in "${benchmarks[@]}"; do
  path=${target#//}
  cp "$bin/${path/://}" "$out/bench/"
done
cp "$bin/tools/opctl" "$out/tools/"
# The Python package with the CUDA build of its library, and its tests.
mkdir -p "$out/python" "$out/ops/testing"
cp -r python/mshadow_ops python/tests "$out/python/"
cp "$bin/ops/libmshadow_ops.so" "$out/python/mshadow_ops/"
cp ops/testing/op_cases.txt "$out/ops/testing/"
# Data files the tests read, at their workspace paths (the tests run from data/).
cp ops/testing/op_cases.txt "$out/data/ops/testing/"

# Third-party shared libraries outside the C runtime and the CUDA toolkit.
for binary in "$out"/bin/* "$out"/bench/* "$out"/tools/* "$out"/python/mshadow_ops/*.so; do
  ldd "$binary" | awk '/=> \// { print $3 }'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*|libstdc++.so*|libgcc_s.so*) ;;
    libcuda*|libcublas*|libcudart*|libcudnn*|libcusolver*|libcusparse*|libnvJitLink*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done

cat > "$out/run_all.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every GPU test binary of this bundle; exits non-zero if any fails. Results (gtest XML
# and each binary's output) go to $1 (default: ./results). SANITIZE=TOOL runs each under
# compute-sanitizer --tool TOOL (memcheck, racecheck, initcheck, synccheck); a report fails it.
here=$(cd "$(dirname "$0")" && pwd)
results=$(mkdir -p "${1:-results}" && cd "${1:-results}" && pwd)
source "$here/env.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
status=0
wrapper=()
if [[ -n "${SANITIZE:-}" ]]; then
  # API errors are not reported: the tests provoke some (a 4 TB cudaMalloc) and check each.
  wrapper=("${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer" --tool "$SANITIZE" --error-exitcode 99
           --report-api-errors no)
  echo "under compute-sanitizer --tool $SANITIZE"
fi
cd "$here/data"
for test in "$here"/bin/*; do
  name=$(basename "$test")
  start=$(date +%s%N)
  if "${wrapper[@]}" "$test" --gtest_output="xml:$results/$name.xml" > "$results/$name.log" 2>&1; then
    verdict=PASSED
  else
    verdict=FAILED status=1
  fi
  printf '%-28s %s (%d ms)\n' "$name" "$verdict" $((($(date +%s%N) - start) / 1000000))
  grep -E '^\[  (SKIPPED|FAILED) \] .*\(|^compared' "$results/$name.log" | head -20
done
exit $status
RUN
cat > "$out/run_benchmarks.sh" <<'RUN'
#!/usr/bin/env bash
# Runs every GPU benchmark of this bundle: Google Benchmark JSON and the console output with
# the baseline/project ratios go to $1 (default: ./results). Extra arguments go to each one.
here=$(cd "$(dirname "$0")" && pwd)
results=$(mkdir -p "${1:-results}" && cd "${1:-results}" && pwd)
shift || true
source "$here/env.sh"
status=0
for bench in "$here"/bench/*; do
  name=$(basename "$bench")
  "$bench" --benchmark_out="$results/$name.json" --benchmark_out_format=json "$@" \
    2>&1 | tee "$results/$name.log" || status=1
done
exit $status
RUN
cat > "$out/run_opctl.sh" <<'RUN'
#!/usr/bin/env bash
# opctl on the GPU, as a user would call it: with no arguments it trains the MLP demo on the
# GPU (and says so), then the CNN demo (which fails unless its loss halves); each run prints
# the GPU's outputs' largest difference from the CPU's on the same inputs; each bench times
# forward and backward with CUDA events. Exits non-zero if a command fails.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
opctl=$here/tools/opctl
set -ex
"$opctl" | tee demo.txt
grep -q 'through registered operators on the GPU 0' demo.txt
"$opctl" demo --device cpu | grep -q 'on the CPU$'
"$opctl" demo cnn --device gpu
"$opctl" run FullyConnected --shape 'data=(64,256)' --param num_hidden=128 --device gpu
"$opctl" run Convolution --shape 'data=(2,8,16,16)' --param 'kernel=(3,3)' --param num_filter=16 --device gpu
"$opctl" run softmax --shape 'data=(32,1000)' --dtype float64 --device gpu
"$opctl" bench FullyConnected --shape 'data=(256,1024)' --param num_hidden=1024 --device gpu
"$opctl" bench softmax --shape 'data=(16384,1000)' --iterations 20 --device gpu
"$opctl" bench relu --shape 'data=(4096,4096)' --iterations 20 --device gpu
RUN
cat > "$out/run_python.sh" <<'RUN'
#!/usr/bin/env bash
# The Python package on PyTorch CUDA tensors (python/tests/test_cuda.py), with the python3
# that holds PyTorch; extra arguments go to pytest.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
cd "$here/python/tests"
PYTHONPATH=$here/python exec python3 -m pytest -q -p no:cacheprovider "$@" test_cuda.py
RUN
cat > "$out/run_layers.sh" <<'RUN'
#!/usr/bin/env bash
# The layers of issue #17 on the GPU, timed by `opctl bench --device gpu` (CUDA events around
# pipelined calls, median of 5 rounds; training mode), on the shapes tools/cuda/torch_baseline.py
# gives PyTorch.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/env.sh"
opctl=$here/tools/opctl
set -x
"$opctl" bench Convolution --shape 'data=(32,64,56,56)' --param 'kernel=(3,3)' --param num_filter=64 --param 'pad=(1,1)' --iterations 20 --device gpu
"$opctl" bench Convolution --shape 'data=(32,64,56,56)' --param 'kernel=(3,3)' --param num_filter=64 --param 'pad=(1,1)' --param cudnn_off=True --iterations 20 --device gpu
"$opctl" bench Convolution --shape 'data=(8,32,28,28)' --param 'kernel=(3,3)' --param num_filter=32 --param 'pad=(1,1)' --iterations 50 --device gpu
"$opctl" bench Deconvolution --shape 'data=(32,64,28,28)' --param 'kernel=(4,4)' --param 'stride=(2,2)' --param 'pad=(1,1)' --param num_filter=64 --iterations 20 --device gpu
"$opctl" bench Pooling --shape 'data=(32,64,112,112)' --param 'kernel=(3,3)' --param 'stride=(2,2)' --param 'pad=(1,1)' --param pool_type=max --iterations 20 --device gpu
"$opctl" bench BatchNorm --shape 'data=(32,64,56,56)' --param fix_gamma=False --iterations 20 --device gpu
"$opctl" bench LayerNorm --shape 'data=(4096,1024)' --iterations 50 --device gpu
"$opctl" bench Dropout --shape 'data=(32,64,56,56)' --param p=0.5 --iterations 20 --device gpu
RUN
# Where the scripts find their shared libraries: this bundle's, the CUDA toolkit's, and cuDNN,
# cuSOLVER and the cuSPARSE it needs from the NVIDIA wheels PyTorch brings (a bare CUDA
# machine may have no other).
cat > "$out/env.sh" <<'RUN'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
wheel_libs=$(python3 -c '
import glob, os, site
found = []
for name in ("libcudnn.so.9", "libcusolver.so.12", "libcusparse.so.12"):
    for d in site.getsitepackages():
        hits = glob.glob(os.path.join(d, "nvidia", "**", name), recursive=True)
        if hits:
            found.append(os.path.dirname(hits[0]))
            break
print(":".join(dict.fromkeys(found)))' 2>/dev/null || true)
export LD_LIBRARY_PATH="$here/lib:${CUDA_HOME:-/usr/local/cuda}/lib64${wheel_libs:+:$wheel_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
RUN
chmod +x "$out/run_all.sh" "$out/run_benchmarks.sh" "$out/run_opctl.sh" "$out/run_python.sh" \
  "$out/run_layers.sh"
# One xz stream with a window larger than a binary: the copies of the operators' code in the
# other binaries cost next to nothing (437 MB -> 22 MB; gzip's 32 KiB window gave 93 MB).
tar -cf - -C "$(dirname "$out")" "$(basename "$out")" |
  xz -T1 --lzma2=preset=6,dict=384MiB > "$out.tar.xz"
du -sh "$out" "$out.tar.xz"
