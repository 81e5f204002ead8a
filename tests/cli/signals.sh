#!/usr/bin/env bash
# Signals never lose work: SIGTERM or SIGINT in any phase (a periodic
# evaluation, the final evaluation) stop the run within about a second with
# its checkpoint written and a summary that says "interrupted"; --resume then
# ends exactly as a run never stopped.  (TAP)
# Usage: signals.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
# Pendulum episodes are 200 steps: 30,000 of them make an evaluation of about
# two seconds, long enough to be inside it when the signal comes.
CFG="$SRC/configs/pendulum_td3.cfg"
args=(--set run.steps=1500 --set run.eval_interval=1000 --set run.eval_episodes=30000 --set run.log_interval=500
      --set run.quiet=true --set algo.save_replay=true)
phase() { header "$1" | grep -o '"rlhost.phase":"[a-z]*"' | cut -d'"' -f4; }
status() { sed -n 's/^ *"status": "\([a-z]*\)".*/\1/p' "$1/summary.json"; }
now() { date +%s.%N; }

expect_rc 0 "a run never stopped" -- "$RLHOST" run "$CFG" "${args[@]}" --out "$T/whole"

# SIGTERM inside the periodic evaluation at step 1000 (training to it takes a
# fraction of a second).
"$RLHOST" run "$CFG" "${args[@]}" --out "$T/term" >/dev/null 2>"$T/err" &
pid=$!
sleep 1
sent=$(now); kill -TERM $pid; wait $pid; rc=$?; took=$(echo "$(now) - $sent" | bc)
[ $rc = 143 ]; ok $? "SIGTERM in a periodic evaluation exits 143 (got $rc)"
[ "$(echo "$took < 1.5" | bc)" = 1 ]; ok $? "within about a second of the signal (${took}s)"
[ "$(meta_step "$T/term/checkpoint.safetensors")" = 1000 ]; ok $? "with the checkpoint of the step it had reached"
[ "$(status "$T/term")" = interrupted ]; ok $? "and a summary that says interrupted"
expect_rc 0 "it resumes" -- "$RLHOST" run --resume "$T/term"
same_run "resumed after SIGTERM in a periodic evaluation, against never stopped" "$T/whole" "$T/term"

# SIGINT inside the final evaluation.
"$RLHOST" run "$CFG" "${args[@]}" --out "$T/int" >/dev/null 2>"$T/err" &
pid=$!
for _ in $(seq 2400); do # sanitizer builds are many times slower
  [ -e "$T/int/checkpoint.safetensors" ] && [ "$(phase "$T/int/checkpoint.safetensors")" = final ] && break
  sleep 0.05
done
[ "$(phase "$T/int/checkpoint.safetensors")" = final ]; ok $? "the run reached its final evaluation"
sleep 0.3
sent=$(now); kill -INT $pid; wait $pid; rc=$?; took=$(echo "$(now) - $sent" | bc)
[ $rc = 130 ]; ok $? "SIGINT in the final evaluation exits 130 (got $rc)"
[ "$(echo "$took < 1.5" | bc)" = 1 ]; ok $? "within about a second of the signal (${took}s)"
[ "$(status "$T/int")" = interrupted ]; ok $? "the summary says interrupted, not done"
grep -q ',1,' <(tail -n +2 "$T/int/evals.csv"); [ $? != 0 ]; ok $? "no final evaluation is recorded"
cp "$T/int/checkpoint.safetensors" "$T/final.ckpt"
cp -r "$T/int" "$T/int3" # the same stop, resumed below with fewer evaluation episodes
expect_rc 0 "it resumes" -- "$RLHOST" run --resume "$T/int"
contains "$T/out" "eval return" "the resume runs the final evaluation"
contains "$T/out" "1500 steps (resumed at 1500: 0 more in" "and says it trained nothing more, not a rate over 0 steps"
cmp -s "$T/int/checkpoint.safetensors" "$T/final.ckpt"; ok $? "from the final checkpoint, which stays as it was"
[ "$(status "$T/int")" = done ]; ok $? "and the run is done"
same_run "resumed after SIGINT in the final evaluation, against never stopped" "$T/whole" "$T/int"
expect_rc 2 "a done run is complete" -- "$RLHOST" run --resume "$T/int"
# run.eval_episodes may be set anew on resume: the interrupted final
# evaluation reruns with 3 episodes on fresh evaluation envs
expect_rc 0 "resume after SIGINT in the final evaluation with run.eval_episodes=3" -- \
  "$RLHOST" run --resume "$T/int3" --set run.eval_episodes=3
grep -q '"eval_episodes": 3' "$T/int3/summary.json" && [ "$(status "$T/int3")" = done ]
ok $? "its final evaluation has 3 episodes and the run is done"

# A checkpoint at the last step written before the end of training (a
# periodic one, killed before the final one) resumes into the end.
P="$T/periodic"
expect_rc 0 "a run whose checkpoint interval divides its steps" -- "$RLHOST" run "$CFG" "${args[@]}" \
  --set run.checkpoint_interval=500 --out "$P"
cp "$P/checkpoint.prev.safetensors" "$P/checkpoint.safetensors" # as if killed before the final checkpoint
[ "$(meta_step "$P/checkpoint.safetensors")" = 1500 ] && [ "$(phase "$P/checkpoint.safetensors")" = training ]
ok $? "the periodic checkpoint at step 1500 is of the training phase"
expect_rc 0 "it resumes into the end of the run" -- "$RLHOST" run --resume "$P"
[ "$(phase "$P/checkpoint.safetensors")" = final ] && [ "$(status "$P")" = done ]; ok $? "which writes the final checkpoint"

echo "1..$n"
[ $failed = 0 ]
