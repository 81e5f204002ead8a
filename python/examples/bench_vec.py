#!/usr/bin/env python3
"""Steps per second through Python: rlhost.make_vec (its default copy=True,
and copy=False) against Gymnasium's own
CartPole-v1 vector envs (sync and async) and EnvPool when it is installed,
at 1, 8, 64 and 512 envs.  Interleaved rounds, median of each; random
actions drawn ahead of time so only stepping is timed.
Usage: bench_vec.py [--steps N] [--rounds R] [--envs 1,8,64,512]"""

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np

import rlhost


def rlhost_env(n):
    return rlhost.make_vec("cartpole", n, seed=1)  # copy=True, next-step autoreset: SyncVectorEnv's defaults


def rlhost_nocopy(n):
    return rlhost.make_vec("cartpole", n, seed=1, copy=False)


def gym_sync(n):
    return gym.make_vec("CartPole-v1", num_envs=n, vectorization_mode="sync")


def gym_async(n):
    return gym.make_vec("CartPole-v1", num_envs=n, vectorization_mode="async")


def envpool_env(n):
    import envpool

    return envpool.make_gymnasium("CartPole-v1", num_envs=n, seed=1)


def steps_per_s(env, n, steps, actions):
    env.reset(seed=1)
    t = time.perf_counter()
    for i in range(steps):
        env.step(actions[i % len(actions)])
    return steps * n / (time.perf_counter() - t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=0, help="vector steps per round (default: ~200k env steps)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--envs", default="1,8,64,512")
    a = ap.parse_args()
    makers = {
        "rlhost": rlhost_env,
        "rlhost copy=False": rlhost_nocopy,
        "gymnasium sync": gym_sync,
        "gymnasium async": gym_async,
    }
    try:
        import envpool  # noqa: F401

        makers["envpool"] = envpool_env
    except ImportError:
        print("# envpool is not installed: not measured")
    print(f"{'envs':>5} " + " ".join(f"{k:>16}" for k in makers) + "   rlhost / each (median steps/s)")
    for n in [int(x) for x in a.envs.split(",")]:
        steps = a.steps or max(200, 200_000 // n)
        if n == 1:
            steps = min(steps, 50_000)
        actions = np.random.default_rng(0).integers(0, 2, (256, n))
        envs = {k: m(n) for k, m in makers.items()}
        got = {k: [] for k in makers}
        for r in range(a.rounds):
            for k, e in envs.items():  # interleaved: every env once per round
                s = steps if not k.startswith("gymnasium") else max(50, steps // 10)
                got[k].append(steps_per_s(e, n, s, actions))
        med = {k: statistics.median(v) for k, v in got.items()}
        ratio = "  ".join(f"{med['rlhost'] / med[k]:.1f}x" for k in makers if k != "rlhost")
        print(f"{n:>5} " + " ".join(f"{med[k]:>16,.0f}" for k in makers) + "   " + ratio, flush=True)
        for e in envs.values():
            e.close()


if __name__ == "__main__":
    main()
