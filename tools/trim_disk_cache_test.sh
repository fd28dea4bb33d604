#!/usr/bin/env bash
# Tests tools/trim_disk_cache.sh on a cache of sparse files (1 GiB each, no disk space used)
# whose access times say which are the least recently used: the cap, the room CI asks for,
# the disk space kept free, bad arguments.
set -euo pipefail

trim=${TEST_SRCDIR:-.}/${TEST_WORKSPACE:-.}/tools/trim_disk_cache.sh
[[ -x "$trim" ]] || trim=$(dirname "$0")/trim_disk_cache.sh
work=$(mktemp -d "${TEST_TMPDIR:-/tmp}/trim.XXXXXX")
failures=0

# A cache of five files f1..f5, f1 the least recently used.
fresh_cache() {
  rm -rf "$work/cache" && mkdir "$work/cache"
  for i in 1 2 3 4 5; do
    truncate -s 1G "$work/cache/f$i"
    touch -a -d "2026-01-0$i" "$work/cache/f$i"
  done
}
left() { (cd "$work/cache" && ls | tr '\n' ' '); }
expect() {  # expect DESCRIPTION WANT GOT
  if [[ "$2" != "$3" ]]; then
    echo "FAIL: $1: want '$2', got '$3'" >&2
    failures=$((failures + 1))
  fi
}

# The cases of the cap alone keep no disk space free (sparse files take none).
export MSHADOW_OPS_DISK_FREE_GIB=0
fresh_cache
MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" "$work/cache" 2>/dev/null
expect "under the cap: nothing removed" "f1 f2 f3 f4 f5 " "$(left)"

MSHADOW_OPS_DISK_CACHE_GIB=4 "$trim" "$work/cache" 2>/dev/null
expect "over a cap of 4: down to 3, the oldest first" "f3 f4 f5 " "$(left)"

fresh_cache
MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" --room 2 "$work/cache" 2>/dev/null
expect "room for 2 under 8: nothing removed" "f1 f2 f3 f4 f5 " "$(left)"

MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" --room 5 "$work/cache" 2>/dev/null
expect "room for 5 under 8: down to 3" "f3 f4 f5 " "$(left)"

MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" --room 20 "$work/cache" 2>/dev/null
expect "more room than the cap: everything removed" "" "$(left)"

for bad in "--room x" "--room -1" "--room"; do
  fresh_cache
  set +e
  message=$(MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" $bad "$work/cache" 2>&1)
  status=$?
  set -e
  expect "'$bad' exits 2" 2 "$status"
  [[ "$message" == *"--room must be a whole number"* ]] ||
    expect "'$bad' names --room" "a message naming --room" "$message"
  expect "'$bad' removes nothing" "f1 f2 f3 f4 f5 " "$(left)"
done

# A disk that cannot hold the cap: keeping all but 2 GiB of the free space free lowers the
# cap to the cache's 5 GiB less 2 (plus under 1 GiB of rounding), trimmed to three quarters.
fresh_cache
available_gib=$(($(df --output=avail -k "$work/cache" | tail -1) / 1024 / 1024))
MSHADOW_OPS_DISK_FREE_GIB=$((available_gib + 2)) MSHADOW_OPS_DISK_CACHE_GIB=100 "$trim" \
  "$work/cache" 2>/dev/null
expect "a cap lowered to what the disk holds: down to 2" "f4 f5 " "$(left)"

fresh_cache
MSHADOW_OPS_DISK_FREE_GIB=$((available_gib / 2)) MSHADOW_OPS_DISK_CACHE_GIB=8 "$trim" \
  "$work/cache" 2>/dev/null
expect "a disk with room for the cap: the cap alone" "f1 f2 f3 f4 f5 " "$(left)"

set +e
message=$(MSHADOW_OPS_DISK_FREE_GIB=x "$trim" "$work/cache" 2>&1)
status=$?
set -e
expect "a free space of x exits 2" 2 "$status"
[[ "$message" == *"MSHADOW_OPS_DISK_FREE_GIB must be a whole number"* ]] ||
  expect "a bad free space is named" "a message naming MSHADOW_OPS_DISK_FREE_GIB" "$message"

set +e
message=$(MSHADOW_OPS_DISK_CACHE_GIB=0 "$trim" "$work/cache" 2>&1)
status=$?
set -e
expect "a cap of 0 exits 2" 2 "$status"
[[ "$message" == *"MSHADOW_OPS_DISK_CACHE_GIB must be above 0"* ]] ||
  expect "a cap of 0 is named" "a message naming the cap" "$message"

rm -rf "$work"
((failures == 0)) && echo "PASS"
exit $((failures > 0))
