#!/bin/bash
# Builds the packet tests, the float exhaustive check and the elementwise/reduce benchmarks
# for AVX-512 (-march=x86-64-v4) with g++ directly, into .cache/avx512 together with the
# shared libraries they need, for a machine that has AVX-512 but no Bazel (the lent device):
#
#   tools/device/build_x86_64_v4.sh
#   # there: cd .cache/avx512 && LD_LIBRARY_PATH=. ./packet_math_test
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.cache/avx512
mkdir -p "$out"
cxx=(g++ -std=c++17 -O2 -march=x86-64-v4 -DNDEBUG -fopenmp -I. -I/usr/include/eigen3
     -Wl,--as-needed)
runtime=(mshadow/parallel.cc mshadow/streaming_stores.cc dmlc/logging.cc)
libs=(-lsleef -lopenblas)
build() {  # name, sources and libraries...
  local name=$1
  shift
  echo "building $name"
  "${cxx[@]}" -o "$out/$name" "$@" "${runtime[@]}" "${libs[@]}"
}
build packet_test mshadow/packet_test.cc -l:libgtest_main.a -l:libgtest.a &
build packet_math_test mshadow/packet_math_test.cc -l:libgtest_main.a -l:libgtest.a &
wait
build float_math_exhaustive mshadow/float_math_exhaustive.cc &
build elementwise_bench mshadow/bench/elementwise_bench.cc tools/bench/ratio_main.cc -lbenchmark &
wait
build reduce_bench mshadow/bench/reduce_bench.cc tools/bench/ratio_main.cc -lbenchmark
# The shared libraries the binaries use beyond the C runtime, which the device may lack.
ldd "$out"/packet_test "$out"/packet_math_test "$out"/float_math_exhaustive \
    "$out"/elementwise_bench "$out"/reduce_bench |
  awk '$3 ~ /^\// {print $3}' | sort -u | grep -vE '/(libc|libm|libgcc_s)\.so' |
  while read -r lib; do cp -L "$lib" "$out/"; done
echo "built into $out"
