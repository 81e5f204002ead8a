#!/usr/bin/env bash
# CleanRL's ppo_atari_envpool.py (PyTorch on the CPU, one process) against
# rlhost's configs/breakout_ppo.cfg (the same settings), interleaved, the
# same number of agent steps each (docs/performance.md, "Atari PPO against
# CleanRL").  Not part of the tests.  CleanRL's script is not in this
# repository: take it from CleanRL's repository (cleanrl/ppo_atari_envpool.py)
# and give its path; PYTHON needs what it imports, as CleanRL pins them
# (envpool 0.8.x, gym 0.23.1, NumPy 1.x, torch, tyro, tensorboard).
# From the repository root, after a build with ALE:
#   scripts/peers/cleanrl_atari.sh PYTHON PPO_ATARI_ENVPOOL_PY STEPS ROUNDS
# Each round runs CleanRL (Breakout-v5, --no-cuda, seed = round), then
# rlhost with 1 replica, then with 2 replicas and 2 env threads; it prints
# each run's wall time and steps per second.
set -euo pipefail
PY=$1 CLEANRL=$2 STEPS=$3 ROUNDS=$4
RLHOST=${RLHOST:-build/core/rlhost}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# wall LOG CMD...: runs CMD with its output in LOG, prints the seconds it took
wall() { local log=$1 s e; shift; s=$(date +%s.%N); "$@" >"$log" 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
for r in $(seq "$ROUNDS"); do
  w=$(cd "$T" && wall "$T/c.log" "$PY" "$CLEANRL" --env-id Breakout-v5 --total-timesteps "$STEPS" --no-cuda \
        --seed "$r")
  echo "round $r  cleanrl             wall ${w} s  $(grep '^SPS' "$T/c.log" | tail -1)"
  for rep in 1 2; do
    threads=$rep
    w=$(wall "$T/r.log" "$RLHOST" run configs/breakout_ppo.cfg --set run.steps="$STEPS" --set run.seed="$r" \
          --set run.eval_episodes=0 --set run.replicas=$rep --set env.optimizations.threads=$threads \
          --out "$T/r" --force)
    echo "round $r  rlhost, $rep replica(s)  wall ${w} s  $(sed -n 's/.*(\([0-9]* steps\/s\)).*/\1/p' "$T/r.log")"
  done
done
