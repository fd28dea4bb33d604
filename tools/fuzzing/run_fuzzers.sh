#!/usr/bin/env bash
# Fuzzes targets with libFuzzer (clang, ASan + UBSan) for a bounded time each.
#
#   tools/fuzzing/run_fuzzers.sh SECONDS //pkg:target_fuzz [//pkg:other_fuzz ...]
#
# Each target's seed corpus is its package's testdata/<name without _fuzz>_corpus/; the
# fuzzer works on a scratch copy, so the checked-in corpus never changes. Exits non-zero on
# the first crash, leak, timeout or sanitizer report, leaving the reproducer behind.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=$1
shift
./tools/bazel build --config=fuzz "$@"
bin_dir=$(./tools/bazel info --config=fuzz bazel-bin 2>/dev/null)
for target in "$@"; do
  package=${target#//}
  package=${package%%:*}
  name=${target##*:}
  scratch=$(mktemp -d)
  mkdir -p "$scratch/corpus" "$scratch/artifacts"
  cp -r "$package/testdata/${name%_fuzz}_corpus/." "$scratch/corpus/" 2>/dev/null || true
  echo "fuzzing $target for ${seconds}s"
  status=0
  "$bin_dir/$package/$name" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=4096 -artifact_prefix="$scratch/artifacts/" "$scratch/corpus" \
    >"$scratch/log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "$scratch/log" || true
  if ((status != 0)); then
    tail -n 40 "$scratch/log" >&2
    echo "FAILED: $target (exit $status); reproducers in $scratch/artifacts" >&2
    exit 1
  fi
  rm -rf "$scratch"
done
