"""EnvPool's Atari envs stepped with uniform random actions: the peer side of the
atari env's speed (docs/performance.md, Atari). Not part of the build or the tests;
run it with a Python that has envpool (from the package index), outside the repository:

    python scripts/peers/envpool_atari.py GAME NUM_ENVS THREADS STEPS

GAME is ale-py's name (pong, breakout). EnvPool is set to the atari env's defaults,
which are Gymnasium's v5 (sticky actions 0.25, no FIRE at a reset, 30 no-ops, 84x84
grayscale, 4 frames, 108,000 frames), so both do the same work per step. Synchronous
mode (batch_size = num_envs), as rlhost steps. Prints env steps per second of the
step calls alone.
"""

import sys
import time

import envpool
import numpy as np

game, n, threads, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
task = "".join(w.capitalize() for w in game.split("_")) + "-v5"
env = envpool.make(
    task,
    env_type="gymnasium",
    num_envs=n,
    batch_size=n,
    num_threads=threads,
    seed=1,
    repeat_action_probability=0.25,
    use_fire_reset=False,
    noop_max=30,
)
env.reset()
rng = np.random.default_rng(1)
table = [rng.integers(0, env.action_space.n, n) for _ in range(64)]
iters = steps // n + 1
t0 = time.perf_counter()
for k in range(iters):
    env.step(table[k % 64])
print(f"{iters * n / (time.perf_counter() - t0):.1f}")
