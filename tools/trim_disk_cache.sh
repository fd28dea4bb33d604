#!/usr/bin/env bash
# Keeps Bazel's disk cache under a size cap by removing the least recently used entries.
#
# Bazel 4 never deletes from --disk_cache, and every commit and configuration (default,
# sanitizers, fuzz, cuda) adds gigabytes: left alone the cache filled this machine's disk and
# a CI build failed with "No space left on device". tools/bazel calls this before Bazel runs.
#
#   tools/trim_disk_cache.sh [--room GIB] [CACHE_DIR]
#
# CACHE_DIR defaults to the one .bazelrc names. The cap is MSHADOW_OPS_DISK_CACHE_GIB
# (default 64: a cold CI run, every configuration, writes about 15 GiB, and a run should find
# the entries of the runs before it), lowered where the disk could not hold it and still keep
# MSHADOW_OPS_DISK_FREE_GIB (default 10) free; when the cache is over it, the oldest files by
# access time go until it is at three quarters of the cap, so that trimming does not run again
# on the next build. --room GIB trims, where needed, until GIB more fit under the cap: CI
# makes room for a whole run once at its start, so that no trim in the middle of the run
# removes the entries its own first stages wrote (which had made the next run on the same
# commit a cold one). The file system is mounted relatime on these machines: an access
# updates a file's access time at most once a day, so entries written earlier the same day
# look older than they are, and entries read again today but first read yesterday keep
# yesterday's time: a trim removes entries the next build needs. A cap that holds several
# runs keeps that rare (at 30 GiB, CI's --room 15 removed 5.8 GiB of the same day's entries;
# at 40, 5.8 GiB again, and the run recompiled unchanged sources).
set -euo pipefail

whole_gib() {  # whole_gib NAME VALUE: exits 2, naming NAME, unless VALUE is a whole number
  if ! [[ "$2" =~ ^[0-9]+$ ]]; then
    echo "tools/trim_disk_cache.sh: $1 must be a whole number of GiB, got '$2'" >&2
    exit 2
  fi
}
room_gib=0
if [[ "${1:-}" == "--room" ]]; then
  room_gib=${2:-}
  whole_gib --room "$room_gib"
  shift 2
fi
cache_dir=${1:-$HOME/.cache/mshadow_ops/bazel-disk-cache}
cap_gib=${MSHADOW_OPS_DISK_CACHE_GIB:-64}
whole_gib MSHADOW_OPS_DISK_CACHE_GIB "$cap_gib"
if ((cap_gib == 0)); then
  echo "tools/trim_disk_cache.sh: MSHADOW_OPS_DISK_CACHE_GIB must be above 0" >&2
  exit 2
fi
free_gib=${MSHADOW_OPS_DISK_FREE_GIB:-10}
whole_gib MSHADOW_OPS_DISK_FREE_GIB "$free_gib"
[[ -d "$cache_dir" ]] || exit 0

gib=$((1024 * 1024 * 1024))
cap_bytes=$((cap_gib * gib))
free_bytes=$((free_gib * gib))
available_bytes=$(($(df --output=avail -k "$cache_dir" | tail -1) * 1024))

# One pass: "access-time size path" per file, oldest first; awk sums them all, lowers the cap
# to what the disk holds beside the cache with free_bytes to spare, and prints the oldest
# paths until what remains fits the target. Trimming starts where the cache and the room
# asked for pass the cap, and ends at three quarters of the cap, or lower where the room needs
# it.
find "$cache_dir" -type f -printf '%A@ %s %p\n' | sort -n | awk -v cap="$cap_bytes" \
  -v room="$((room_gib * gib))" -v available="$available_bytes" -v keep_free="$free_bytes" '
  { time[NR] = $1; size[NR] = $2; sub(/^[^ ]+ [^ ]+ /, ""); path[NR] = $0; total += size[NR] }
  END {
    if (total + available - keep_free < cap) cap = total + available - keep_free
    target = cap / 4 * 3
    if (target > cap - room) target = cap - room
    if (target < 0) target = 0
    if (total <= cap - room) exit
    for (i = 1; i <= NR && total > target; ++i) { print path[i]; total -= size[i]; freed += size[i] }
    printf "tools/trim_disk_cache.sh: removed %.1f GiB of least recently used entries\n",
      freed / 2^30 > "/dev/stderr"
  }' | tr '\n' '\0' | xargs -0 -r rm -f
