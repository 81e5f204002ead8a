#!/usr/bin/env bash
# Tuner speed side by side: rlhost tune against the RL Zoo's own tuner on the
# same search (CartPole-v1 PPO, 100k steps per trial, the Zoo's PPO sampler,
# TPE with 10 startup trials, median pruner, one evaluation of 5 episodes at
# the end, 2 jobs).  Interleaved: rlhost, Zoo, rlhost.  Not part of the build
# or the tests; rl_zoo3 comes from a virtual environment outside the
# repository (python3 -m venv /tmp/zoo && /tmp/zoo/bin/pip install rl_zoo3).
# Usage: scripts/peers/zoo_tune.sh ZOO_PYTHON [RLHOST_TRIALS [ZOO_TRIALS]]
set -euo pipefail
cd "$(dirname "$0")/../.."
ZPY=$1 RT=${2:-20} ZT=${3:-10}
W=$(mktemp -d)
# report WHAT N T0 T1: the wall time and N trials per hour
report() { awk -v w="$1" -v n="$2" -v a="$3" -v b="$4" 'BEGIN { printf "%s in %.1f s: %.1f trials/hour\n", w, b - a, n * 3600 / (b - a) }'; }
ours() {
  rm -rf "$W/r"
  local t0 t1 n
  t0=$(date +%s.%N)
  build/core/rlhost tune configs/cartpole_ppo.cfg --space configs/spaces/cartpole_ppo_zoo.cfg --trials "$RT" --jobs 2 \
    --out "$W/r" --startup-trials 10 --pruner median --eval-interval 100000 --set run.eval_episodes=5 --seed "$1" 2>/dev/null
  t1=$(date +%s.%N)
  n=$(grep -cE '^[0-9]+,(complete|pruned),' "$W/r/trials.csv")
  report "rlhost tune: $n trials trained" "$n" "$t0" "$t1"
  echo "  best $(sed -n 's/.*: \([-0-9.]*\)$/\1/p' "$W/r/best.cfg" | head -1)"
}
zoo() {
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$W" && "$ZPY" -m rl_zoo3.train --algo ppo --env CartPole-v1 -optimize --n-trials "$ZT" --n-jobs 2 \
     --sampler tpe --pruner median --seed 1 -f "$W/zoo" > "$W/zoo.log" 2>&1)
  t1=$(date +%s.%N)
  local n
  n=$(grep -cE "Trial [0-9]+ (finished|pruned)" "$W/zoo.log" || true)
  report "rl_zoo3 optimize: $n trials" "$n" "$t0" "$t1"
}
lscpu | sed -n 's/^Model name: *//p;s/^Flags:.*\(avx512f\).*/AVX-512/p' | head -2
ours 1
zoo
ours 2
rm -rf "$W"
