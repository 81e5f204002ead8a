"""The spaces of a user's own problem through the Python bridge, and
rlhost's own masking envs through their Gymnasium face.

A Gymnasium env with a Dict observation (a MultiDiscrete goal, a uint8
image, a float vector) and a masked MultiDiscrete action trains with one
rlhost.run call; Tuple, MultiBinary and Discrete parts, and masks from each
source the bridge reads (the Dict's "action_mask" key, info["action_mask"],
an action_masks() method, in that order) on factories and vector envs; every
bad input refused with its sentence; the Policy acts over Dicts and masks;
snake's masks through rlhost.make and make_vec.
Usage: spaces_bridge.py RLHOST SOURCE_ROOT  (TAP; RLHOST_LIB_DIR and PYTHONPATH set)"""

import os
import sys
import tempfile

import gymnasium as gym
import numpy as np
from gymnasium import spaces

import rlhost

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import done, ok  # noqa: E402

SRC = sys.argv[2]
T = tempfile.mkdtemp()
CFG = os.path.join(T, "ppo.cfg")
with open(CFG, "w") as f:
    f.write(
        "run: { steps = 40000; eval_episodes = 10; quiet = true; };\nenv: { num_envs = 8; };\n"
        'algo: { plugin = "ppo"; n_steps = 64; batch_size = 128; ent_coef = 0.0; lr = 3e-3; };\n'
    )


class Targets(gym.Env):
    """Each step shows a goal per component and pays the share of
    components whose action hits it; one wrong choice per component is
    masked.  masks: "key" (the Dict's action_mask), "info", "method" or
    None; obs: "dict", "tuple" or "multibinary"."""

    def __init__(self, nvec=(4, 3), masks="key", obs="dict", invalid=1, bad=None, discrete=False):
        self.nvec, self.masks, self.kind, self.invalid, self.bad = np.array(nvec), masks, obs, invalid, bad
        W = int(self.nvec.sum())
        parts = {
            "goal": spaces.MultiDiscrete(self.nvec),
            "image": spaces.Box(0, 255, (1, 6, 6), np.uint8),
            "noise": spaces.Box(-1, 1, (3,), np.float32),
            "first": spaces.Discrete(int(nvec[0]), start=5),
        }
        if obs == "tuple":
            self.observation_space = spaces.Tuple([parts["goal"], parts["noise"]])
        elif obs == "multibinary":
            self.observation_space = spaces.MultiBinary(W)
        else:
            if masks == "key":
                parts["action_mask"] = spaces.MultiBinary(W)
            self.observation_space = spaces.Dict(parts)
        self.action_space = spaces.Discrete(int(nvec[0])) if discrete else spaces.MultiDiscrete(self.nvec)
        self.calls = 0

    def _mask(self):
        m, off = np.ones(int(self.nvec.sum()), np.int8), 0
        for c, n in enumerate(self.nvec):
            for _ in range(self.invalid):
                a = self.np_random.integers(n)
                if a != self.goal[c]:
                    m[off + a] = 0
            off += n
        if self.bad == "empty" and self.calls > 3:
            m[:] = 0
        if self.bad == "short":
            m = m[:-1]
        return m

    def _obs(self):
        self.mask_now = self._mask()
        if self.kind == "tuple":
            return (self.goal.copy(), np.zeros(3, np.float32))
        if self.kind == "multibinary":  # the goal as bits: one per choice
            bits, off = np.zeros(int(self.nvec.sum()), np.int8), 0
            for c, n in enumerate(self.nvec):
                bits[off + self.goal[c]] = 1
                off += n
            return bits
        img = np.zeros((1, 6, 6), np.uint8)
        for c, g in enumerate(self.goal):
            img[0, c, g] = 255
        noise = self.np_random.uniform(-1, 1, 3).astype(np.float32)
        if self.bad == "nan" and self.calls > 3:
            noise[1] = np.nan
        o = {"goal": self.goal.copy(), "image": img, "noise": noise, "first": int(self.goal[0]) + 5}
        if self.masks == "key":
            o["action_mask"] = self.mask_now
        return o

    def _info(self):
        return {"action_mask": self.mask_now} if self.masks == "info" else {}

    def action_masks(self):
        return self.mask_now

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        self.goal = np.array([self.np_random.integers(n) for n in self.nvec])
        o = self._obs()
        return o, self._info()

    def step(self, a):
        self.calls += 1
        a = np.atleast_1d(np.asarray(a))
        if self.masks and not np.all([self.mask_now[int(np.sum(self.nvec[:c])) + a[c]] for c in range(len(a))]):
            raise AssertionError(f"a masked action {a.tolist()} reached the env")
        r = float(np.mean(a == self.goal))
        self.t += 1
        self.goal = np.array([self.np_random.integers(n) for n in self.nvec])
        o = self._obs()
        return o, r, self.t >= 8, False, self._info()


class NoMethod(Targets):
    action_masks = None  # masks only in info

    def __init__(self):
        super().__init__(masks="info")


def run(env, name, **kw):
    return rlhost.run(CFG, env=env, run__out_dir=os.path.join(T, name), force=True, **kw)


def learning():
    p = run(lambda: Targets(), "dict")
    ok(
        p.summary["eval_return_mean"] >= 7.0,
        f"Dict observation, masked MultiDiscrete action, one rlhost.run: eval return "
        f"{p.summary['eval_return_mean']} >= 7.0 of 8",
    )
    obs = p.observation
    ok(
        [q["name"] for q in obs["parts"]] == ["first", "goal", "image", "noise"],
        f"the checkpoint's parts, in the Dict's order, the mask key left out: {[q['name'] for q in obs['parts']]}",
    )
    env = Targets()
    o, _ = env.reset(seed=3)
    hits = 0
    for _ in range(50):
        a = p(o)
        allowed = all(env.mask_now[int(np.sum(env.nvec[:c])) + a[c]] for c in range(2))
        hits += allowed
        o, *_ = env.step(a) if allowed else env.reset()
    ok(hits == 50, f"the Policy reads the Dict and its action_mask key: {hits} of 50 actions allowed")
    batch = {k: np.stack([v] * 3) for k, v in o.items()}
    ok(p(batch).shape == (3, 2), "the Policy takes a batch of Dicts as a dict of arrays")
    x = p.inputs(o)
    ok(x.shape == (1, 4 + 7 + 36 + 3), f"Policy.inputs: the one-hot parts and the rest, {x.shape[1]} floats")
    for masks, name in (("info", "info"), ("method", "method")):
        p = run(lambda m=masks: Targets(masks=m), name, run__steps=20000)
        ok(p.summary["eval_return_mean"] >= 6.0, f"masks from {name}: eval return {p.summary['eval_return_mean']}")
    p = run(lambda: Targets(masks="method", obs="tuple"), "tuple", run__steps=20000)
    ok(p.summary["eval_return_mean"] >= 6.0, f"a Tuple observation: eval return {p.summary['eval_return_mean']}")
    p = run(lambda: Targets(masks=None, obs="multibinary"), "multibinary", run__steps=20000)
    ok(
        p.summary["eval_return_mean"] >= 6.0,
        f"a MultiBinary observation, no masks: eval return {p.summary['eval_return_mean']}",
    )
    vec = gym.vector.SyncVectorEnv([lambda: Targets()] * 8)
    p = run(vec, "vector", eval_env=lambda: Targets(), run__steps=20000)
    ok(
        p.summary["eval_return_mean"] >= 6.0,
        f"a SyncVectorEnv of Dicts with masks: eval return {p.summary['eval_return_mean']}",
    )
    vec = gym.vector.SyncVectorEnv([lambda: Targets(masks="method", obs="tuple")] * 8)
    p = run(vec, "vector_method", eval_env=lambda: Targets(masks="method", obs="tuple"), run__steps=20000)
    ok(
        p.summary["eval_return_mean"] >= 6.0,
        f"a SyncVectorEnv with action_masks(): eval return {p.summary['eval_return_mean']}",
    )
    dqn = os.path.join(T, "dqn.cfg")
    with open(dqn, "w") as f:
        f.write(
            "run: { steps = 20000; eval_episodes = 10; quiet = true; };\nenv: { num_envs = 4; };\n"
            'algo: { plugin = "dqn"; learning_starts = 500; };\n'
        )
    p = rlhost.run(dqn, env=lambda: Targets(nvec=(5,), discrete=True), run__out_dir=os.path.join(T, "dqn"), force=True)
    ok(p.summary["eval_return_mean"] >= 6.0, f"DQN on a Dict and masks: eval return {p.summary['eval_return_mean']}")


def refusals():
    cases = [
        (lambda: Targets(bad="empty"), "wrote a mask allowing no action in component 0 for env 0"),
        (lambda: Targets(bad="short"), "the observation's 'action_mask' has 6 entries; the action space needs 7"),
        (lambda: Targets(bad="nan"), "holding nan in part 'noise', element 1"),
        (NoMethod, "rlhost"),  # masks in info: fine (the control case)
    ]
    for k, (env, want) in enumerate(cases):
        try:
            run(env, f"bad{k}", run__steps=2000)
            ok(want == "rlhost", f"refused: {want}")
        except rlhost.RlhostError as e:
            ok(want in str(e), f"refused with the sentence: {e}")

    class Nested(Targets):
        def __init__(self):
            super().__init__()
            self.observation_space = spaces.Dict({"a": spaces.Tuple([spaces.Discrete(2)])})

    try:
        run(Nested, "nested", run__steps=2000)
        ok(False, "a Tuple inside a Dict is refused")
    except rlhost.RlhostError as e:
        ok("part 'a' is itself a Tuple" in str(e), f"a Tuple inside a Dict is refused: {e}")

    class BoxMask(Targets):
        def __init__(self):
            super().__init__()
            self.action_space = spaces.Box(-1, 1, (2,), np.float32)

    try:
        run(BoxMask, "boxmask", run__steps=2000)
        ok(False, "an action mask for a Box is refused")
    except rlhost.RlhostError as e:
        ok("masks are for Discrete and MultiDiscrete actions" in str(e), f"a mask for a Box is refused: {e}")


def own_envs():
    env = rlhost.make("snake", action_mask="deadly")
    ok(isinstance(env.action_space, spaces.Discrete), "snake with masks: Discrete(4)")
    o, info = env.reset(seed=1)
    m = env.action_masks()
    ok(
        m.dtype == bool and m.shape == (4,) and not m.all() and np.array_equal(m, info["action_mask"]),
        f"Env.action_masks() and info['action_mask']: the reverse move masked {m.tolist()}",
    )
    bad = int(np.flatnonzero(~m)[0])
    try:
        env.step(bad)
        ok(False, "a forbidden action from Python is refused")
    except rlhost.RlhostError as e:
        ok(
            f"the caller chose action {bad} for env 0, which its action mask forbids" in str(e),
            f"a forbidden action from Python is refused: {e}",
        )
    env.close()
    vec = rlhost.make_vec("snake", 4, action_mask="deadly")
    vec.reset(seed=2)
    ms = vec.action_masks()
    ok(ms.shape == (4, 4) and (ms.sum(axis=1) >= 1).all(), "VectorEnv.action_masks(): a row per env")
    rng = np.random.default_rng(0)
    for _ in range(200):
        ms = vec.action_masks()
        _, _, _, _, infos = vec.step(np.array([rng.choice(np.flatnonzero(r)) for r in ms]))
    ok("action_mask" in infos and infos["action_mask"].shape == (4, 4), "infos['action_mask'] of every env")
    vec.close()


def main():
    learning()
    refusals()
    own_envs()
    done()


if __name__ == "__main__":
    main()
