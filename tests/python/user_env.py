"""rlhost's learners on the user's own Python env (rlhost.run(env=...)).

The bridge is exact: PPO through it on Gymnasium's CartPole-v1, whose
resets draw rlhost's stream for env i, writes the same checkpoint as PPO
on rlhost's own cartpole plugin.  Then learning on a factory, on a
SyncVectorEnv in both autoreset modes, SAC on Gymnasium's Pendulum (a Box),
determinism, an env that raises, spaces rlhost cannot take, resume refused,
and the policy loaded back.
Usage: user_env.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import os
import subprocess
import sys
import tempfile
import warnings

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import rlhost
from rlhost.policy import read_safetensors
from rlhost.userenv import _seed_of

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gym_vector import RlhostStream  # noqa: E402
from tap import done, ok, skip  # noqa: E402

SRC = sys.argv[2]
T = tempfile.mkdtemp()
PPO = os.path.join(SRC, "configs/cartpole_ppo.cfg")


class TwinCartPole(gym.Wrapper):
    """Gymnasium's CartPole-v1 whose first reset, seeded by the bridge with
    the seed of env i, draws rlhost's stream (run seed, i) instead."""

    def __init__(self, run_seed, n):
        super().__init__(gym.make("CartPole-v1"))
        self.index_of = {_seed_of(run_seed, i): i for i in range(n)}
        self.run_seed = run_seed

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self.unwrapped._np_random = RlhostStream(self.run_seed, self.index_of[seed])
        return self.env.reset(options=options)


def tensors(run_dir):
    t, _ = read_safetensors(os.path.join(run_dir, "checkpoint.safetensors"))
    return {k: v for k, v in t.items() if not k.startswith("env/")}


def exact():
    common = dict(run__steps=20000, run__eval_episodes=0, run__quiet=True, force=True)
    rlhost.run(PPO, run__out_dir=os.path.join(T, "plugin"), **common)
    rlhost.run(PPO, env=lambda: TwinCartPole(1, 8), run__out_dir=os.path.join(T, "bridge"), **common)
    a, b = tensors(os.path.join(T, "plugin")), tensors(os.path.join(T, "bridge"))
    # the host's observation and episode buffers are saved beside an env's own state only
    learner = [k for k in a if not k.startswith("host/")]
    diff = [k for k in learner if k not in b or not np.array_equal(a[k], b[k])]
    ok(
        len(learner) > 20 and not diff,
        f"PPO on Gymnasium's CartPole through the bridge learns what it learns on "
        f"rlhost's cartpole plugin: all {len(learner)} learner tensors of the checkpoint equal{diff[:3]}",
    )


def learning():
    factory = lambda: gym.make("CartPole-v1")  # noqa: E731
    p = rlhost.run(
        PPO, env=factory, run__steps=50000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "factory")
    )
    ok(
        p.summary["eval_return_mean"] >= 200,
        f"PPO on a factory of Gymnasium's CartPole-v1: 50k steps, eval return "
        f"{p.summary['eval_return_mean']} (random play: about 22)",
    )
    q = rlhost.run(
        PPO, env=factory, run__steps=50000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "factory2")
    )
    same = all(np.array_equal(x, tensors(q.run_dir)[k]) for k, x in tensors(p.run_dir).items())
    ok(
        same and q.summary["eval_return_mean"] == p.summary["eval_return_mean"],
        "the same config and seed train the same network on a Python env",
    )
    env = p.make_env(2, seed=3)
    obs, _ = env.reset()
    steps = 0
    for _ in range(300):
        obs, r, term, trunc, _ = env.step(p(obs))
        steps += 1
    ok(steps == 300 and obs.shape == (2, 4), "load(): the policy acts on its env, made again from the factory")
    env.close()
    code = (
        "import gymnasium as gym, numpy as np, rlhost, sys; "
        f"rlhost.userenv.register(lambda: gym.make('CartPole-v1'), name={p.summary['env']!r}); "
        f"p = rlhost.load({p.run_dir!r}); print('acts', p(np.zeros(4, np.float32)))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    ok(
        r.returncode == 0 and "acts" in r.stdout,
        f"another process loads the policy after registering the env by its name ({p.summary['env']}){r.stderr[-300:]}",
    )
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        vec = SyncVectorEnv([factory for _ in range(8)], autoreset_mode=mode)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p = rlhost.run(
                PPO,
                env=vec,
                eval_env=factory,
                run__steps=50000,
                run__quiet=True,
                force=True,
                run__out_dir=os.path.join(T, f"vec_{mode.value}"),
            )
        ok(
            p.summary["eval_return_mean"] >= 200 and not caught,
            f"PPO on a SyncVectorEnv ({mode.value}), evaluated on the factory: eval return "
            f"{p.summary['eval_return_mean']}",
        )
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            p = rlhost.run(
                PPO,
                env=vec,
                run__steps=5000,
                run__quiet=True,
                force=True,
                run__out_dir=os.path.join(T, f"vec_noeval_{mode.value}"),
            )
        ok(
            any("eval_env" in str(w.message) for w in caught) and p.summary["eval_return_mean"] is None,
            f"{mode.value} without eval_env: trains, says evaluation is left out",
        )
        vec.close()
    p = rlhost.run(
        os.path.join(SRC, "configs/pendulum_sac.cfg"),
        env=lambda: gym.make("Pendulum-v1"),
        run__steps=6000,
        run__quiet=True,
        force=True,
        run__out_dir=os.path.join(T, "sac"),
    )
    a = p(np.zeros((4, 3), np.float32))
    ok(
        p.summary["eval_return_mean"] > -700 and a.shape == (4, 1) and np.all(np.abs(a) <= 2),
        f"SAC on Gymnasium's Pendulum-v1 (a Box): 6000 steps, eval return {p.summary['eval_return_mean']:.0f} "
        "(random play: about -1200)",
    )


class Raises(gym.Env):
    observation_space = gym.spaces.Box(-1, 1, (2,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(2, np.float32), {}

    def step(self, a):
        self.t += 1
        if self.t == 30:
            raise ZeroDivisionError("the simulator fell over")
        return np.zeros(2, np.float32), 1.0, False, False, {}


class NanReward(Raises):
    def step(self, a):
        self.t += 1
        return np.zeros(2, np.float32), float("nan") if self.t == 7 else 1.0, False, False, {}


class DictObs(Raises):  # a Dict inside a Dict: deeper than the bridge takes
    observation_space = gym.spaces.Dict({"x": gym.spaces.Dict({"y": gym.spaces.Box(-1, 1, (2,), np.float32)})})


class WrongShape(Raises):
    def step(self, a):
        return np.zeros(3, np.float32), 1.0, False, False, {}


class HugeObs(Raises):
    # 128 MiB of uint8 per observation, twice RL_OBS_MAX_BYTES
    observation_space = gym.spaces.Box(0, 255, (1 << 17, 1 << 10), np.uint8)


def refusals():
    try:
        rlhost.run(
            PPO, env=Raises, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "raises")
        )
        ok(False, "an env that raises stops the run")
    except ZeroDivisionError as e:
        ok(
            "fell over" in str(e) and "the env raised ZeroDivisionError" in str(e.__cause__),
            f"an env that raises stops the run with its own exception (cause: {e.__cause__})",
        )
    try:
        rlhost.run(
            PPO, env=NanReward, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "nan")
        )
        ok(False, "a NaN reward is refused")
    except rlhost.RlhostError as e:
        ok("returned the reward nan" in str(e), f"a NaN reward is refused: {e}")
    try:
        rlhost.run(PPO, env=DictObs, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "dict"))
        ok(False, "a Dict inside a Dict is refused")
    except rlhost.RlhostError as e:
        ok(
            "part 'x' is itself a Dict: the bridge takes one level of Dict or Tuple" in str(e),
            f"a Dict inside a Dict is refused with the way out: {e}",
        )
    try:
        rlhost.run(
            PPO, env=WrongShape, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "shape")
        )
        ok(False, "an observation of the wrong shape is refused")
    except rlhost.RlhostError as e:
        ok(
            "observation of shape (3,); its observation space says (2,)" in str(e),
            f"an observation of the wrong shape is refused with both shapes: {e}",
        )
    try:
        rlhost.run(
            PPO, env=lambda: None, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "none")
        )
        ok(False, "a factory that returns no env is refused")
    except rlhost.RlhostError as e:
        ok("factory returned NoneType, not a Gymnasium env" in str(e), f"a factory that returns None: {e}")
    try:
        rlhost.run(PPO, env=HugeObs, run__steps=5000, run__quiet=True, force=True, run__out_dir=os.path.join(T, "huge"))
        ok(False, "an observation over the host's limit is refused")
    except rlhost.RlhostError as e:
        ok("would need 134217728 bytes" in str(e), f"an observation over the host's limit is refused up front: {e}")
    try:
        rlhost.run(os.path.join(T, "factory"), resume=True, run__steps=60000)
        ok(False, "resume of a run on a Python env is refused")
    except rlhost.RlhostError as e:
        ok("embedding program" in str(e) and "cannot continue" in str(e), f"resume refused with the reason: {e}")
    try:
        rlhost.run(PPO, env=42)
        ok(False, "env=42 is refused")
    except TypeError as e:
        ok("factory" in str(e), f"env=42 is refused: {e}")


def sb3_vecenv():
    try:
        from stable_baselines3.common.env_util import make_vec_env
    except ImportError:
        skip(
            "a Stable-Baselines3 VecEnv: stable_baselines3 is not installed "
            "(optional; checked by hand with SB3 2.4.1, docs/python.md)"
        )
        return
    venv = make_vec_env("CartPole-v1", n_envs=8, seed=1)
    p = rlhost.run(
        PPO,
        env=venv,
        eval_env=lambda: gym.make("CartPole-v1"),
        run__steps=50000,
        run__quiet=True,
        force=True,
        run__out_dir=os.path.join(T, "sb3"),
    )
    ok(p.summary["eval_return_mean"] >= 200, f"PPO on an SB3 VecEnv: eval return {p.summary['eval_return_mean']}")


def make_arm():
    return gym.make("Pendulum-v1")


def names():
    """The registered names are what docs/python.md says."""
    vec = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 2)
    got = [
        rlhost.userenv.register(vec),
        rlhost.userenv.register(make_arm),
        rlhost.userenv.register(lambda: gym.make("CartPole-v1")),
        rlhost.userenv.register(lambda: gym.make("CartPole-v1")),
    ]
    ok(
        got == ["py_cartpole_v1", "py_make_arm", "py_env", "py_env_2"],
        f"registered names: a vector env's spec id, a factory's name, py_env for a lambda, then _2: {got}",
    )
    vec.close()


def main():
    names()
    exact()
    learning()
    refusals()
    sb3_vecenv()
    done()


if __name__ == "__main__":
    main()
