"""EnvPool's MuJoCo v5 tasks stepped with uniform random actions: the peer side of the
MuJoCo env's speed (docs/performance.md). Not part of the build or the tests; run it with
a Python that has envpool (from the package index), outside the repository:

    python scripts/peers/envpool_mujoco.py TASK NUM_ENVS THREADS STEPS [KEY=VALUE]...

TASK is rlhost's name (half_cheetah, hopper, walker2d, ant); KEY=VALUE pairs go to
envpool.make (terminate_when_unhealthy=0). Synchronous mode (batch_size = num_envs), as
rlhost steps. Prints env steps per second of the step calls alone.
"""

import sys
import time

import envpool
import numpy as np

names = {"half_cheetah": "HalfCheetah-v5", "hopper": "Hopper-v5", "walker2d": "Walker2d-v5", "ant": "Ant-v5"}
task, n, threads, steps = names[sys.argv[1]], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
extra = {k: bool(int(v)) for k, v in (a.split("=", 1) for a in sys.argv[5:])}
env = envpool.make(task, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=threads, seed=1, **extra)
env.reset()
low, high = env.action_space.low, env.action_space.high
rng = np.random.default_rng(1)
table = [rng.uniform(low, high, (n,) + low.shape) for _ in range(64)]
iters = steps // n + 1
t0 = time.perf_counter()
for k in range(iters):
    env.step(table[k % 64])
print(f"{iters * n / (time.perf_counter() - t0):.1f}")
