#!/usr/bin/env bash
# A self-play run of the shipped Connect Four config resumes after SIGKILL
# at any moment: with a pool smaller than the snapshots taken between two
# checkpoints, every checkpoint on a snapshot's step, kills at random
# moments across several of both, and every resume ends identical to a run
# never stopped.  The pool writer never follows a symbolic link.  (TAP)
# Usage: selfplay_kill.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
CFG=$SRC/configs/connect_four_selfplay.cfg
# 8 snapshots between checkpoints, 3 in the pool; small enough for seconds
args=(--set run.quiet=true --set run.steps=40000 --set run.checkpoint_interval=4000 --set run.log_interval=2000
      --set run.eval_interval=20000 --set run.eval_episodes=4 --set env.num_envs=8 --set algo.n_steps=16
      --set algo.batch_size=64 --set 'algo.hidden=[32, 32]' --set seats.snapshot_interval=500 --set seats.pool_size=3
      --set 'seats.pool_opponents=["connect_four_alphabeta(depth=1)"]'
      --set 'seats.eval_opponents=["connect_four_alphabeta(depth=1)"]')

t0=$(date +%s%N)
expect_rc 0 "a self-play run never stopped" -- "$RLHOST" run "$CFG" "${args[@]}" --out "$T/whole"
whole_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
npool=$(ls "$T/whole/pool" | grep -c '^step-')
[ "$npool" -le 6 ]; ok $? "its pool/ keeps the files its two kept checkpoints name, no more ($npool)"

# Its own checkpoints resume, the final one and its predecessor alike
# (each on a snapshot's step, where members leave the pool mid-game).
cp -r "$T/whole" "$T/own"
expect_rc 0 "the finished run trains on from its own checkpoint" -- "$RLHOST" run --resume "$T/own" --set run.steps=44000
cp -r "$T/whole" "$T/own2" && rm "$T/own2/checkpoint.safetensors" "$T/own2/summary.json"
expect_rc 0 "and from its previous checkpoint" -- "$RLHOST" run --resume "$T/own2"

# SIGKILL at random moments, each within the first quarter of what is left.
K=$T/kill
kill_loop "$K" "$whole_ms" 14 14 "$CFG" "${args[@]}"
grep -q '"status": "done"' "$K/summary.json"; ok $? "the killed run completes by resuming"
[ "$kills" -ge 3 ]; ok $? "at least 3 kills landed ($kills)"
[ "$resumes" -ge 2 ]; ok $? "at least 2 resumes were killed or finished ($resumes)"
same_run "killed, against never killed" "$T/whole" "$K"

# pool/ replaced by a link to another directory: nothing there is written
# or deleted, and the run stops with a sentence.
"$RLHOST" run "$CFG" "${args[@]}" --set run.steps=6000 --out "$T/link" >/dev/null 2>&1
mkdir "$T/victim" && touch "$T/victim/step-000000000000000.safetensors" "$T/victim/keep.txt"
mv "$T/link/pool" "$T/link/pool.real" && ln -s "$T/victim" "$T/link/pool"
rm -f "$T/link/summary.json"
"$RLHOST" run --resume "$T/link" --set run.steps=12000 >/dev/null 2>"$T/err"; rc=$?
[ $rc != 0 ]; ok $? "a resume whose pool/ is a link fails (exit $rc)"
[ "$(ls "$T/victim" | wc -l)" = 2 ]; ok $? "the link's target keeps its files, and gets none"
# The largest pool (seats.pool_size 1000) beside fixed members, drawn by
# pfsp: more members than snapshots (under ASan, a fixed-size buffer of the
# draw would be overrun here).
expect_rc 0 "a full pool of 1000 snapshots and 2 fixed members, drawn by pfsp" -- "$RLHOST" run "$CFG" \
  --set run.quiet=true --set run.steps=8400 --set run.checkpoint_interval=0 --set run.eval_episodes=2 \
  --set run.eval_interval=0 --set env.num_envs=8 --set algo.n_steps=16 --set algo.batch_size=64 --set 'algo.hidden=[8]' \
  --set seats.snapshot_interval=8 --set seats.pool_size=1000 --set seats.draw=\"pfsp\" \
  --set 'seats.pool_opponents=["random", "connect_four_alphabeta(depth=1)"]' --set 'seats.eval_opponents=["random"]' \
  --out "$T/big"
echo "1..$n"
[ $failed = 0 ]
