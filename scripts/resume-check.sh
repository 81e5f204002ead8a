#!/usr/bin/env bash
# resume-check.sh: does a plugin resume exactly?  Trains CONFIG twice, once
# straight through and once interrupted (SIGINT, as Ctrl-C) just after its
# first periodic checkpoint and then resumed with `rlhost run --resume`, and
# compares what the two runs leave:
#   - metrics.csv, evals.csv and episodes.csv, every column but the timings
#     (wall_s, sps, cpu_util and the env/act/update fractions);
#   - the final greedy evaluation in summary.json;
#   - every tensor of the final checkpoint, byte for byte (the checkpoint
#     files as wholes differ: their metadata holds the config text and
#     paths).
# That is what "exact resume" means for rlhost (docs/run-directory.md,
# "Resume"); every shipped algorithm and env holds to it.  The checkpoint is
# taken at a step that depends on timing, so a plugin that saves everything
# the next step reads passes at any step.  Prints TAP; exit 0 when all agree.
#
# Usage: resume-check.sh [--every N] [--rlhost PATH] [--keep PREFIX] CONFIG [RUN ARGS...]
#   --every N     run.checkpoint_interval of both runs (default: a quarter of
#                 run.steps, so the interruption lands early in the run)
#   --rlhost PATH the rlhost to run (default: rlhost on PATH)
#   --keep PREFIX keep the two run directories, PREFIX-a (uninterrupted) and
#                 PREFIX-b (interrupted and resumed)
#   RUN ARGS      more arguments for both `rlhost run`s: --set KEY=VALUE,
#                 --plugin-path DIR
# Installed with the SDK: $(pkg-config --variable=sdkdir rlhost-plugin)/resume-check.sh
set -u
every="" rl=${RLHOST:-rlhost} keep=""

while [ $# -gt 0 ]; do
  case "$1" in
    --every) every=$2; shift 2 ;;
    --rlhost) rl=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: resume-check.sh [--every N] [--rlhost PATH] [--keep PREFIX] CONFIG [RUN ARGS...]" >&2; exit 2; }
cfg=$1; shift
W=$(mktemp -d "${TMPDIR:-/tmp}/resume-check.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); return 1; fi; }
finish() { echo "1..$n"; [ $failed = 0 ]; exit $?; }
A="$W/whole" B="$W/cut"
[ -z "$keep" ] || A="$keep-a" B="$keep-b"

if [ -z "$every" ]; then
  steps=$("$rl" check "$cfg" "$@" 2>"$W/err" | sed -n 's/^  steps = \([0-9]*\);.*/\1/p' | head -1)
  [ -n "$steps" ]; ok $? "rlhost check $cfg" || { sed 's/^/#   /' "$W/err" | head -5; finish; }
  every=$((steps / 4 > 0 ? steps / 4 : 1))
fi
set -- "$@" --set run.checkpoint_interval="$every" --set run.quiet=true
# the resume takes its config from the run directory, but must find the
# same plugins
paths=() prev=""
for a in "$@"; do
  [ "$prev" = --plugin-path ] && paths+=(--plugin-path "$a")
  prev=$a
done

"$rl" run "$cfg" "$@" --out "$A" >/dev/null 2>"$W/err"
ok $? "the uninterrupted run" || { sed 's/^/#   /' "$W/err" | head -5; finish; }
"$rl" run "$cfg" "$@" --out "$B" >/dev/null 2>"$W/err" &
pid=$!
while kill -0 $pid 2>/dev/null && [ ! -e "$B/checkpoint.safetensors" ]; do sleep 0.02; done
kill -INT $pid 2>/dev/null; wait $pid; rc=$?
[ "$rc" = 130 ]; ok $? "interrupted after its first checkpoint (exit $rc, want 130)" ||
  { [ "$rc" = 0 ] && echo "#   the run ended first: give a smaller --every" || sed 's/^/#   /' "$W/err" | head -5; finish; }
# the step is in the checkpoint's metadata, a JSON header after 8 bytes
len=$(od -An -t u8 -N 8 "$B/checkpoint.safetensors" | tr -d ' ')
at=$(dd if="$B/checkpoint.safetensors" bs=1 skip=8 count="$len" 2>/dev/null | grep -o '"rlhost.step":"[0-9]*"' | grep -o '[0-9]*')
echo "# interrupted at step ${at:-?}"
"$rl" run --resume "$B" "${paths[@]}" >/dev/null 2>"$W/err"
ok $? "the resumed run" || { sed 's/^/#   /' "$W/err" | head -5; finish; }

# every column but the timings
learn_cols() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^(wall_s|sps|cpu_util|env_frac|act_frac|update_frac)$/ }
           { out = ""; for (i = 1; i <= NF; i++) if (keep[i]) out = out "," $i; print out }' "$1"
}
for f in metrics.csv evals.csv episodes.csv; do
  [ -e "$A/$f" ] || [ -e "$B/$f" ] || continue
  learn_cols "$A/$f" > "$W/a" 2>/dev/null; learn_cols "$B/$f" > "$W/b" 2>/dev/null
  cmp -s "$W/a" "$W/b"; ok $? "$f identical" || diff "$W/a" "$W/b" | head -4 | sed 's/^/#   /'
done
grep '"eval_' "$A/summary.json" > "$W/a"; grep '"eval_' "$B/summary.json" > "$W/b"
cmp -s "$W/a" "$W/b"; ok $? "final evaluation identical"
data_of() { local len; len=$(od -An -t u8 -N 8 "$1" | tr -d ' '); tail -c +$((9 + len)) "$1"; }
data_of "$A/checkpoint.safetensors" > "$W/a"; data_of "$B/checkpoint.safetensors" > "$W/b"
cmp -s "$W/a" "$W/b"; ok $? "final checkpoint tensors identical"
finish
