#!/bin/bash
# RLtools against rlhost on Pendulum-v1 (SAC 10 000 steps, PPO 300 000) with
# RLtools' own settings: the peer side of docs/performance.md (Continuous
# control against RLtools).  Not part of the build or the tests.
#
#   scripts/peers/rltools_pendulum.sh RLTOOLS_SRC [ROUNDS [AVX2_BUILD]]
#
# RLTOOLS_SRC is a checkout of github.com/rl-tools/rl-tools (never inside
# this repository); its two benchmark programs are built into a temporary
# directory with -march=native and, when AVX2_BUILD names an rlhost build
# directory configured with -Dc_args=-mno-avx512f, with -march=x86-64-v3 too,
# both arms then running OpenBLAS's AVX2 kernels (OPENBLAS_CORETYPE=Zen).
# Each round runs every program once, interleaved; it prints whole-process
# wall times, then per task and code the median and range of each side and of
# their ratio.
set -eu
src=$1 rounds=${2:-5} avx2=${3:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
isas=native
[ -n "$avx2" ] && isas="native avx2"
for isa in $isas; do
  march=native
  [ $isa = avx2 ] && march=x86-64-v3
  for a in sac ppo; do
    g++ -std=c++17 -O3 -ffast-math -march=$march -DBENCHMARK -DRL_TOOLS_DISABLE_HDF5 \
      -DRL_TOOLS_DISABLE_TENSORBOARD -DRL_TOOLS_BACKEND_ENABLE_OPENBLAS -I"$src/include" \
      -I/usr/include/x86_64-linux-gnu/openblas-pthread "$src/src/rl/environments/pendulum/$a/cpu/training.cpp" \
      -o "$tmp/rltools_${a}_$isa" -lopenblas -lpthread
  done
done
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); echo "$e - $s" | bc; }
for _ in $(seq "$rounds"); do
  for isa in $isas; do
    rl=$here/build/core/rlhost core=
    [ $isa = avx2 ] && rl=$avx2/core/rlhost core=Zen
    for a in sac ppo; do
      echo "$a $isa rltools $(OPENBLAS_CORETYPE=$core OPENBLAS_NUM_THREADS=1 wall "$tmp/rltools_${a}_$isa")"
      echo "$a $isa rlhost $(OPENBLAS_CORETYPE=$core wall "$rl" run "$here/configs/pendulum_${a}_rltools.cfg" \
        --set run.eval_episodes=0 --out "$tmp/run" --force)"
    done
  done
done | tee "$tmp/times"
python3 - "$tmp/times" <<'P'
import collections, statistics as st, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    a, isa, who, v = line.split()
    d[(a, isa, who)].append(float(v))
for a, isa in sorted({k[:2] for k in d}):
    x, y = d[(a, isa, "rltools")], d[(a, isa, "rlhost")]
    r = [b / c for c, b in zip(x, y)]
    f = lambda v: f"{st.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"
    print(f"{a} {isa}: RLtools {f(x)} s, rlhost {f(y)} s, rlhost/RLtools {f(r)}")
P
