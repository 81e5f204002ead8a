"""What a user's own env can hand the Python bridge that it must refuse
with one sentence, or take: action counts past the host's 32 bits,
discrete observations out of their range, strings, masks that are no
masks, a Parallel PettingZoo env's NaN reward, and a board game whose last
move fills the board (its mask then allows nothing: a game that is over).
Usage: bridge_hostile.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import os
import sys
import tempfile

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

import rlhost

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

T = tempfile.mkdtemp()


def cfg(name, text):
    path = os.path.join(T, name)
    with open(path, "w") as f:
        f.write(text)
    return path


RANDOM = cfg(
    "random.cfg",
    'run: { steps = 64; eval_episodes = 1; quiet = true; };\nenv: { num_envs = 2; };\nalgo: { plugin = "random"; };\n',
)


class Probe(gym.Env):
    """One step episodes; observation `val` (a sample when None), masks from
    action_masks() when `mask` is given."""

    def __init__(self, act=spaces.Discrete(2), obs=spaces.Box(-1, 1, (2,), np.float32), val=None, mask=None):
        self.action_space, self.observation_space, self.val, self.m = act, obs, val, mask

    def _obs(self):
        return self.val if self.val is not None else self.observation_space.sample()

    def reset(self, seed=None, options=None):
        return self._obs(), {}

    def step(self, a):
        return self._obs(), 0.0, True, False, {}


class Masked(Probe):
    def action_masks(self):
        return self.m


def refused(what, make, want, config=RANDOM):
    try:
        rlhost.run(config, env=make, run__out_dir=os.path.join(T, "r"), force=True)
        ok(False, f"{what}: refused (it trained)")
    except rlhost.RlhostError as e:
        ok(want in str(e) and "\n" not in str(e), f"{what}: refused in one sentence ({str(e)[-110:]})")
    except Exception as e:  # noqa: BLE001 - any other exception is the defect this checks
        ok(False, f"{what}: refused with {type(e).__name__}: {e}")


# ---- counts past 32 bits, observations outside their space ---------------
refused("Discrete(2**32 + 4) actions", lambda: Probe(act=spaces.Discrete(2**32 + 4)), "1 to 1048576 choices")
refused("Discrete(2**40) actions", lambda: Probe(act=spaces.Discrete(2**40)), "1 to 1048576 choices")
refused("MultiDiscrete([2**32 + 1, 3]) actions", lambda: Probe(act=spaces.MultiDiscrete([2**32 + 1, 3])), "choices")
refused("Discrete(2**33) observations", lambda: Probe(obs=spaces.Discrete(2**33), val=0), "choices")
for v in (-1, 7, 2.5):
    refused(f"observation {v} in Discrete(5)", lambda v=v: Probe(obs=spaces.Discrete(5), val=v), "outside its space")
refused("a string observation", lambda: Probe(val="abc"), "holds numbers")
refused(
    "a string in a Dict's Discrete part",
    lambda: Probe(obs=spaces.Dict({"k": spaces.Discrete(3)}), val={"k": "x"}),
    "holds numbers",
)
refused(
    "9 in a Dict's Discrete(3) part",
    lambda: Probe(obs=spaces.Dict({"k": spaces.Discrete(3)}), val={"k": 9}),
    "outside its space",
)

# ---- masks that are no masks ----------------------------------------------
for m, want in (("ab", "is str, not 0 or 1"), ({"a": 1}, "is dict, not 0 or 1"), ([b"x", b"y"], "holds |S1 values")):
    refused(f"the mask {m!r}", lambda m=m: Masked(mask=m), want)


class Flip(Masked):
    """A mask that is there at the first reset and then None."""

    def action_masks(self):
        self.n = getattr(self, "n", 0) + 1
        return [1, 1] if self.n == 1 else None


refused("a mask that turns None", lambda: Flip(), "the env gave no mask (action_masks() is None)")


# ---- a board game whose last move fills the board --------------------------
class TicTacToe(gym.Env):
    """The learner plays X against a uniformly random O; masks from
    action_masks() alone, all false once the game is over."""

    LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def __init__(self):
        self.action_space = spaces.Discrete(9)
        self.observation_space = spaces.Box(-1, 1, (9,), np.float32)
        self.rng = np.random.default_rng(0)

    def _won(self, who):
        return any(all(self.b[i] == who for i in line) for line in self.LINES)

    def action_masks(self):
        over = self._won(1) or self._won(-1) or not (self.b == 0).any()
        return np.zeros(9, bool) if over else self.b == 0

    def reset(self, seed=None, options=None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.b = np.zeros(9, np.float32)
        return self.b.copy(), {}

    def step(self, a):
        self.b[a] = 1
        if self._won(1):
            return self.b.copy(), 1.0, True, False, {}
        if not (self.b == 0).any():
            return self.b.copy(), 0.0, True, False, {}
        self.b[self.rng.choice(np.flatnonzero(self.b == 0))] = -1
        if self._won(-1):
            return self.b.copy(), -1.0, True, False, {}
        return self.b.copy(), 0.0, not (self.b == 0).any(), False, {}


PPO = cfg(
    "ttt.cfg",
    "run: { steps = 60000; eval_episodes = 200; quiet = true; seed = 1; };\nenv: { num_envs = 8; };\n"
    'algo: { plugin = "ppo"; n_steps = 64; batch_size = 256; lr = 1e-3; ent_coef = 0.01; };\n',
)
try:
    p = rlhost.run(PPO, env=TicTacToe, run__out_dir=os.path.join(T, "ttt"), force=True)
    ret = p.summary["eval_return_mean"]
    p.close()
    # a uniformly random X scores about 0.3 against a random O
    ok(ret >= 0.6, f"a masked tic-tac-toe whose last move fills the board trains (eval return {ret:.3f}, >= 0.6)")
except rlhost.RlhostError as e:
    ok(False, f"a masked tic-tac-toe whose last move fills the board trains: {e}")


# ---- a Parallel PettingZoo env's NaN reward ---------------------------------
class NanReward(ParallelEnv):
    metadata = {"name": "nan_reward"}

    def __init__(self):
        self.possible_agents = ["a", "b"]

    def observation_space(self, agent):
        return spaces.Box(-1, 1, (2,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        self.agents, self.t = list(self.possible_agents), 0
        return {a: np.zeros(2, np.float32) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        self.t += 1
        obs = {a: np.zeros(2, np.float32) for a in self.agents}
        rew = {a: float("nan") if self.t == 3 else 0.0 for a in self.agents}
        end = {a: self.t >= 10 for a in self.agents}
        return obs, rew, end, {a: False for a in self.agents}, {a: {} for a in self.agents}


refused("a Parallel PettingZoo env's NaN reward", NanReward, "rewards must be finite")
done()
