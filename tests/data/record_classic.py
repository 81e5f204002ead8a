"""Records Gymnasium trajectories of Pendulum-v1 and MountainCarContinuous-v0
for tests/test_classic.c, which replays their actions through rlhost's rules
and compares every state, observation, reward and flag bit for bit.

    .venv/bin/python tests/data/record_classic.py tests/data

Each file: "reset" + the state after gymnasium's reset (two float64, hex),
then per step "step ACTION" (float32, hex) + the state after the step (two
float64, hex), the reward (float64, hex), terminated, truncated and the
float32 observation (hex).  Actions are drawn beyond the action box (the
env clips them), and mountain-car episodes mix a velocity-following
controller in, so some reach the goal."""

import sys

import gymnasium
import numpy as np


def hexf(x):
    return float(x).hex()


def record(env_id, path, seeds, low, high, controller):
    env = gymnasium.make(env_id)
    lines = [
        f"# {env_id} recorded from Gymnasium {gymnasium.__version__}, NumPy {np.__version__} "
        f"(tests/data/record_classic.py; seeds {', '.join(map(str, seeds))})"
    ]
    for seed in seeds:
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        s = env.unwrapped.state
        lines.append(f"reset {hexf(s[0])} {hexf(s[1])}")
        done = False
        while not done:
            a = np.float32(rng.uniform(low, high))
            if controller and rng.uniform() < 0.8:
                a = np.float32(controller(env.unwrapped.state) + rng.normal(0, 0.2))
            obs, r, term, trunc, _ = env.step(np.array([a], dtype=np.float32))
            s = env.unwrapped.state
            lines.append(
                f"step {hexf(a)} {hexf(s[0])} {hexf(s[1])} {hexf(r)} {int(term)} {int(trunc)} "
                + " ".join(hexf(np.float32(o)) for o in obs)
            )
            done = term or trunc
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


out = sys.argv[1] if len(sys.argv) > 1 else "."
record("Pendulum-v1", f"{out}/gymnasium_pendulum_v1.txt", [1, 2, 3], -3.0, 3.0, None)
record(
    "MountainCarContinuous-v0",
    f"{out}/gymnasium_mountain_car_continuous_v0.txt",
    [1, 2, 3, 4],
    -1.5,
    1.5,
    lambda s: 1.2 if s[1] >= 0 else -1.2,
)
