"""PettingZoo envs as rlhost envs (the bridge of userenv.py): a factory
returning a PettingZoo AEC or Parallel env becomes an env of K agents per
board, one row each (ABI 1.1).  An AEC game is turn-based with a seat per
agent (ABI 1.7: the host seats the learner and its opponents, and only
the agent to move acts); a Parallel env's agents all play for the learner
(one shared policy, as PufferLib trains them).  Every agent needs the same
observation and action spaces; masks come from a Dict observation's
"action_mask" key; every agent's episode ends with the others' (an env
whose agents leave and come back is refused, naming the agent)."""

import ctypes as C
import math

import numpy as np


def is_pettingzoo(env):
    return hasattr(env, "possible_agents") and callable(getattr(env, "observation_space", None))


class PettingZooInst:
    def __init__(self, factory, n, seed, first, spaces_cls, buffers_cls, fail, seed_of):
        self.Fail = fail
        self.envs = [first] + [factory() for _ in range(n - 1)]
        e0 = first
        self.aec = callable(getattr(e0, "last", None))  # AECEnv (Parallel envs have no last())
        self.names = list(e0.possible_agents)
        self.K = len(self.names)
        if not self.K:
            raise fail("the PettingZoo env has no possible_agents")
        o0, a0 = e0.observation_space(self.names[0]), e0.action_space(self.names[0])
        for a in self.names[1:]:
            if e0.observation_space(a) != o0 or e0.action_space(a) != a0:
                raise fail(
                    f"PettingZoo agent {a!r} has other spaces than {self.names[0]!r}; rlhost's agents of "
                    "one env share a policy, so their spaces must be the same"
                )
        self.sp = spaces_cls(o0, a0, None)
        self.buf = buffers_cls(self.sp, n * self.K)
        self.seeds = [seed_of(seed, i) for i in range(n)]
        self.ret = np.zeros(n * self.K)
        self.seat_ids = (C.c_uint32 * self.K)(*range(self.K))
        self.kind = "AEC" if self.aec else "Parallel"

    def fill(self, info):
        self.sp.fill(info)
        info.agents = self.K
        if self.aec and self.K >= 2:  # turn-based: a seat per agent
            info.seats = self.K
            info.agent_seats = C.cast(self.seat_ids, C.POINTER(C.c_uint32))
            info.turn_based = 1

    # ---- rows -------------------------------------------------------------
    def _mask(self, o, dst, where):
        if not self.sp.masks_from:
            return
        m = self.sp.mask(o, None, None, where)
        dst[:] = m if m.any() else 1  # a game over masks every move: nothing is left to choose

    def _show(self, i, obs_of, views, final=False):
        obs, fin, _, _, _, _, masks, finals = views
        for k, a in enumerate(self.names):
            r = i * self.K + k
            o = obs_of(a)
            self.sp.put((fin if final else obs)[r], o)
            if masks is not None:
                self._mask(o, (finals if final else masks)[r], f"env {i}'s agent {a!r}")

    def _to_move(self, io, i, e):
        if not self.aec:
            return
        tm = np.ctypeslib.as_array(io.to_move, shape=(len(self.envs) * self.K,))
        for k, a in enumerate(self.names):
            tm[i * self.K + k] = a == e.agent_selection

    def _start(self, io, i, views, seed):
        e = self.envs[i]
        if self.aec:
            e.reset(seed=seed)
            self._show(i, e.observe, views)
            self._check_agents(e, i)
        else:
            o, _ = e.reset(seed=seed)
            self._check_agents(e, i)
            self._show(i, lambda a: o[a], views)
        self._to_move(io, i, e)
        self.ret[i * self.K : (i + 1) * self.K] = 0

    def _check_agents(self, e, i):
        if list(e.agents) != self.names:
            raise self.Fail(
                f"PettingZoo env {i} started with agents {list(e.agents)}, not its possible_agents "
                f"{self.names}; rlhost needs every agent in every episode"
            )

    def reset(self, io, first, count):
        views = self.buf.views(io)
        for i in range(first, first + count):
            self._start(io, i, views, self.seeds[i])
            self.seeds[i] = None

    def step(self, io, first, count):
        views = self.buf.views(io)
        obs, fin, rew, term, trunc, acts, masks, finals = views
        scores = np.ctypeslib.as_array(io.scores, shape=(len(self.envs) * self.K,))
        for i in range(first, first + count):
            e, base = self.envs[i], i * self.K
            if self.aec:
                k = self.names.index(e.agent_selection)
                e.step(self.sp.env_action(acts[base + k]))
                got = {a: e.observe for a in self.names}
                r = e.rewards
                te, tr = e.terminations, e.truncations
                obs_of = e.observe
            else:
                d = {a: self.sp.env_action(acts[base + k]) for k, a in enumerate(self.names)}
                o, r, te, tr, _ = e.step(d)
                obs_of = o.__getitem__
                got = o
            ends = [bool(te.get(a, False) or tr.get(a, False)) for a in self.names]
            for k, a in enumerate(self.names):
                rew[base + k] = float(r.get(a, 0.0))
                if not math.isfinite(rew[base + k]):
                    raise self.Fail(
                        f"PettingZoo env {i} gave agent {a!r} the reward {r.get(a)}: rewards must be finite"
                    )
                self.ret[base + k] += rew[base + k]
                term[base + k] = bool(te.get(a, False))
                trunc[base + k] = bool(tr.get(a, False)) and not term[base + k]
            if any(ends) and not all(ends):
                gone = self.names[ends.index(True)]
                raise self.Fail(
                    f"PettingZoo env {i} ended agent {gone!r} while the others play on; rlhost needs "
                    "every agent's episode to end with the others' (keep ended agents in the env with "
                    "a no-op action until the episode ends)"
                )
            if not all(ends):
                if not self.aec and list(e.agents) != self.names:
                    raise self.Fail(
                        f"PettingZoo env {i}'s agents changed to {list(e.agents)} without ending "
                        f"their episodes; rlhost needs the same agents {self.names} all episode"
                    )
                missing = [a for a in self.names if a not in got]
                if missing:
                    raise self.Fail(f"PettingZoo env {i} gave no observation of agent {missing[0]!r}")
                self._show(i, obs_of, views)
                self._to_move(io, i, e)
                continue
            self._show(i, obs_of, views, final=True)
            scores[base : base + self.K] = self.ret[base : base + self.K]
            self._start(io, i, views, None)
        rows = obs[first * self.K : (first + count) * self.K]
        if rows.dtype == np.float32 and not np.isfinite(rows).all():
            bad = int(np.flatnonzero(~np.isfinite(rows.reshape(len(rows), -1)).all(axis=1))[0]) + first * self.K
            raise self.Fail(
                f"PettingZoo env {bad // self.K} gave agent {self.names[bad % self.K]!r} an observation that is "
                "not finite: observations must be finite"
            )

    def close(self):
        for e in self.envs:
            e.close()
