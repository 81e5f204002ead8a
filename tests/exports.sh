#!/usr/bin/env bash
# Every plugin .so exports exactly one symbol: rlhost_plugin_entry.  (TAP)
n=0; failed=0
for so in "$@"; do
  n=$((n + 1))
  # Sanitizer builds add their own instrumentation symbols; those are not ours.
  syms=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDRBVW]$/ && $3 !~ /^__(odr_asan|asan|ubsan)/ { print $3 }' | sort | tr '\n' ' ')
  if [ "$syms" = "rlhost_plugin_entry " ]; then echo "ok $n - $(basename "$so") exports only the entry"
  else echo "not ok $n - $(basename "$so") exports: $syms"; failed=$((failed + 1)); fi
done
echo "1..$n"
[ $failed = 0 ]
