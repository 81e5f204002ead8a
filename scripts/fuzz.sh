#!/usr/bin/env bash
# Builds the libFuzzer targets (clang and clang++, ASan + UBSan: one compiler
# family, so every plugin shares the one ASan runtime) in build-fuzz/ and runs
# each for SECONDS (default 30) from its seed corpus in tests/fuzz/corpus/.
# Any crash, leak, sanitizer report or timeout fails the script; libFuzzer's
# reproducer (crash-*, leak-*, timeout-*) is left in build-fuzz/findings/.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
scripts/deps.sh fuzz
if [ ! -f build-fuzz/build.ninja ]; then
  CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false \
    -Db_lto=false -Dbuildtype=debugoptimized >/dev/null
fi
ninja -C build-fuzz >/dev/null
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_safetensors fuzz_config fuzz_checkpoint fuzz_descriptor fuzz_space fuzz_env_info)
mkdir -p build-fuzz/findings
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=detect_leaks=1
export LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp
status=0
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t # new inputs go here; the tree's seeds stay as they are
  mkdir -p "$work"
  log=build-fuzz/findings/$t.log
  if build-fuzz/tests/fuzz/$t "$work" "tests/fuzz/corpus/$t" -max_total_time="$secs" -timeout=10 \
       -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix=build-fuzz/findings/ \
       >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz: $t: ${runs:-?} executions in ${secs}s, no finding"
  else
    echo "fuzz: $t FAILED; the last lines of $log:"
    tail -30 "$log"
    status=1
  fi
done
exit $status
