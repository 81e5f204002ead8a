#!/usr/bin/env bash
# What each shared object exports (TAP):
#   exports.sh PLUGIN.so...            every plugin exports exactly one symbol,
#                                      rlhost_plugin_entry;
#   exports.sh --library LIB HEADER... a library exports exactly what its
#                                      public headers declare: their functions
#                                      and extern objects, no more, no fewer.
n=0; failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); return 1; fi; }
# Defined dynamic symbols; sanitizer builds add their own instrumentation
# symbols, and those are not ours.
exported() {
  nm -D --defined-only "$1" | awk '$2 ~ /^[TDRBVW]$/ && $3 !~ /^__(odr_asan|asan|ubsan)/ { print $3 }' | sort -u
}
if [ "${1:-}" = --library ]; then
  lib=$2; shift 2
  # A declaration starts in column 0 and is not static inline, a type or a
  # macro: the name before its '(' (a function) or its '[' / ';' (an object).
  declared=$(cat "$@" | grep -E '^[A-Za-z]' | grep -vE '^(static|typedef|#|struct|enum|union)\b' |
    sed -E 's/\(.*//; s/[[;].*//' | grep -oE '\brlh?_[a-z0-9_]+ *$' | tr -d ' ' | sort -u)
  extra=$(comm -13 <(echo "$declared") <(exported "$lib") | tr '\n' ' ')
  missing=$(comm -23 <(echo "$declared") <(exported "$lib") | tr '\n' ' ')
  [ -z "$extra" ]; ok $? "$(basename "$lib") exports nothing its headers do not declare${extra:+: $extra}"
  [ -z "$missing" ]; ok $? "$(basename "$lib") exports everything its headers declare${missing:+; missing: $missing}"
  [ -n "$declared" ]; ok $? "the headers of $(basename "$lib") declare its API ($(echo "$declared" | wc -l) names)"
else
  for so in "$@"; do
    syms=$(exported "$so" | tr '\n' ' ')
    [ "$syms" = "rlhost_plugin_entry " ]
    ok $? "$(basename "$so") exports only the entry" || echo "#   it exports: $syms"
  done
fi
echo "1..$n"
[ $failed = 0 ]
