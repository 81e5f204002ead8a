"""rlhost.make_vec against gymnasium.vector.SyncVectorEnv, step by step.

Gymnasium's own CartPole-v1 (gymnasium.make) runs under SyncVectorEnv; its
reset draws from a generator that yields rlhost's stream for env i (the
xoshiro256** of <rlhost/rlcore.h>, written again below), so both start
every episode in the same state and the dynamics must then agree bit for
bit.  Every returned array is compared with its dtype, every info key with
its mask, in both autoreset modes, with copy on and off; then Gymnasium's
wrappers run on top of both and must agree too.  For envs with a score
(snake, gridworld), SyncVectorEnv over rlhost's own single Env is the
reference for the info layout.
Usage: gym_vector.py  (TAP on stdout; RLHOST_LIB_DIR and PYTHONPATH set)"""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.wrappers import vector as vw
from tap import done, ok  # tests/python/tap.py

import rlhost

M64 = (1 << 64) - 1


class RlhostStream:
    """rl_rng of <rlhost/rlcore.h> seeded as env i of a vec: enough of
    numpy.random.Generator for CartPole's reset (uniform)."""

    def __init__(self, seed, stream):
        x = (seed ^ ((stream * 0xD1342543DE82EF95 + 0x2545F4914F6CDD1D) & M64)) & M64
        self.s = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & M64
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
            self.s.append(z ^ (z >> 31))

    def u64(self):
        s = self.s
        rotl = lambda v, k: ((v << k) | (v >> (64 - k))) & M64  # noqa: E731
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def uniform(self, low=0.0, high=1.0, size=None):
        n = int(np.prod(size)) if size is not None else 1
        u = np.array([(self.u64() >> 11) * (1.0 / 9007199254740992.0) for _ in range(n)])
        out = low + (high - low) * u  # numpy's Generator.uniform
        return out.reshape(size) if size is not None else float(out[0])


def gym_cartpoles(num_envs, seed, mode, copy):
    def make(i):
        def f():
            env = gym.make("CartPole-v1")
            env.unwrapped._np_random = RlhostStream(seed, i)
            return env

        return f

    return SyncVectorEnv([make(i) for i in range(num_envs)], copy=copy, autoreset_mode=mode)


def same(a, b, where):
    """'' when a and b (arrays, dicts of them, object arrays) are identical."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return f"{where}: {type(a).__name__} vs {type(b).__name__}"
        if sorted(a) != sorted(b):
            return f"{where}: keys {sorted(a)} vs {sorted(b)}"
        for k in a:
            d = same(a[k], b[k], f"{where}[{k!r}]")
            if d:
                return d
        return ""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{where}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    if a.dtype == object:
        for i, (x, y) in enumerate(zip(a, b)):
            if (x is None) != (y is None):
                return f"{where}[{i}]: {x!r} vs {y!r}"
            if x is not None:
                d = same(x, y, f"{where}[{i}]")
                if d:
                    return d
        return ""
    if not np.array_equal(a, b):
        i = np.argwhere(a != b)[0]
        return f"{where}: differ at {tuple(i)}: {a[tuple(i)]!r} vs {b[tuple(i)]!r}"
    return ""


def balance(obs, rng, random_rows):
    """A pole balancer for some rows (long episodes, truncations) and random
    actions for the others (short ones)."""
    a = (obs[:, 2] + 0.5 * obs[:, 3] > 0).astype(np.int64)
    r = rng.integers(0, 2, len(a))
    a[random_rows] = r[random_rows]
    return a


def run_pair(ours, theirs, steps, seed, what):
    """Steps both with the same actions; '' or the first difference."""
    rng = np.random.default_rng(seed)
    o1, i1 = ours.reset()
    o2, i2 = theirs.reset()
    d = same(o1, o2, "reset obs") or same(i1, i2, "reset infos")
    counts = {"term": 0, "trunc": 0}
    prev1, prev2 = o1, o2
    random_rows = np.arange(ours.num_envs) % 2 == 1
    for t in range(steps):
        if d:
            break
        a = balance(o1, rng, random_rows)
        r1 = ours.step(a)
        r2 = theirs.step(a)
        for name, x, y in zip(("obs", "reward", "terminated", "truncated", "infos"), r1, r2):
            d = d or same(x, y, f"step {t} {name}")
        o1 = r1[0]
        # copy=True: a new array each step; copy=False: the same one, as SyncVectorEnv
        if not d and ((r1[0] is prev1) != (r2[0] is prev2)):
            d = f"step {t}: the observation array is reused by {'rlhost' if r1[0] is prev1 else 'gymnasium'} only"
        prev1, prev2 = r1[0], r2[0]
        counts["term"] += int(r1[2].sum())
        counts["trunc"] += int(r1[3].sum())
    return d, counts


def differential():
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        for copy in (True, False):
            seed = 7
            ours = rlhost.make_vec("cartpole", 4, seed=seed, copy=copy, autoreset_mode=mode)
            theirs = gym_cartpoles(4, seed, mode, copy)
            d, c = run_pair(ours, theirs, 3000, 1, mode.value)
            ok(
                not d,
                f"{mode.value}, copy={copy}: 3000 steps of 4 CartPoles identical to SyncVectorEnv "
                f"over Gymnasium's ({c['term']} terminations, {c['trunc']} truncations){': ' + d if d else ''}",
            )
            ok(c["trunc"] > 0 and c["term"] > 0, f"{mode.value}: the run covers both ways an episode ends")
            ok(
                ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"],
                f"{mode.value}: metadata['autoreset_mode'] is {ours.metadata['autoreset_mode']}",
            )
            ours.close()
            theirs.close()
    ours = rlhost.make_vec("cartpole", 2)
    ok(
        ours.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP and ours.copy,
        "make_vec's defaults are SyncVectorEnv's: next-step autoreset, copy=True",
    )
    ok(
        ours.spec.max_episode_steps == 500 and ours.max_episode_steps == 500,
        f"spec.max_episode_steps is CartPole-v1's 500 ({ours.spec.max_episode_steps})",
    )
    e = gym.make(ours.spec)
    ok(e.spec.max_episode_steps == 500 and e.unwrapped.name == "cartpole", "gymnasium.make(env.spec) rebuilds the env")
    e.close()
    ours.close()


def wrappers_agree():
    """Gymnasium's vector wrappers on top of both give the same numbers."""
    seed = 3
    for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
        ours = vw.RecordEpisodeStatistics(rlhost.make_vec("cartpole", 3, seed=seed, autoreset_mode=mode))
        theirs = vw.RecordEpisodeStatistics(gym_cartpoles(3, seed, mode, True))
        if mode == AutoresetMode.NEXT_STEP:  # observation wrappers need it (Gymnasium refuses same-step)
            ours, theirs = vw.NormalizeObservation(ours), vw.NormalizeObservation(theirs)
        rng = np.random.default_rng(5)
        ours.reset()
        theirs.reset()
        d, episodes = "", 0
        for t in range(2000):
            a = rng.integers(0, 2, 3)
            r1, r2 = ours.step(a), theirs.step(a)
            for k in ("episode",):
                if k in r1[4]:
                    r1[4][k].pop("t")
                if k in r2[4]:
                    r2[4][k].pop("t")
            for name, x, y in zip(("obs", "reward", "terminated", "truncated", "infos"), r1, r2):
                d = d or same(x, y, f"step {t} {name}")
            if d:
                break
            episodes += int((r1[2] | r1[3]).sum())
        wrapped = "RecordEpisodeStatistics" + (" + NormalizeObservation" if mode == AutoresetMode.NEXT_STEP else "")
        ok(
            not d and episodes > 50,
            f"{mode.value}: {wrapped} agree over 2000 steps, {episodes} episodes{': ' + d if d else ''}",
        )
        ours.close()
        theirs.close()


def score_layout():
    """For envs with a score, SyncVectorEnv over rlhost's single Env is the
    reference: one env, so both use stream (seed, 0)."""
    for name, opts in (("snake", {"width": 6, "height": 6}), ("gridworld", {})):
        for mode in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            ours = rlhost.make_vec(name, 1, seed=11, autoreset_mode=mode, **opts)
            theirs = SyncVectorEnv([lambda: rlhost.make(name, seed=11, **opts)], autoreset_mode=mode)
            rng = np.random.default_rng(2)
            o1, _ = ours.reset()
            o2, _ = theirs.reset()
            d, ends, scored = same(o1, o2, "reset obs"), 0, 0
            for t in range(1500):
                if d:
                    break
                a = rng.integers(0, ours.single_action_space.n, 1)
                r1, r2 = ours.step(a), theirs.step(a)
                for k, x, y in zip(("obs", "reward", "terminated", "truncated", "infos"), r1, r2):
                    d = d or same(x, y, f"step {t} {k}")
                ends += int(r1[2][0] or r1[3][0])
                scored += int("_score" in r1[4] or "_score" in r1[4].get("final_info", {}))
            ok(
                not d and ends > 5 and scored == ends,
                f"{name} {mode.value}: infos (score and masks) as SyncVectorEnv lays them out, "
                f"{ends} episodes{': ' + d if d else ''}",
            )
            ours.close()
            theirs.close()


def seeded_spaces():
    a = rlhost.make_vec("cartpole", 4, seed=21)
    b = rlhost.make_vec("cartpole", 4, seed=21)
    x = [a.single_action_space.sample() for _ in range(50)] + [tuple(a.action_space.sample()) for _ in range(5)]
    y = [b.single_action_space.sample() for _ in range(50)] + [tuple(b.action_space.sample()) for _ in range(5)]
    ok(x == y, "make_vec(seed=s) seeds single_action_space and action_space: two runs sample alike")
    a.close()
    b.close()


def main():
    differential()
    wrappers_agree()
    score_layout()
    seeded_spaces()
    done()


if __name__ == "__main__":
    main()
