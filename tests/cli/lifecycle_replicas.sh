#!/usr/bin/env bash
# Exact resume with two replicas: a run interrupted at an arbitrary step and
# resumed ends bit-identical to the uninterrupted run (exact in lib.sh);
# replica 0's sharded Adam moments are gathered whole into the checkpoint.
# Apart from lifecycle.sh because replica runs need the cores to themselves
# (tests/meson.build).  (TAP)
# Usage: lifecycle_replicas.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

DQN="$SRC/configs/cartpole_dqn.cfg"
exact dqn_r2 "$DQN" 4000 --set run.steps=30000 --set run.eval_interval=5000 --set run.log_interval=2000 --set algo.save_replay=true --set run.replicas=2
exact snake_all_r2 "$SRC/configs/snake_dqn_all.cfg" 8000 --set run.steps=40000 --set run.eval_interval=10000 --set run.eval_episodes=10 --set algo.learning_starts=2000 --set run.log_interval=5000 --set algo.save_replay=true --set run.replicas=2
# the zoo's 128 gradient steps per update call are sharded over the replicas
# (each replica's slice of Adam's moments, gathered before every checkpoint)
exact zoo_r2 "$SRC/configs/cartpole_dqn_zoo.cfg" 2048 --set run.steps=8000 --set algo.save_replay=true --set run.log_interval=1024 --set run.replicas=2 --set run.eval_episodes=5
# Replica 0's Adam moments in the checkpoint are whole (gathered), the same
# as replica 1's, not its slice alone.
python3 - "$T/zoo_r2-a/checkpoint.safetensors" <<'PY'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
(n,) = struct.unpack("<Q", raw[:8])
head, base = json.loads(raw[8:8 + n]), 8 + n
def data(k):
    a, b = head[k]["data_offsets"]
    return raw[base + a:base + b]
keys = [k for k in head if k.startswith("adam/m/") or k.startswith("adam/v/")]
same = bool(keys) and all(data(k) == data("replica1/" + k) for k in keys)
whole = all(any(data(k)[i:i + 4] != b"\0\0\0\0" for i in range(len(data(k)) // 2, len(data(k)), 4)) for k in keys if k.startswith("adam/v/") and k.endswith("weight"))
print("# %d moment tensors, equal to replica 1's: %s, second halves set: %s" % (len(keys), same, whole))
sys.exit(0 if same and whole else 1)
PY
ok $? "zoo_r2: replica 0's Adam moments in the checkpoint are whole (gathered) and equal replica 1's"
exact ppo_r2 "$SRC/configs/cartpole_ppo.cfg" 4096 --set run.steps=40000 --set run.log_interval=2048 --set run.replicas=2 --set run.eval_episodes=5

echo "1..$n"
[ $failed = 0 ]
