"""Hybrid actions (a discrete choice with continuous parameters) through the
Python bridge, both ways.

A Gymnasium env whose action is a Dict of a Discrete and a Box trains with
one rlhost.run call, PPO and A2C, masked and unmasked, and a Tuple action on
a vector env; rlhost's own platform env through its Gymnasium face (a Tuple
of Discrete and Box); the Policy of a hybrid run acts with the pair; every
bad space refused with its sentence.
Usage: hybrid_bridge.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import os
import sys
import tempfile

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import rlhost

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

T = tempfile.mkdtemp()


def cfg(algo, steps):
    path = os.path.join(T, f"{algo}.cfg")
    extra = "n_steps = 64; batch_size = 256; lr = 1e-3;" if algo == "ppo" else "n_steps = 8; lr = 1e-3;"
    with open(path, "w") as f:
        f.write(
            f"run: {{ steps = {steps}; eval_episodes = 100; quiet = true; }};\nenv: {{ num_envs = 8; }};\n"
            f'algo: {{ plugin = "{algo}"; ent_coef = 0.0; {extra} }};\n'
        )
    return path


class Reach(gym.Env):
    """One step an episode: the observation names a tool (one of three)
    and a target in [-1, 1]; the action picks a tool and aims.  The right
    tool pays 1 - |aim - target| / 2, a wrong one 0.  masks: the wrong
    tools but one are masked (the Dict observation's "action_mask");
    form: "dict" or "tuple" action."""

    def __init__(self, masks=False, form="dict"):
        self.masks, self.form = masks, form
        obs = {"tool": spaces.Discrete(3), "target": spaces.Box(-1, 1, (1,), np.float32)}
        if masks:
            obs["action_mask"] = spaces.MultiBinary(3)
        self.observation_space = spaces.Dict(obs)
        tool, aim = spaces.Discrete(3), spaces.Box(-1.0, 1.0, (1,), np.float32)
        self.action_space = spaces.Dict({"tool": tool, "aim": aim}) if form == "dict" else spaces.Tuple((tool, aim))

    def _obs(self):
        o = {"tool": self.tool, "target": np.array([self.target], np.float32)}
        if self.masks:
            m = np.zeros(3, np.int8)
            m[self.tool] = 1
            m[(self.tool + 1 + self.np_random.integers(2)) % 3] = 1
            o["action_mask"] = m
        return o

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.tool, self.target = int(self.np_random.integers(3)), float(self.np_random.uniform(-1, 1))
        return self._obs(), {}

    def step(self, a):
        tool, aim = (a["tool"], a["aim"]) if self.form == "dict" else a
        assert isinstance(tool, (int, np.integer)) and aim.shape == (1,) and aim.dtype == np.float32, (tool, aim)
        r = 1.0 - abs(float(aim[0]) - self.target) / 2 if tool == self.tool else 0.0
        return self._obs(), r, True, False, {}


def learning():
    # uniform random play scores 1/3 x 2/3 = 0.22
    for algo, masks, steps in (("ppo", False, 60000), ("ppo", True, 60000), ("a2c", False, 60000)):
        p = rlhost.run(
            cfg(algo, steps),
            env=lambda m=masks: Reach(masks=m),
            run__out_dir=os.path.join(T, f"{algo}{masks}"),
            force=True,
        )
        got = p.summary["eval_return_mean"]
        ok(
            got >= 0.8,
            f"{algo} on a Dict action of a Discrete and a Box{', masked' if masks else ''}: {got:.3f} >= 0.8",
        )
    vec = gym.vector.SyncVectorEnv([lambda: Reach(form="tuple") for _ in range(8)])
    p = rlhost.run(
        cfg("ppo", 60000),
        env=vec,
        eval_env=lambda: Reach(form="tuple"),
        run__out_dir=os.path.join(T, "tuple"),
        force=True,
    )
    got = p.summary["eval_return_mean"]
    ok(got >= 0.8, f"ppo on a vector env of Tuple actions: {got:.3f} >= 0.8")
    # the Policy of a hybrid run acts with the pair, greedily: the right tool, the aim near the target
    pol = rlhost.load(os.path.join(T, "ppoFalse"), num_envs=4)
    env = Reach()
    obs, _ = env.reset(seed=3)
    tool, aim = pol(obs)
    ok(
        isinstance(tool, int) and aim.shape == (1,) and aim.dtype == np.float32,
        f"one row's action is a pair: {tool}, {aim}",
    )
    ok(
        tool == env.tool and abs(float(aim[0]) - env.target) < 0.3,
        f"and aims: tool {tool} of {env.tool}, {aim[0]:.2f} at {env.target:.2f}",
    )
    tools, aims = pol({"tool": np.array([0, 1, 2, 1]), "target": np.array([[0.5], [-0.5], [0.0], [0.9]], np.float32)})
    ok(tools.shape == (4,) and aims.shape == (4, 1), f"a batch's action: {tools.shape} and {aims.shape}")
    ok(list(tools) == [0, 1, 2, 1], f"each row's tool: {list(tools)}")
    pol.close()


def refusals():
    class Bad(Reach):
        def __init__(self, act):
            super().__init__()
            self.action_space = act

    cases = [
        ("infinite bounds", spaces.Dict({"t": spaces.Discrete(2), "a": spaces.Box(-np.inf, 1, (1,))}), "finite bounds"),
        ("no Box part", spaces.Dict({"t": spaces.Discrete(2), "u": spaces.Discrete(3)}), "at least one"),
        ("no discrete part", spaces.Tuple((spaces.Box(-1, 1, (2,)),)), "at least one"),
        (
            "a nested Dict",
            spaces.Dict({"t": spaces.Discrete(2), "d": spaces.Dict({"a": spaces.Box(-1, 1, (1,))})}),
            "one level",
        ),
        ("a 2-D Box part", spaces.Dict({"t": spaces.Discrete(2), "a": spaces.Box(-1, 1, (2, 2))}), "1-D float Box"),
    ]
    for what, act, want in cases:
        try:
            rlhost.run(cfg("ppo", 1000), env=lambda a=act: Bad(a), run__out_dir=os.path.join(T, "bad"), force=True)
            ok(False, f"{what}: refused")
        except rlhost.RlhostError as e:
            ok(want in str(e) and "\n" not in str(e), f"{what}: refused in one sentence: {e}")


def own_env():
    env = rlhost.make("platform")
    sp = env.action_space
    ok(
        isinstance(sp, spaces.Tuple)
        and sp.spaces[0] == spaces.Discrete(3)
        and sp.spaces[1].shape == (3,)
        and (sp.spaces[1].low == -1).all(),
        f"platform's action space is a Tuple of the move and its parameters: {sp}",
    )
    env.reset(seed=1)
    total, steps = 0.0, 0
    for _ in range(20):  # run at full speed: progress along the first platform
        obs, r, term, trunc, _ = env.step((0, np.array([1.0, 0.0, 0.0], np.float32)))
        total, steps = total + r, steps + 1
        if term or trunc:
            break
    ok(total > 0.05, f"running makes progress: {total:.3f} in {steps} moves")
    for bad, want in (
        ((3, np.zeros(3, np.float32)), "outside"),
        ((0, np.full(3, 2.0, np.float32)), "outside the box"),
        (0, "pair"),
    ):
        try:
            env.step(bad)
            ok(False, f"action {bad!r} refused")
        except (ValueError, TypeError) as e:
            ok(want in str(e), f"action {bad!r} refused: {e}")
    env.close()
    venv = rlhost.make_vec("platform", num_envs=4)
    venv.reset(seed=2)
    obs, r, te, tr, _ = venv.step((np.array([0, 1, 2, 0]), np.zeros((4, 3), np.float32)))
    ok(obs.shape == (4, 8) and r.shape == (4,), f"a vector of platforms steps a batched pair: {obs.shape}")
    venv.close()


learning()
refusals()
own_env()
done()
