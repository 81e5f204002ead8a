"""rlhost envs behind Gymnasium's API: a VectorEnv that behaves as
gymnasium.vector.SyncVectorEnv (copies, autoreset modes, info layout), and
a single gymnasium.Env.  Both step in C on rlhost's worker pool."""

import ctypes as C
import json
import threading
import weakref

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec
from gymnasium.vector.utils import batch_space

from . import _native as N
from . import _spaces as S
from ._checks import check_int, check_seed
from ._overrides import cfg_value

# rl_dtype (plugin.h) of an env's info values as NumPy's: a U8 value is a flag
_INFO_DTYPES = {1: np.float32, 2: np.bool_, 3: np.int32, 4: np.uint64, 5: np.float64}

try:
    from gymnasium.vector import AutoresetMode
except ImportError:  # Gymnasium 1.0: next-step autoreset only, and no name for it
    import enum

    class AutoresetMode(enum.Enum):
        NEXT_STEP = "NextStep"
        SAME_STEP = "SameStep"
        DISABLED = "Disabled"


_MAX_ROWS = 1 << 24  # the host's limit on rows of a vec
NEXT_STEP, SAME_STEP = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP


def options_text(options):
    """Keyword options as the settings of a config's env group."""
    return " ".join(f"{k} = {cfg_value(v)};" for k, v in options.items())


def _obs_space(info):
    parts = S.parts_of(info)
    if parts:  # a composite observation: a Dict of its parts
        return S.space_of_parts(parts)
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
    """Discrete(n), MultiDiscrete(nvec), a float32 Box of action_dim with
    the env's bounds, or a hybrid action's Tuple of both parts."""
    if info.action_kind == S.RL_SPACE_HYBRID:
        k, m = int(info.action_dim), int(info.action_box_dim)
        nvec = np.ctypeslib.as_array(info.action_nvec, shape=(k,))
        low = np.ctypeslib.as_array(info.action_low, shape=(m,))
        high = np.ctypeslib.as_array(info.action_high, shape=(m,))
        return S.hybrid_space(nvec, low, high)
    if info.action_kind == S.RL_SPACE_MULTI_DISCRETE:
        d = int(info.action_dim)
        return spaces.MultiDiscrete(np.ctypeslib.as_array(info.action_nvec, shape=(d,)).astype(np.int64))
    if info.action_kind == 1:
        d = int(info.action_dim)
        low = np.ctypeslib.as_array(info.action_low, shape=(d,)).copy()
        high = np.ctypeslib.as_array(info.action_high, shape=(d,)).copy()
        return spaces.Box(low, high, (d,), np.float32)
    return spaces.Discrete(int(info.n_actions))


def check_actions(actions, space, out):
    """actions (array-like) into out (int32 [n] or float32 [n, dim]) after
    checking dtype, shape, integrality, range and finiteness: nothing is
    wrapped or truncated by a cast.  A hybrid action (a Tuple space) is its
    two parts, the discrete one's components and the box's floats, into
    out's int32 [n, components + floats] host rows."""
    if isinstance(space, spaces.Tuple):
        disc, box = space.spaces
        if not isinstance(actions, (tuple, list)) or len(actions) != 2:
            raise ValueError(f"a hybrid action is a pair (discrete part, box part), got {type(actions).__name__}")
        k = out.shape[1] - box.shape[0]
        check_actions(actions[0], disc, out[:, 0] if isinstance(disc, spaces.Discrete) else out[:, :k])
        check_actions(actions[1], box, out[:, k:].view(np.float32))
        return
    a = np.asarray(actions)
    if a.shape != out.shape:
        if a.size != out.size or out.shape[0] != 1:
            raise ValueError(f"actions have shape {a.shape}, the env takes {out.shape}")
        a = a.reshape(out.shape)
    if isinstance(space, spaces.Box):
        if a.dtype.kind not in "iuf":
            raise TypeError(f"box actions must be numbers, got dtype {a.dtype}")
        f = a.astype(np.float32)
        bad = ~np.isfinite(f) | (f < space.low) | (f > space.high)
        if bad.any():
            i, k = (int(x) for x in np.argwhere(bad)[0])
            raise ValueError(
                f"action of row {i}, dimension {k} is {a[i, k]!r}, outside the box [{space.low[k]}, {space.high[k]}]"
            )
        out[...] = f
        return
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a) | (a != np.round(a))
        if bad.any():
            i = int(np.flatnonzero(bad.reshape(-1))[0])
            raise ValueError(f"action of row {i} is {a.reshape(-1)[i]!r}: discrete actions are integers")
    elif a.dtype.kind not in "iu":
        raise TypeError(f"discrete actions must be integers, got dtype {a.dtype}")
    if isinstance(space, spaces.MultiDiscrete):
        bad = (a < 0) | (a >= space.nvec)
        if bad.any():
            i, k = (int(x) for x in np.argwhere(bad)[0])
            raise ValueError(f"action of row {i}, component {k} is {a[i, k]!r}, outside [0, {space.nvec[k]})")
        out[...] = a
        return
    bad = (a < 0) | (a >= space.n)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        raise ValueError(f"action of row {i} is {a.reshape(-1)[i]!r}, outside [0, {space.n})")
    out[...] = a


def _close_handle(close, handle, _keep):
    """weakref.finalize's callback: frees the C side (the arrays in _keep,
    which it writes into, live until then)."""
    close(handle)


class _Vec:
    """One rlh_vec writing into NumPy arrays this object owns: an array
    handed out stays valid after close().  Calls are serialized by a lock;
    any call after close() raises."""

    def __init__(self, handle, name, next_step=False):
        self.handle, self.name = handle, name
        self.lock = threading.RLock()
        try:
            self._setup(next_step)
        except BaseException:
            N.lib.rlh_vec_close(handle)
            self.handle = None
            raise
        self._finalizer = weakref.finalize(self, _close_handle, N.lib.rlh_vec_close, handle, self._arrays)

    def _setup(self, next_step):
        h = self.handle
        info = N.lib.rlh_vec_info(h).contents
        self.n = n = int(N.lib.rlh_vec_num_envs(h))
        self.agents = max(int(info.agents), 1)
        self.obs_space, self.action_space = _obs_space(info), _action_space(info)
        self.box = isinstance(self.action_space, spaces.Box)
        self.hybrid = isinstance(self.action_space, spaces.Tuple)
        parts = S.parts_of(info)
        # a composite observation: rows of bytes here, Dicts of their parts outside
        self.layout = S.layout_of_parts(parts, int(info.obs_size)) if parts else None
        self.row_space = spaces.Box(0, 255, (int(info.obs_size),), np.uint8) if parts else self.obs_space
        self.width = S.mask_width(self.action_space) if info.action_mask else 0
        self.obs_scale = float(info.obs_scale)
        self.score_name = info.score_name.decode() if info.score_name else None
        self.max_episode_steps = int(info.max_episode_steps) or None
        self.threads = int(N.lib.rlh_vec_threads(h))
        shape = (n,) + self.row_space.shape
        self.obs = np.zeros(shape, self.row_space.dtype)
        self.final_obs = np.zeros(shape, self.row_space.dtype)
        if self.hybrid:  # host rows: the components' int32s, then the box's float32s
            self.actions = np.zeros((n, int(info.action_dim) + int(info.action_box_dim)), np.int32)
        else:
            self.actions = np.zeros((n,) + self.action_space.shape, np.float32 if self.box else np.int32)
        self.rewards = np.zeros(n, np.float32)
        self.terminated = np.zeros(n, np.uint8)
        self.truncated = np.zeros(n, np.uint8)
        self.scores = np.zeros(n, np.float32)
        self._arrays = (
            self.obs,
            self.final_obs,
            self.actions,
            self.rewards,
            self.terminated,
            self.truncated,
            self.scores,
        )
        P = C.c_void_p
        b = N.Buffers(
            C.sizeof(N.Buffers),
            P(self.obs.ctypes.data),
            P(self.actions.ctypes.data),
            self.rewards.ctypes.data_as(C.POINTER(C.c_float)),
            self.terminated.ctypes.data_as(C.POINTER(C.c_uint8)),
            self.truncated.ctypes.data_as(C.POINTER(C.c_uint8)),
            P(self.final_obs.ctypes.data),
            self.scores.ctypes.data_as(C.POINTER(C.c_float)),
        )
        self.err = N.err_buf()
        if N.lib.rlh_vec_set_buffers(h, C.byref(b), self.err, N.ERR_LEN) != N.RL_OK:
            N.fail(self.err)
        if next_step and N.lib.rlh_vec_set_autoreset(h, 1, self.err, N.ERR_LEN) != N.RL_OK:
            N.fail(self.err)
        # the values the env reports beside its rewards (rl.env.info/1): names and types
        k = int(N.lib.rlh_vec_info_names(h, None, None, 0))
        names, kinds = (C.c_char_p * max(k, 1))(), (C.c_int * max(k, 1))()
        N.lib.rlh_vec_info_names(h, names, kinds, k)
        self.info_names = [names[i].decode() for i in range(k)]
        self.info_dtypes = [_INFO_DTYPES.get(kinds[i], np.float64) for i in range(k)]
        own = N.lib.rlh_vec_buffers(h).contents  # host-owned: read only while open
        self._ep_return = np.ctypeslib.as_array(own.episode_return, shape=(n,))
        self._ep_length = np.ctypeslib.as_array(own.episode_length, shape=(n,))
        if self.width:
            self._mask = np.ctypeslib.as_array(own.action_mask, shape=(n, self.width))
            self._final_mask = np.ctypeslib.as_array(own.final_mask, shape=(n, self.width))
        self._to_move = np.ctypeslib.as_array(own.to_move, shape=(n,)) if own.to_move else None

    def to_move(self):
        """A turn-based env's rows that move next (bool [n]), or None."""
        with self.lock:
            self.check_open()
            return None if self._to_move is None else self._to_move.astype(bool)

    def masks(self, final=False):
        """Copies of the rows' action masks (bool [n][width]): of the current
        observations, or (final) of the last ones where an episode ended."""
        with self.lock:
            self.check_open()
            return (self._final_mask if final else self._mask).astype(bool)

    def view(self, rows, batched=True):
        """Observations as the env's space has them: the rows themselves, or
        a composite observation's Dict (of batched arrays, or of one row)."""
        if self.layout is None:
            return rows
        return self.layout.get_batch(rows) if batched else self.layout.get(rows)

    @classmethod
    def open(cls, name, num_envs, seed, options, next_step=False):
        if not isinstance(name, str):
            raise TypeError(f"the env name must be a str, got {type(name).__name__}")
        num_envs = check_int(num_envs, "num_envs", 1, _MAX_ROWS)
        seed = check_seed(seed)
        err = N.err_buf()
        text = options_text(options).encode()
        h = N.lib.rlh_vec_open(N.host(), name.encode(), num_envs, seed, text, err, N.ERR_LEN)
        if not h:
            N.fail(err)
        return cls(h, name, next_step)

    def check_open(self):
        if self.handle is None:
            raise N.RlhostError(f"env {self.name!r} is closed")

    def reset(self, seed=None):
        with self.lock:
            self.check_open()
            if seed is None:
                N.lib.rlh_vec_reset(self.handle)
            elif N.lib.rlh_vec_reseed(self.handle, check_seed(seed), self.err, N.ERR_LEN) != N.RL_OK:
                N.fail(self.err)

    def step(self, actions):
        with self.lock:
            self.check_open()
            check_actions(actions, self.action_space, self.actions)
            if N.lib.rlh_vec_step(self.handle, self.err, N.ERR_LEN) != N.RL_OK:
                N.fail(self.err)

    def info_values(self, now):
        """{name: array over rows} of the env's values beside its rewards,
        as the last step ended (now False) or as they are now; {} for an env
        without them."""
        if not self.info_names:
            return {}
        with self.lock:
            self.check_open()
            boards = self.n // self.agents
            buf = np.zeros((boards, len(self.info_names)), np.float64)
            if (
                N.lib.rlh_vec_info_read(
                    self.handle, int(bool(now)), buf.ctypes.data_as(C.POINTER(C.c_double)), self.err, N.ERR_LEN
                )
                != N.RL_OK
            ):
                N.fail(self.err)
        buf = np.repeat(buf, self.agents, axis=0)
        return {name: buf[:, k].astype(dt) for k, (name, dt) in enumerate(zip(self.info_names, self.info_dtypes))}

    def episode_stats(self, rows):
        """Return and length of the episodes that ended in rows at the last step."""
        with self.lock:
            self.check_open()
            return self._ep_return[rows].copy(), self._ep_length[rows].astype(np.int64)

    def render(self, row, mode):
        """Row's current frame: a str ("ansi") or an RGB array ("rgb_array")."""
        with self.lock:
            self.check_open()
            if mode == "ansi":
                buf = C.create_string_buffer(1 << 16)
                rc = N.lib.rlh_vec_render_text(self.handle, row, buf, len(buf), self.err, N.ERR_LEN)
                if rc < 0:
                    N.fail(self.err)
                return buf.value.decode(errors="replace")
            hw = (C.c_uint32 * 2)()
            if N.lib.rlh_vec_render_rgb(self.handle, row, None, 0, hw, self.err, N.ERR_LEN) != N.RL_OK:
                N.fail(self.err)
            img = np.zeros((hw[0], hw[1], 3), np.uint8)
            if (
                N.lib.rlh_vec_render_rgb(
                    self.handle, row, C.c_void_p(img.ctypes.data), img.nbytes, hw, self.err, N.ERR_LEN
                )
                != N.RL_OK
            ):
                N.fail(self.err)
            return img

    def close(self):
        with self.lock:
            if self.handle is not None:
                self.handle = None
                self._finalizer()


def _spec(name, options, max_episode_steps):
    """A gymnasium EnvSpec that gymnasium.make / make_vec can rebuild the env from."""
    return EnvSpec(
        id=f"rlhost/{name}-v0",
        entry_point="rlhost.envs:Env",
        vector_entry_point="rlhost.envs:VectorEnv",
        max_episode_steps=max_episode_steps,
        kwargs=dict(name=name, **options),
        disable_env_checker=True,
    )


def _autoreset_mode(mode):
    try:
        mode = AutoresetMode(mode)
    except ValueError:
        raise ValueError(
            f"autoreset_mode {mode!r}: rlhost envs take {NEXT_STEP.value!r} (Gymnasium's "
            f"default) or {SAME_STEP.value!r}"
        ) from None
    if mode not in (NEXT_STEP, SAME_STEP):
        raise ValueError(
            f"autoreset_mode {mode.value!r}: rlhost envs always reset themselves; use "
            f"{NEXT_STEP.value!r} or {SAME_STEP.value!r}"
        )
    return mode


def _render_mode(mode):
    if mode not in (None, "ansi", "rgb_array"):
        raise ValueError(f"render_mode {mode!r}: rlhost envs render 'ansi' (text) or 'rgb_array'")
    return mode


class VectorEnv(gym.vector.VectorEnv):
    """num_envs copies of an rlhost env stepped in C, with exactly the
    behaviour of gymnasium.vector.SyncVectorEnv over them:

    - copy=True (the default) returns a new observation array from every
      reset and step.  copy=False returns the same array each time,
      overwritten in place by the next step: fastest, but code that keeps
      `obs = next_obs` (a replay buffer's transition) then stores one array
      twice.  Arrays stay valid after close().
    - autoreset_mode "NextStep" (the default, as Gymnasium's): the step an
      episode ends returns its last observation; that env's next step
      ignores its action and returns the new episode's first observation
      with reward 0.  "SameStep": the ending step returns the new episode's
      first observation and the last one in infos["final_obs"] (with
      infos["final_info"]).
    - infos follow SyncVectorEnv key for key: empty, except the env's
      episode score (e.g. snake's food) as "score" with its "_score" mask
      where an episode ended.  Episode returns and lengths come from
      gymnasium.wrappers.vector.RecordEpisodeStatistics, as for any env.
    - single_action_space and action_space are seeded from `seed`.
    """

    metadata = {"autoreset_mode": NEXT_STEP, "render_modes": ["ansi", "rgb_array"], "render_fps": 30}

    def __init__(self, name, num_envs=1, seed=0, copy=True, autoreset_mode=NEXT_STEP, render_mode=None, **options):
        mode = _autoreset_mode(autoreset_mode)
        self.render_mode = _render_mode(render_mode)
        self._attach(_Vec.open(name, num_envs, seed, options, mode == NEXT_STEP), name, copy, mode, seed, options)

    def _attach(self, v, name, copy, mode, seed, options):
        self._v, self.name, self.num_envs, self.copy = v, name, v.n, bool(copy)
        self.metadata = dict(type(self).metadata, autoreset_mode=mode)
        self.autoreset_mode = mode
        self.single_observation_space = v.obs_space
        self.single_action_space = v.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        for s in (self.single_action_space, self.action_space, self.single_observation_space, self.observation_space):
            s.seed(seed)
        self.obs_scale, self.score_name, self.threads = v.obs_scale, v.score_name, v.threads
        self.max_episode_steps = v.max_episode_steps
        self.spec = _spec(name, options, v.max_episode_steps)
        self._prev_done = np.zeros(self.num_envs, bool)

    @classmethod
    def _of(cls, v, name, copy=True, seed=0):
        """A VectorEnv over a _Vec opened elsewhere (a policy's env)."""
        env = cls.__new__(cls)
        env.render_mode = None
        env._attach(v, name, copy, SAME_STEP, seed, {})
        return env

    @property
    def closed(self):
        return self._v.handle is None

    @closed.setter
    def closed(self, value):  # gymnasium.vector.VectorEnv.close sets it
        pass

    def _out(self, a):
        """The rows as the observation space has them (a composite one's
        Dict is always new arrays)."""
        if self._v.layout is not None:
            return self._v.view(a)
        return a.copy() if self.copy else a

    def _masks_into(self, infos):
        if self._v.width:
            infos[S.MASK_KEY], infos["_" + S.MASK_KEY] = self._v.masks(), np.ones(self.num_envs, bool)

    def action_masks(self):
        """Every env's action mask of its current observation (bool [num_envs][n]
        for Discrete(n), [num_envs][sum nvec] for MultiDiscrete), as
        sb3-contrib's MaskablePPO asks for them; all True for an env that does
        not mask."""
        if not self._v.width:
            return np.ones((self.num_envs, S.mask_width(self.single_action_space)), bool)
        return self._v.masks()

    def reset(self, *, seed=None, options=None):
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise TypeError(f"rlhost seeds env i from (seed, i): pass one int seed, not {type(seed).__name__}")
        if options:
            raise ValueError(f"rlhost envs take no reset options, got {sorted(options)}")
        self._v.reset(seed)
        if seed is not None:
            super().reset(seed=int(seed))
        self._prev_done = np.zeros(self.num_envs, bool)
        infos = {}
        for k, x in self._v.info_values(True).items():
            infos[k], infos[f"_{k}"] = x, np.ones(self.num_envs, bool)
        self._masks_into(infos)
        return self._out(self._v.obs), infos

    def step(self, actions):
        with self._v.lock:  # the results too: another thread's step would overwrite them
            return self._step(actions)

    def _step(self, actions):
        v = self._v
        v.step(actions)
        term, trunc = v.terminated.astype(bool), v.truncated.astype(bool)
        infos = {}
        done = term | trunc
        # the env's own values (an Atari game's lives, raw reward, real game
        # over) for every row: as the step ended, except rows that began a
        # new episode this call (the next-step reset of an earlier end; with
        # same-step, the rows that ended, whose values as they ended go to
        # final_info): those as they are now
        ended_vals = v.info_values(False)
        fresh = self._prev_done if self.autoreset_mode == NEXT_STEP else done
        vals = (
            {k: np.where(fresh, now, x) for (k, x), now in zip(ended_vals.items(), v.info_values(True).values())}
            if ended_vals and fresh.any()
            else ended_vals
        )
        for k, x in vals.items():
            infos[k], infos[f"_{k}"] = x, np.ones(self.num_envs, bool)
        if done.any():
            rows = np.flatnonzero(done)
            ended = {}
            if v.score_name:
                ended = {"score": np.where(done, v.scores, 0).astype(np.float64), "_score": done.copy()}
            if self.autoreset_mode == SAME_STEP:
                for k, x in ended_vals.items():
                    ended[k], ended[f"_{k}"] = x, done.copy()
                final = np.full(self.num_envs, None, dtype=object)
                for i in rows:
                    final[i] = v.view(v.final_obs[i], False) if v.layout is not None else v.final_obs[i].copy()
                infos.update(
                    {"final_obs": final, "_final_obs": done.copy(), "final_info": ended, "_final_info": done.copy()}
                )
            else:
                infos.update(ended)
        self._prev_done = done
        self._masks_into(infos)
        return self._out(v.obs), v.rewards.astype(np.float64), term, trunc, infos

    def render(self):
        """One frame per env, in render_mode ("ansi": str, "rgb_array": array)."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode='ansi' or 'rgb_array'")
            return None
        return tuple(self._v.render(i, self.render_mode) for i in range(self.num_envs))

    def close_extras(self, **kwargs):
        self._v.close()

    def __repr__(self):
        return f"rlhost.VectorEnv({self.name!r}, num_envs={self.num_envs})"


class Env(gym.Env):
    """One rlhost env as a gymnasium.Env (passes gymnasium's check_env).
    Observations are copies.  reset(seed=s) reseeds the env from s.  At the
    end of an episode of an env with a score, info["score"] holds it."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 30}

    def __init__(self, name, seed=0, render_mode=None, **options):
        self.render_mode = _render_mode(render_mode)
        self._v = _Vec.open(name, 1, seed, options)
        self.name = name
        self.observation_space = self._v.obs_space
        self.action_space = self._v.action_space
        self.action_space.seed(seed)
        self.observation_space.seed(seed)
        self.obs_scale, self.score_name = self._v.obs_scale, self._v.score_name
        self.max_episode_steps = self._v.max_episode_steps
        self.spec = _spec(name, options, self._v.max_episode_steps)
        self._mid_episode = False
        self._started = False
        self._ended = False

    def reset(self, *, seed=None, options=None):
        if options:
            raise ValueError(f"rlhost envs take no reset options, got {sorted(options)}")
        super().reset(seed=seed)
        if seed is not None:
            self._v.reset(seed)
        elif self._mid_episode or not self._started:
            self._v.reset(None)
        # else: the last step ended an episode and the env already began the next
        self._started, self._mid_episode, self._ended = True, False, False
        self._v.check_open()
        info = {k: x[0].item() for k, x in self._v.info_values(True).items()}
        if self._v.width:
            info[S.MASK_KEY] = self._v.masks()[0]
        return self._row(self._v.obs[0]), info

    def _row(self, row):
        return self._v.view(row, False) if self._v.layout is not None else row.copy()

    def action_masks(self):
        """The action mask of the current observation (bool [n] for
        Discrete(n), [sum nvec] for MultiDiscrete): sb3-contrib's MaskablePPO
        calls it.  All True for an env that does not mask."""
        if not self._v.width:
            return np.ones(S.mask_width(self.action_space), bool)
        return self._v.masks(final=not self._mid_episode and self._ended)[0]

    def step(self, action):
        with self._v.lock:
            return self._step(action)

    def _step(self, action):
        v = self._v
        v.step(action)
        term, trunc = bool(v.terminated[0]), bool(v.truncated[0])
        info = {k: x[0].item() for k, x in v.info_values(False).items()}  # as the step ended
        self._ended = term or trunc
        if term or trunc:
            obs = self._row(v.final_obs[0])
            if v.score_name:
                info["score"] = float(v.scores[0])
            self._mid_episode = False
        else:
            obs = self._row(v.obs[0])
            self._mid_episode = True
        if v.width:
            info[S.MASK_KEY] = v.masks(final=self._ended)[0]
        return obs, float(v.rewards[0]), term, trunc, info

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: make the env with render_mode='ansi' or 'rgb_array'")
            return None
        return self._v.render(0, self.render_mode)

    def close(self):
        self._v.close()

    def __repr__(self):
        return f"rlhost.Env({self.name!r})"


def make_vec(
    name: str,
    num_envs: int = 1,
    seed: int = 0,
    copy: bool = True,
    autoreset_mode=NEXT_STEP,
    render_mode: "str | None" = None,
    **options,
) -> VectorEnv:
    """A gymnasium.vector.VectorEnv of num_envs rlhost `name` envs, behaving
    as gymnasium.vector.SyncVectorEnv (see VectorEnv); options are the env's
    config options (`rlhost info NAME`), e.g. make_vec("snake", 64,
    width=10, height=10, observation="grid") or optimizations={"threads": 2}."""
    return VectorEnv(name, num_envs, seed, copy, autoreset_mode, render_mode, **options)


def make(name: str, seed: int = 0, render_mode: "str | None" = None, **options) -> Env:
    """A single rlhost env as a gymnasium.Env."""
    return Env(name, seed, render_mode, **options)


def list_plugins(kind: str = "env") -> list:
    """The names of the env (kind="env") or algorithm ("algo") plugins found."""
    k = {"env": 1, "algo": 2}[kind]
    out, i = [], 0
    while True:
        s = N.lib.rlh_plugin_name(N.host(), k, i)
        if not s:
            return out
        out.append(s.decode())
        i += 1


def info(name: str, kind: str = None) -> dict:
    """A plugin's description as data (`rlhost info NAME` as a dict): name,
    kind, version, description, file, and its options and stages, each a
    dict with name, type, default (config syntax), min/max where bounded,
    choices of an enum, auto, required, changes_results, training and help.  kind
    ("env" or "algo") picks one when an env and an algorithm share a name."""
    kinds = [kind] if kind else ["env", "algo"]
    err = N.err_buf()
    first = None
    for k in kinds:
        code = {"env": 1, "algo": 2}[k]
        buf = C.create_string_buffer(1 << 16)
        n = N.lib.rlh_plugin_info(N.host(), code, name.encode(), buf, len(buf), err, N.ERR_LEN)
        if n >= len(buf):
            buf = C.create_string_buffer(n + 1)
            n = N.lib.rlh_plugin_info(N.host(), code, name.encode(), buf, len(buf), err, N.ERR_LEN)
        if n >= 0:
            return json.loads(buf.value.decode())
        first = first or err.value.decode(errors="replace")
    raise N.RlhostError(first)
