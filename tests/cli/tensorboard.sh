#!/usr/bin/env bash
# run.tensorboard: every row of metrics.csv and evals.csv read back with
# TensorBoard's own reader, also after an interrupted run is resumed (the
# events are cut back with the CSV files).  (TAP)
# Usage: tensorboard.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" tensorboard
read_back() { py_tap "$1: " "$PY" "$SRC/tests/python/tensorboard_read.py" "$2"; } # NAME DIR
args=(--set run.steps=30000 --set run.eval_interval=2500 --set run.log_interval=5000 --set run.eval_episodes=5
      --set run.tensorboard=true --set run.quiet=true)
expect_rc 0 "a DQN run with run.tensorboard" -- "$RLHOST" run "$SRC/configs/cartpole_dqn.cfg" "${args[@]}" --out "$T/a"
[ -s "$T/a/events.out.tfevents.rlhost" ]; ok $? "the event file is in the run directory"
read_back "whole run" "$T/a"
# Interrupted after its first checkpoint, then resumed.
"$RLHOST" run "$SRC/configs/cartpole_dqn.cfg" "${args[@]}" --set run.checkpoint_interval=10000 --out "$T/b" >/dev/null 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && [ ! -e "$T/b/checkpoint.safetensors" ]; do sleep 0.02; done
kill -INT $pid 2>/dev/null; wait $pid
grep -q '"status": "interrupted"' "$T/b/summary.json"; ok $? "interrupted before its end"
expect_rc 0 "resumed" -- "$RLHOST" run --resume "$T/b"
read_back "interrupted and resumed" "$T/b"
expect_rc 0 "snake PPO with a score column" -- "$RLHOST" run "$SRC/configs/snake_ppo.cfg" --set run.steps=20480 \
  --set run.log_interval=4096 --set run.eval_episodes=4 --set run.tensorboard=true --set run.quiet=true --out "$T/c"
read_back "snake PPO" "$T/c"
echo "1..$n"
[ $failed = 0 ]
