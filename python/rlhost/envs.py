"""rlhost envs behind Gymnasium's API: a VectorEnv over one C vectorized env
(zero-copy observations, same-step autoreset) and a single-env Env."""
import ctypes as C
import json
import math

import gymnasium as gym
import numpy as np
from gymnasium import spaces
try:
    from gymnasium.vector import AutoresetMode
    SAME_STEP = AutoresetMode.SAME_STEP
except ImportError:  # gymnasium 1.0 names the mode by its value only
    SAME_STEP = "SameStep"
from gymnasium.vector.utils import batch_space

from . import _native as N

_MASK64 = (1 << 64) - 1


def _cfg_value(v):
    """A Python value as a libconfig value."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        if not math.isfinite(v):
            raise ValueError(f"option value {v} is not a finite number")
        r = repr(float(v))
        return r if any(c in r for c in ".eE") else r + ".0"
    if isinstance(v, str):
        return json.dumps(v)  # "..." with \\ and \" escapes, as libconfig reads them
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_cfg_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + " ".join(f"{k} = {_cfg_value(x)};" for k, x in v.items()) + " }"
    raise TypeError(f"option value {v!r} has type {type(v).__name__}: use bool, int, float, str, list or dict")


def options_text(options):
    """Keyword options as the settings of a config's env group."""
    return " ".join(f"{k} = {_cfg_value(v)};" for k, v in options.items())


def _obs_space(info):
    shape = tuple(int(x) for x in info.obs_shape[: info.obs_ndim])
    if N.RL_DTYPE.get(info.obs_dtype) == "uint8":
        return spaces.Box(0, 255, shape, np.uint8)
    if info.obs_low and info.obs_high:  # the env declares its bounds (ABI 1.2)
        n = int(info.obs_size)
        low = np.ctypeslib.as_array(info.obs_low, shape=(n,)).reshape(shape).copy()
        high = np.ctypeslib.as_array(info.obs_high, shape=(n,)).reshape(shape).copy()
        return spaces.Box(low, high, shape, np.float32)
    return spaces.Box(-np.inf, np.inf, shape, np.float32)


def _action_space(info):
    """Discrete(n), or a float32 Box of action_dim with the env's bounds."""
    if info.action_kind == 1:
        d = int(info.action_dim)
        low = np.ctypeslib.as_array(info.action_low, shape=(d,)).copy()
        high = np.ctypeslib.as_array(info.action_high, shape=(d,)).copy()
        return spaces.Box(low, high, (d,), np.float32)
    return spaces.Discrete(int(info.n_actions))


def _view(ptr, ctype, shape):
    return np.ctypeslib.as_array(C.cast(ptr, C.POINTER(ctype)), shape=shape)


class _Vec:
    """One rlh_vec and NumPy views of its buffers (valid while it is open)."""

    def __init__(self, handle):
        self.handle = handle
        info = N.lib.rlh_vec_info(handle).contents
        self.n = int(N.lib.rlh_vec_num_envs(handle))
        self.obs_space = _obs_space(info)
        self.action_space = _action_space(info)
        self.box = isinstance(self.action_space, spaces.Box)
        self.n_actions = int(info.n_actions)
        self.obs_scale = float(info.obs_scale)
        self.score_name = info.score_name.decode() if info.score_name else None
        self.threads = int(N.lib.rlh_vec_threads(handle))
        b = N.lib.rlh_vec_buffers(handle).contents
        shape = (self.n,) + self.obs_space.shape
        ct = C.c_uint8 if self.obs_space.dtype == np.uint8 else C.c_float
        self.obs = _view(b.obs, ct, shape)
        self.final_obs = _view(b.final_obs, ct, shape)
        if self.box:
            self.actions = _view(b.actions, C.c_float, (self.n,) + self.action_space.shape)
        else:
            self.actions = _view(b.actions, C.c_int32, (self.n,))
        self.rewards = _view(b.rewards, C.c_float, (self.n,))
        self.terminated = _view(b.terminated, C.c_uint8, (self.n,))
        self.truncated = _view(b.truncated, C.c_uint8, (self.n,))
        self.scores = _view(b.scores, C.c_float, (self.n,))
        self.episode_start = _view(b.episode_start, C.c_uint8, (self.n,))
        self.episode_return = _view(b.episode_return, C.c_double, (self.n,))
        self.episode_length = _view(b.episode_length, C.c_uint32, (self.n,))
        self.err = N.err_buf()

    @classmethod
    def open(cls, name, num_envs, seed, options):
        err = N.err_buf()
        text = options_text(options).encode()
        h = N.lib.rlh_vec_open(N.host(), name.encode(), int(num_envs), int(seed) & _MASK64, text, err, N.ERR_LEN)
        if not h:
            N.fail(err)
        return cls(h)

    def reset(self, seed=None):
        if seed is None:
            N.lib.rlh_vec_reset(self.handle)
        elif N.lib.rlh_vec_reseed(self.handle, int(seed) & _MASK64, self.err, N.ERR_LEN) != N.RL_OK:
            N.fail(self.err)

    def step(self, actions):
        a = np.asarray(actions)
        want = self.actions.shape
        if a.shape != want and not (self.n == 1 and a.size == self.actions.size):
            raise ValueError(f"actions have shape {a.shape}, the env takes {want}")
        if self.box:
            if not np.issubdtype(a.dtype, np.number):
                raise TypeError(f"box actions must be numbers, got dtype {a.dtype}")
            self.actions[:] = a.reshape(want).astype(np.float32)  # the C side refuses NaN and the outside
        else:
            self.actions[:] = a.reshape(want)
        if N.lib.rlh_vec_step(self.handle, self.err, N.ERR_LEN) != N.RL_OK:
            N.fail(self.err)

    def close(self):
        if self.handle:
            N.lib.rlh_vec_close(self.handle)
            self.handle = None


def _episode_infos(v, done):
    """Gymnasium's same-step infos for the rows that ended: final_obs and
    final_info (object arrays with masks, as SyncVectorEnv builds them) and
    episode statistics in RecordEpisodeStatistics' keys."""
    infos = {}
    if not done.any():
        return infos
    final = np.full(v.n, None, dtype=object)
    for i in np.flatnonzero(done):
        final[i] = v.final_obs[i].copy()
    infos["final_obs"], infos["_final_obs"] = final, done.copy()
    infos["final_info"], infos["_final_info"] = {}, done.copy()
    ep = {"r": np.where(done, v.episode_return, 0.0), "l": np.where(done, v.episode_length, 0).astype(np.int32)}
    if v.score_name:
        ep["score"] = np.where(done, v.scores, 0.0).astype(np.float32)
    infos["episode"], infos["_episode"] = ep, done.copy()
    return infos


class VectorEnv(gym.vector.VectorEnv):
    """num_envs copies of an rlhost env stepped in C on rlhost's worker pool.

    Observations are a NumPy view of the host's buffer: the same array every
    step, overwritten by the next step (pass copy=True for a fresh array per
    step).  Autoreset is same-step (metadata["autoreset_mode"]): an env whose
    episode ends is reset inside step, so the returned observation is the
    new episode's first and infos["final_obs"][i] is the last of the ended
    one; infos["episode"] has its return "r" and length "l" (and the env's
    score, e.g. snake's food, as "score")."""

    metadata = {"autoreset_mode": SAME_STEP, "render_modes": []}

    def __init__(self, name, num_envs=1, seed=0, copy=False, **options):
        self._v = None
        self._attach(_Vec.open(name, num_envs, seed, options), name, copy)

    def _attach(self, v, name, copy):
        self._v, self.name, self.num_envs, self.copy = v, name, v.n, copy
        self.single_observation_space = v.obs_space
        self.single_action_space = v.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.obs_scale, self.score_name, self.threads = v.obs_scale, v.score_name, v.threads
        self.spec = None

    @classmethod
    def _of(cls, v, name, copy=False):
        """A VectorEnv over an rlh_vec opened elsewhere (a policy's env)."""
        env = cls.__new__(cls)
        env._attach(v, name, copy)
        return env

    def _out(self, a):
        return a.copy() if self.copy else a

    def reset(self, *, seed=None, options=None):
        if isinstance(seed, (list, tuple, np.ndarray)):
            raise TypeError("rlhost seeds env i from (seed, i): pass one int, not one seed per env")
        super().reset(seed=seed)
        self._v.reset(seed)
        return self._out(self._v.obs), {}

    def step(self, actions):
        v = self._v
        v.step(actions)
        term, trunc = v.terminated.astype(bool), v.truncated.astype(bool)
        return self._out(v.obs), v.rewards.copy(), term, trunc, _episode_infos(v, term | trunc)

    def close_extras(self, **kwargs):
        if self._v:
            self._v.close()

    def __repr__(self):
        return f"rlhost.VectorEnv({self.name!r}, num_envs={self.num_envs})"


class Env(gym.Env):
    """One rlhost env as a gymnasium.Env (passes gymnasium's check_env).
    Observations are copies.  reset(seed=s) reseeds the env from s."""

    metadata = {"render_modes": []}

    def __init__(self, name, seed=0, **options):
        self._v = None
        self._v = _Vec.open(name, 1, seed, options)
        self.name = name
        self.observation_space = self._v.obs_space
        self.action_space = self._v.action_space
        self.obs_scale, self.score_name = self._v.obs_scale, self._v.score_name
        self._mid_episode = False
        self._started = False

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self._v.reset(seed)
        elif self._mid_episode or not self._started:
            self._v.reset(None)
        # else: the last step ended an episode and the env already began the next
        self._started, self._mid_episode = True, False
        return self._v.obs[0].copy(), {}

    def step(self, action):
        v = self._v
        v.step(np.asarray(action).reshape(v.actions.shape))
        term, trunc = bool(v.terminated[0]), bool(v.truncated[0])
        info = {}
        if term or trunc:
            obs = v.final_obs[0].copy()
            info["episode"] = {"r": float(v.episode_return[0]), "l": int(v.episode_length[0])}
            if v.score_name:
                info["episode"]["score"] = float(v.scores[0])
            self._mid_episode = False
        else:
            obs = v.obs[0].copy()
            self._mid_episode = True
        return obs, float(v.rewards[0]), term, trunc, info

    def close(self):
        if self._v:
            self._v.close()


def make_vec(name, num_envs=1, seed=0, copy=False, **options):
    """A gymnasium.vector.VectorEnv of num_envs rlhost `name` envs; options
    are the env's config options (`rlhost info NAME`), e.g.
    make_vec("snake", 64, width=10, height=10, observation="grid") or
    optimizations={"threads": 2}."""
    return VectorEnv(name, num_envs, seed, copy, **options)


def make(name, seed=0, **options):
    """A single rlhost env as a gymnasium.Env."""
    return Env(name, seed, **options)


def list_plugins(kind="env"):
    k = {"env": 1, "algo": 2}[kind]
    out, i = [], 0
    while True:
        s = N.lib.rlh_plugin_name(N.host(), k, i)
        if not s:
            return out
        out.append(s.decode())
        i += 1
