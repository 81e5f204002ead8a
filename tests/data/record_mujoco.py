#!/usr/bin/env python3
"""Records Gymnasium's MuJoCo v5 tasks for tests/test_mujoco.c to replay.

Made with Gymnasium 1.4.0 and the mujoco wheel scripts/mujoco.sh pins
(3.17.0), in a virtual environment outside the repository:
    python3 -m venv /tmp/mjvenv
    /tmp/mjvenv/bin/pip install mujoco==3.17.0 gymnasium==1.4.0 imageio packaging
    /tmp/mjvenv/bin/python tests/data/record_mujoco.py HalfCheetah-v5 > tests/data/gymnasium_half_cheetah_v5.txt
    (and Hopper-v5, Walker2d-v5, Ant-v5 into gymnasium_hopper_v5.txt, ...)
Per episode: the state after reset (qpos and qvel as hex doubles), then per
step the float32 action, the float64 reward, the flags, qpos[0] and an
FNV-1a hash of the float64 observation's bytes (so every observation is
compared bit for bit while the file stays small)."""

import sys

import gymnasium as gym
import mujoco
import numpy as np

TASK = sys.argv[1] if len(sys.argv) > 1 else "HalfCheetah-v5"
# steps per episode at most (the walkers fall sooner under random actions), and the seeds
STEPS, SEEDS = (150, (1, 2)) if TASK in ("HalfCheetah-v5", "Ant-v5") else (150, (1, 2, 3, 4, 5, 6))


def fnv1a(b):
    h = 0xCBF29CE484222325
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def hexd(v):
    return float(v).hex()


print(
    f"# {TASK} recorded from Gymnasium {gym.__version__}, MuJoCo {mujoco.__version__}, NumPy {np.__version__} "
    f"(tests/data/record_mujoco.py; seeds {', '.join(map(str, SEEDS))}, {STEPS} steps each)"
)
for seed in SEEDS:
    env = gym.make(TASK)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    d = env.unwrapped.data
    print("reset", " ".join(hexd(v) for v in d.qpos), "|", " ".join(hexd(v) for v in d.qvel))
    print("obs", f"{fnv1a(np.asarray(obs, np.float64).tobytes()):016x}")
    for t in range(STEPS):
        a = env.action_space.sample()
        obs, r, term, trunc, _ = env.step(a)
        print(
            "step",
            " ".join(float(x).hex() for x in a),
            hexd(r),
            int(term),
            int(trunc),
            hexd(d.qpos[0]),
            f"{fnv1a(np.asarray(obs, np.float64).tobytes()):016x}",
        )
        if term:
            break
    env.close()
