"""rlhost envs as a Stable-Baselines3 VecEnv (import this module only where
stable_baselines3 is installed).  SB3's VecEnv autoresets in the same step
and reports the ended episode's last observation as
infos[i]["terminal_observation"]: rlhost's own semantics.  An env with a
composite observation gives Dicts (SB3's MultiInputPolicy reads them); a
masking env answers env_method("action_masks"), so sb3-contrib's
MaskablePPO trains on it unchanged."""

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from .envs import VectorEnv


class SB3VecEnv(VecEnv):
    def __init__(self, name, num_envs=1, seed=0, **options):
        self.venv = VectorEnv(name, num_envs, seed, copy=True, autoreset_mode="SameStep", **options)
        super().__init__(num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self._seed = seed
        self._actions = None
        self._first = True

    def reset(self):
        obs, _ = self.venv.reset(seed=self._seed if self._first else None)
        self._first = False
        return obs

    def step_async(self, actions):
        self._actions = actions

    def step_wait(self):
        obs, rew, term, trunc, infos = self.venv.step(self._actions)
        done = term | trunc
        out = [{} for _ in range(self.num_envs)]
        rows = np.flatnonzero(done)
        if len(rows):
            ret, length = self.venv._v.episode_stats(rows)  # what SB3's Monitor would report
            for k, i in enumerate(rows):
                out[i]["terminal_observation"] = infos["final_obs"][i]
                out[i]["TimeLimit.truncated"] = bool(trunc[i] and not term[i])
                out[i]["episode"] = {"r": float(ret[k]), "l": int(length[k]), "t": 0.0}
                if "score" in infos["final_info"]:
                    out[i]["episode"]["score"] = float(infos["final_info"]["score"][i])
        return obs, rew.astype(np.float32), done, out

    def seed(self, seed=None):
        self._seed, self._first = seed, True
        return [seed] * self.num_envs

    def close(self):
        self.venv.close()

    def get_attr(self, attr_name, indices=None):
        return [getattr(self.venv, attr_name)] * len(self._idx(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name, *args, indices=None, **kwargs):
        """action_masks (sb3-contrib's MaskablePPO asks every env for its
        mask) is answered for all envs at once; rlhost envs have no other."""
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in self._idx(indices)]
        raise AttributeError(f"rlhost envs have no per-env method {method_name!r}")

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._idx(indices))

    def _idx(self, indices):
        if indices is None:
            return range(self.num_envs)
        return [indices] if isinstance(indices, int) else indices


def make_sb3_vec(name, num_envs=1, seed=0, **options):
    return SB3VecEnv(name, num_envs, seed, **options)
