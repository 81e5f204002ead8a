"""PettingZoo both ways.

In: PettingZoo's own Connect Four and tic-tac-toe (AEC games, masks from the
"action_mask" of their Dict observations) train by self-play with the C
learners through rlhost.run, evaluated per seat against random play; a
Parallel env of 16 agents trains as 16 rows of one policy; envs whose
agents leave mid-episode, or whose agents differ in spaces, are refused
with a sentence.
Out: rlhost's Connect Four is an AECEnv and its snake and gridworld with
several agents ParallelEnvs that pass PettingZoo's api_test and
parallel_api_test.
Usage: pettingzoo_bridge.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import csv
import io
import os
import sys
import tempfile
import warnings
from contextlib import redirect_stdout

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv
from pettingzoo.classic import connect_four_v3, tictactoe_v3
from pettingzoo.sisl import pursuit_v5
from pettingzoo.test import api_test, parallel_api_test

import rlhost
import rlhost.pettingzoo as P

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

T = tempfile.mkdtemp()


def cfg(name, text):
    path = os.path.join(T, name)
    with open(path, "w") as f:
        f.write(text)
    return path


SELFPLAY = cfg(
    "selfplay.cfg",
    """run: { steps = 20000; seed = 1; eval_episodes = 20; quiet = true; };
env: { num_envs = 16; };
algo: { plugin = "ppo"; n_steps = 64; batch_size = 256; hidden = [128, 128]; };
seats: { opponent = "self"; snapshot_interval = 5000; eval_opponents = ["random"]; };
""",
)


def last_eval(run_dir):
    rows = list(csv.DictReader(open(os.path.join(run_dir, "evals.csv"))))
    return rows[-1]


def aec_in():
    out = os.path.join(T, "c4")
    rlhost.run(SELFPLAY, env=lambda: connect_four_v3.env(), force=True, run__out_dir=out)
    e = last_eval(out)
    w0, w1 = float(e["vs_random_seat0_win"]), float(e["vs_random_seat1_win"])
    ok(
        w0 >= 0.6 and w1 >= 0.6,
        f"connect_four_v3 by self-play, 20k steps: beats random play from both seats ({w0:.2f}, {w1:.2f})",
    )
    pool = [f for f in os.listdir(os.path.join(out, "pool")) if f.endswith(".safetensors")]
    ok(len(pool) >= 4, f"its pool holds the snapshots ({len(pool)})")
    out = os.path.join(T, "ttt")
    rlhost.run(SELFPLAY, env=lambda: tictactoe_v3.env(), force=True, run__out_dir=out)
    e = last_eval(out)
    lost = (float(e["vs_random_seat0_loss"]) + float(e["vs_random_seat1_loss"])) / 2
    ok(lost <= 0.4, f"tictactoe_v3 by self-play, 20k steps: loses at most 40% of its games to random play ({lost:.2f})")


def parallel_in():
    out = os.path.join(T, "pursuit")
    c = cfg(
        "pursuit.cfg",
        """run: { steps = 6400; seed = 1; eval_episodes = 1; quiet = true; };
env: { num_envs = 1; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 256; hidden = [64, 64]; };
""",
    )
    rlhost.run(c, env=lambda: pursuit_v5.parallel_env(n_pursuers=16, max_cycles=100), force=True, run__out_dir=out)
    m = list(csv.DictReader(open(os.path.join(out, "metrics.csv"))))
    ok(
        len(m) >= 1 and os.path.exists(os.path.join(out, "checkpoint.safetensors")),
        "pursuit_v5 with 16 agents trains as 16 rows of one policy",
    )


class Leaving(ParallelEnv):
    """Two agents; agent 'b' leaves at step 3 (or its spaces differ: spaces=True)."""

    metadata = {"name": "leaving"}

    def __init__(self, spaces_differ=False):
        self.possible_agents = ["a", "b"]
        self.differ = spaces_differ

    def observation_space(self, agent):
        return spaces.Box(-1, 1, (3 if self.differ and agent == "b" else 2,), np.float32)

    def action_space(self, agent):
        return spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        self.agents, self.t = list(self.possible_agents), 0
        return {a: np.zeros(self.observation_space(a).shape, np.float32) for a in self.agents}, {
            a: {} for a in self.agents
        }

    def step(self, actions):
        self.t += 1
        obs = {a: np.zeros(2, np.float32) for a in self.agents}
        term = {a: a == "b" and self.t == 3 for a in self.agents}
        trunc = {a: self.t >= 10 for a in self.agents}
        rew = {a: 0.0 for a in self.agents}
        self.agents = [a for a in self.agents if not (term[a] or trunc[a])]
        return obs, rew, term, trunc, {a: {} for a in obs}


def refusals():
    c = cfg(
        "leaving.cfg",
        "run: { steps = 200; eval_episodes = 0; quiet = true; };\nenv: { num_envs = 2; };\n"
        'algo: { plugin = "ppo"; n_steps = 8; batch_size = 16; };\n',
    )
    for env, want, what in (
        (lambda: Leaving(), "ended agent 'b' while the others play on", "an agent that leaves"),
        (lambda: Leaving(True), "agent 'b' has other spaces than 'a'", "agents of other spaces"),
    ):
        try:
            rlhost.run(c, env=env, force=True, run__out_dir=os.path.join(T, "bad"))
            ok(False, f"{what}: refused")
        except rlhost.RlhostError as e:
            ok(want in str(e), f"{what}: refused with its sentence ({e})")


def out():
    for name, make, test in (
        ("connect_four as an AECEnv", lambda: P.env("connect_four"), api_test),
        (
            "snake with 4 snakes as a ParallelEnv",
            lambda: P.parallel_env("snake", snakes=4, width=10, height=10, observation="grid"),
            parallel_api_test,
        ),
        ("gridworld with 3 agents as a ParallelEnv", lambda: P.parallel_env("gridworld", agents=3), parallel_api_test),
    ):
        why = None
        try:
            with warnings.catch_warnings(), redirect_stdout(io.StringIO()):  # its progress lines are not TAP
                warnings.simplefilter("ignore")
                test(make(), num_cycles=300)
        except Exception as e:  # noqa: BLE001
            why = f"{type(e).__name__}: {e}"
        ok(why is None, f"{name} passes PettingZoo's {test.__name__}" + (f": {why}" if why else ""))
    try:
        P.parallel_env("connect_four")
        ok(False, "a turn-based env is no ParallelEnv")
    except ValueError as e:
        ok("is turn-based" in str(e), "a turn-based env is no ParallelEnv: says so")


def main():
    aec_in()
    parallel_in()
    refusals()
    out()
    done()


if __name__ == "__main__":
    main()
