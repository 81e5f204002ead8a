"""rlhost's multi-agent envs as PettingZoo envs, stepped in C.

parallel_env(name, **options): an env whose agents act at once (snake with
snakes=K, gridworld with agents=K): a ParallelEnv of one board, agent k its
row k.  An rlhost agent whose episode ends starts a new one at once; here
it leaves the PettingZoo episode (terminated or truncated, as rlhost says)
and its row plays on with a fixed move until every agent has left, which
ends the episode: reset() starts the next.

env(name, **options): a turn-based env with seats (connect_four): an
AECEnv whose agents take the seats in order (player_0 moves first), each
observing {"observation", "action_mask"} from its own side; the game's end
ends every agent's episode.

Both pass PettingZoo's own api_test / parallel_api_test (the test suite
runs them).  Options are the env's config options (`rlhost info NAME`)."""

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from . import envs as E


def parallel_env(name: str, seed: int = 0, render_mode=None, **options) -> "RlhostParallelEnv":
    return RlhostParallelEnv(name, seed, render_mode, **options)


def env(name: str, seed: int = 0, render_mode=None, **options) -> "RlhostAECEnv":
    return RlhostAECEnv(name, seed, render_mode, **options)


def _fixed_moves(vec):
    """A move each row's mask allows (the first), or 0: what a row plays
    when its agent has no say."""
    n = vec.num_envs
    if vec._v.width:
        return np.argmax(vec.action_masks(), axis=1).astype(np.int32)
    return np.zeros((n,) + vec.single_action_space.shape, vec.single_action_space.dtype)


class RlhostParallelEnv(ParallelEnv):
    metadata = {"name": "rlhost", "render_modes": ["ansi"], "is_parallelizable": True}

    def __init__(self, name, seed=0, render_mode=None, **options):
        self._vec = E.VectorEnv(name, 1, seed, autoreset_mode=E.SAME_STEP, render_mode=render_mode, **options)
        if self._vec._v.to_move() is not None:
            raise ValueError(f"env {name!r} is turn-based: open it with rlhost.pettingzoo.env (an AECEnv)")
        self.metadata = dict(type(self).metadata, name=f"rlhost_{name}")
        self.possible_agents = [f"agent_{k}" for k in range(self._vec.num_envs)]
        self.agents = []
        self.render_mode = render_mode
        self._seed = seed

    def observation_space(self, agent):
        return self._vec.single_observation_space

    def action_space(self, agent):
        return self._vec.single_action_space

    def reset(self, seed=None, options=None):
        obs, _ = self._vec.reset(seed=self._seed if seed is None and not self.agents else seed)
        self.agents = list(self.possible_agents)
        return {a: obs[k] for k, a in enumerate(self.agents)}, {a: {} for a in self.agents}

    def step(self, actions):
        acts = _fixed_moves(self._vec)
        for k, a in enumerate(self.possible_agents):
            if a in self.agents and a in actions:
                acts[k] = actions[a]
        obs, rew, term, trunc, infos = self._vec.step(acts)
        final = infos.get("final_obs")
        o, r, te, tr, inf = {}, {}, {}, {}, {}
        for k, a in enumerate(self.possible_agents):
            if a not in self.agents:
                continue
            done = bool(term[k] or trunc[k])
            o[a] = final[k] if done else obs[k]
            r[a], te[a], tr[a], inf[a] = float(rew[k]), bool(term[k]), bool(trunc[k]) and not term[k], {}
        self.agents = [a for a in self.agents if not (te[a] or tr[a])]
        return o, r, te, tr, inf

    def render(self):
        return self._vec.render()

    def close(self):
        self._vec.close()


class RlhostAECEnv(AECEnv):
    metadata = {"name": "rlhost", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, name, seed=0, render_mode=None, **options):
        super().__init__()
        self._vec = E.VectorEnv(name, 1, seed, autoreset_mode=E.SAME_STEP, render_mode=render_mode, **options)
        if self._vec._v.to_move() is None:
            raise ValueError(f"env {name!r} is not turn-based: open it with rlhost.pettingzoo.parallel_env")
        self.metadata = dict(type(self).metadata, name=f"rlhost_{name}")
        self.possible_agents = [f"player_{k}" for k in range(self._vec.num_envs)]
        act = self._vec.single_action_space
        self._obs_space = spaces.Dict(
            {"observation": self._vec.single_observation_space, "action_mask": spaces.Box(0, 1, (int(act.n),), np.int8)}
        )
        self.render_mode = render_mode
        self._seed = seed

    def observation_space(self, agent):
        return self._obs_space

    def action_space(self, agent):
        return self._vec.single_action_space

    def _take(self, obs, masks):
        self._obs, self._masks = obs, masks.astype(np.int8)

    def _mover(self):
        return self.possible_agents[int(np.flatnonzero(self._vec._v.to_move())[0])]

    def reset(self, seed=None, options=None):
        obs, _ = self._vec.reset(seed=self._seed if seed is None else seed)
        self._seed = None  # later resets continue the stream
        self._take(obs, self._vec.action_masks())
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._mover()

    def observe(self, agent):
        k = self.possible_agents.index(agent)
        return {"observation": self._obs[k].copy(), "action_mask": self._masks[k].copy()}

    def step(self, action):
        a = self.agent_selection
        if self.terminations[a] or self.truncations[a]:
            self._was_dead_step(action)
            return
        acts = _fixed_moves(self._vec)
        acts[self.possible_agents.index(a)] = action
        obs, rew, term, trunc, infos = self._vec.step(acts)
        self._cumulative_rewards[a] = 0.0
        for k, b in enumerate(self.possible_agents):
            self.rewards[b] = float(rew[k])
        if (term | trunc).any():  # the game is over for every seat
            final = infos["final_obs"]
            self._take(np.stack([final[k] for k in range(len(final))]), self._vec._v.masks(final=True))
            for k, b in enumerate(self.possible_agents):
                self.terminations[b], self.truncations[b] = bool(term[k]), bool(trunc[k]) and not term[k]
            self.agent_selection = self.possible_agents[(self.possible_agents.index(a) + 1) % len(self.agents)]
        else:
            self._take(obs, self._vec.action_masks())
            self.agent_selection = self._mover()
        self._accumulate_rewards()

    def render(self):
        return self._vec.render()

    def close(self):
        self._vec.close()
