"""Your env, rlhost's learners: a Gymnasium env factory, a
gymnasium.vector.VectorEnv or a Stable-Baselines3 VecEnv registered with
librlhost as an env (rlh_env_register of <rlhost/host.h>), whose reset and
step the host calls over its own buffers.  rlhost.run(config, env=...)
uses it; make_vec(name) and load() open it like any env once registered."""

import ctypes as C
import math
import re
import threading

import numpy as np
from gymnasium import spaces

from . import _native as N
from . import _pettingzoo_in as PZ
from . import _spaces as S

RL_DTYPE_F32, RL_DTYPE_U8 = 1, 2  # rl_dtype
RL_EIO = -3
_lock = threading.Lock()
_bridges = {}  # name -> _Bridge: registrations live as long as the host


class EnvIO(C.Structure):  # rl_env_io of <rlhost/plugin.h>
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("obs", C.c_void_p),
        ("actions", C.POINTER(C.c_int32)),
        ("rewards", C.POINTER(C.c_float)),
        ("terminated", C.POINTER(C.c_uint8)),
        ("truncated", C.POINTER(C.c_uint8)),
        ("final_obs", C.c_void_p),
        ("scores", C.POINTER(C.c_float)),
        ("box_actions", C.POINTER(C.c_float)),
        ("action_mask", C.POINTER(C.c_uint8)),  # ABI 1.6: a masking env's rows
        ("final_mask", C.POINTER(C.c_uint8)),
        ("to_move", C.POINTER(C.c_uint8)),  # ABI 1.7: a turn-based env's movers
    ]


# err is a void pointer: a c_char_p argument would reach Python as a copy
CREATE = C.CFUNCTYPE(
    C.c_int, C.c_void_p, C.c_uint32, C.c_uint64, C.POINTER(N.EnvInfo), C.POINTER(C.c_void_p), C.c_void_p, C.c_size_t
)
DESTROY = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p)
RANGE = C.CFUNCTYPE(
    C.c_int, C.c_void_p, C.c_void_p, C.c_void_p, C.c_uint32, C.c_uint32, C.c_void_p, C.c_size_t
)  # io by address: EnvIO objects are kept per address (see _Bridge.io)


class EnvDef(C.Structure):  # rlh_env_def
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("name", C.c_char_p),
        ("description", C.c_char_p),
        ("ctx", C.c_void_p),
        ("create", CREATE),
        ("destroy", DESTROY),
        ("reset", RANGE),
        ("step", RANGE),
    ]


class _Fail(Exception):
    """A sentence for the host (the caller's exception is kept beside it)."""


def _say(err, errlen, text):
    if not err or not errlen:
        return
    b = text.encode(errors="replace")[: errlen - 1]
    C.memmove(err, b + b"\0", len(b) + 1)


def _kind(source):
    if hasattr(source, "step_async") and hasattr(source, "step_wait"):
        return "sb3"
    if hasattr(source, "single_observation_space") and hasattr(source, "num_envs"):
        return "vector"
    if callable(source):
        return "factory"
    raise TypeError(
        f"env= takes a Gymnasium env factory (a callable), a gymnasium.vector.VectorEnv or a "
        f"Stable-Baselines3 VecEnv, not {type(source).__name__}"
    )


_OBS_MAX_BYTES = 64 << 20  # RL_OBS_MAX_BYTES of <rlhost/plugin.h>


class _Spaces:
    """How one observation and action space map onto rlhost's buffers:
    a Box or Discrete observation as one tensor, a Dict, Tuple,
    MultiDiscrete or MultiBinary one as parts of a row of bytes
    (_spaces.Layout); Discrete, MultiDiscrete or 1-D float Box actions; and
    where the action masks come from, in this order: the Dict observation's
    "action_mask" key, info["action_mask"] (masks_from="info"), the env's
    action_masks() method (masks_from="method")."""

    def __init__(self, obs_space, act_space, masks_from=None):
        self.obs_space, self.act_space = obs_space, act_space
        self.layout = None
        try:
            if S.is_composite(obs_space):
                self.layout = S.Layout(obs_space)
        except S.SpaceError as e:
            raise _Fail(f"observation space: {e}") from None
        if self.layout is not None:
            self.obs_shape, self.obs_dtype, self.onehot = (self.layout.row_bytes,), np.uint8, None
        elif isinstance(obs_space, spaces.Discrete):
            try:
                S.check_choices(obs_space.n, "")
            except S.SpaceError as e:
                raise _Fail(f"observation space {obs_space}{e}") from None
            self.obs_shape, self.obs_dtype, self.onehot = (int(obs_space.n),), np.float32, int(obs_space.start)
        elif isinstance(obs_space, spaces.Box) and obs_space.dtype == np.uint8:
            self.obs_shape, self.obs_dtype, self.onehot = obs_space.shape, np.uint8, None
        elif isinstance(obs_space, spaces.Box) and np.issubdtype(obs_space.dtype, np.floating):
            self.obs_shape, self.obs_dtype, self.onehot = obs_space.shape, np.float32, None
        else:
            raise _Fail(
                f"observation space {obs_space}: rlhost trains on Box observations (float or uint8), "
                "Discrete ones (as one-hot floats), and Dict, Tuple, MultiDiscrete and MultiBinary ones "
                "(as parts of one row)"
            )
        if not 1 <= len(self.obs_shape) <= 4:
            raise _Fail(f"observation space {obs_space}: 1 to 4 dimensions")
        row = int(np.prod(self.obs_shape, dtype=np.float64)) * np.dtype(self.obs_dtype).itemsize
        if not 1 <= row <= _OBS_MAX_BYTES:
            raise _Fail(
                f"observation space of shape {tuple(self.obs_shape)}: one observation would need "
                f"{row} bytes; the host takes 1 to {_OBS_MAX_BYTES} (RL_OBS_MAX_BYTES)"
            )
        self.multi = self.hybrid = None
        if isinstance(act_space, (spaces.Discrete, spaces.MultiDiscrete)):
            try:
                S.check_choices(act_space.n if isinstance(act_space, spaces.Discrete) else act_space.nvec, "")
            except S.SpaceError as e:
                raise _Fail(f"action space {act_space}{e}") from None
        if isinstance(act_space, spaces.Discrete):
            if int(act_space.start) != 0:
                raise _Fail(f"action space {act_space}: a Discrete action space must start at 0")
            self.box = False
        elif isinstance(act_space, spaces.MultiDiscrete) and act_space.nvec.ndim == 1:
            self.box = False
            self.multi = np.ascontiguousarray(act_space.nvec, np.uint32)
            self.act_start = np.asarray(act_space.start, np.int64)
        elif (
            isinstance(act_space, spaces.Box)
            and len(act_space.shape) == 1
            and np.issubdtype(act_space.dtype, np.floating)
        ):
            self.box = True
            self.low = np.ascontiguousarray(act_space.low, np.float32)
            self.high = np.ascontiguousarray(act_space.high, np.float32)
        elif isinstance(act_space, (spaces.Dict, spaces.Tuple)):
            try:
                self.hybrid = S.HybridAction(act_space)
            except S.SpaceError as e:
                raise _Fail(str(e)) from None
            self.box = False
        else:
            raise _Fail(
                f"action space {act_space}: rlhost's learners take Discrete actions, a 1-D MultiDiscrete, "
                "a 1-D float Box, or a Dict or Tuple of them (a hybrid action)"
            )
        self.width = S.mask_width(act_space)
        self.masks_from = masks_from
        if self.layout is not None and self.layout.mask_space is not None:
            ms = self.layout.mask_space
            if self.box:
                raise _Fail(
                    f"the env gives action masks (its observation's 'action_mask' key), and its action space "
                    f"{act_space} is a Box: masks are for Discrete and MultiDiscrete actions"
                )
            if int(np.prod(ms.shape)) != self.width:
                raise _Fail(
                    f"observation key 'action_mask' is {ms}; the action space {act_space} needs a mask of "
                    f"{self.width} entries (one per choice of every component)"
                )
            self.masks_from = "key"
        if self.masks_from and self.box:
            raise _Fail(
                f"the env gives action masks, and its action space {act_space} is a Box: masks are for "
                "Discrete and MultiDiscrete actions"
            )
        self.obs_low = self.obs_high = None
        if self.layout is None and self.onehot is None and self.obs_dtype == np.float32:
            lo = np.asarray(obs_space.low, np.float32).reshape(-1)
            hi = np.asarray(obs_space.high, np.float32).reshape(-1)
            if np.isfinite(lo).all() and np.isfinite(hi).all():
                self.obs_low, self.obs_high = np.ascontiguousarray(lo), np.ascontiguousarray(hi)

    def mask(self, obs, info, env, where):
        """The mask of obs (its key), of info, or env.action_masks(), as bytes."""
        if self.masks_from == "key":
            m = obs.get(S.MASK_KEY) if isinstance(obs, dict) else None
            src = "the observation's 'action_mask'"
        elif self.masks_from == "info":
            m = info.get(S.MASK_KEY) if isinstance(info, dict) else None
            src = "info['action_mask']"
        else:
            m = env.action_masks()
            src = "action_masks()"
        if m is None:
            raise _Fail(f"{where}: the env gave no mask ({src} is None), though its first reset gave one")
        try:
            return S.mask_row(m, self.width, f"{where}: {src}")
        except S.SpaceError as e:
            raise _Fail(str(e)) from None

    def final_mask(self, obs, info, env, where):
        """The mask of a last observation.  A game that is over may allow no
        move at all (a full board); no action is chosen on it, so it reads
        as every action allowed, as the PettingZoo bridge and rlhost's own
        board games write it."""
        m = self.mask(obs, info, env, where)
        comps = self.multi if self.multi is not None else self.hybrid.nvec if self.hybrid else [self.width]
        at = 0
        for c in comps:
            if not m[at : at + int(c)].any():
                return np.ones_like(m)
            at += int(c)
        return m

    def env_action(self, a):
        """A row of the host's actions as the env takes it (a hybrid
        action's row: the pair of its components and its floats)."""
        if self.hybrid is not None:
            return self.hybrid.value(*a)
        if self.multi is not None:
            return np.asarray(a, np.int64) + self.act_start
        return a

    def fill(self, info):
        info.obs_dtype = RL_DTYPE_U8 if self.obs_dtype == np.uint8 else RL_DTYPE_F32
        info.obs_ndim = len(self.obs_shape)
        for k, d in enumerate(self.obs_shape):
            info.obs_shape[k] = int(d)
        info.obs_size = int(np.prod(self.obs_shape))
        info.obs_scale = 1.0 / 255.0 if self.obs_dtype == np.uint8 else 1.0
        f = C.POINTER(C.c_float)
        if self.box:
            info.action_kind, info.action_dim = 1, int(self.low.size)
            info.action_low, info.action_high = self.low.ctypes.data_as(f), self.high.ctypes.data_as(f)
        elif self.multi is not None:
            info.action_kind, info.action_dim = S.RL_SPACE_MULTI_DISCRETE, int(self.multi.size)
            info.action_nvec = self.multi.ctypes.data_as(C.POINTER(C.c_uint32))
        elif self.hybrid is not None:
            h = self.hybrid
            info.action_kind, info.action_dim = S.RL_SPACE_HYBRID, int(h.nvec.size)
            info.action_nvec = h.nvec.ctypes.data_as(C.POINTER(C.c_uint32))
            info.action_box_dim = int(h.low.size)
            info.action_low, info.action_high = h.low.ctypes.data_as(f), h.high.ctypes.data_as(f)
        else:
            info.n_actions = int(self.act_space.n)
        if self.masks_from:
            info.action_mask = 1
        if self.layout is not None:
            self.layout.fill(info)
        if self.obs_low is not None:
            info.obs_low, info.obs_high = self.obs_low.ctypes.data_as(f), self.obs_high.ctypes.data_as(f)

    def put(self, row, obs):
        """One observation into a row of the host's buffer."""
        if self.layout is not None:
            try:
                self.layout.put(row, obs)
            except S.SpaceError as e:
                raise _Fail(str(e)) from None
        elif self.onehot is not None:
            n = row.size
            try:
                k = int(obs) - self.onehot
                whole = k + self.onehot == obs
            except (TypeError, ValueError):
                whole = False
            if not whole or not 0 <= k < n:
                raise _Fail(f"the env returned the observation {obs!r}, outside its space {self.obs_space}")
            row[:] = 0
            row[k] = 1
        else:
            row[...] = self.array(obs)

    def array(self, obs):
        """One (Box) observation as an array of the space's dtype, its shape checked."""
        if isinstance(obs, (str, bytes)) or np.asarray(obs).dtype.kind not in "biuf":
            raise _Fail(f"the env returned the observation {str(obs)[:60]!r}; its space {self.obs_space} holds numbers")
        a = np.asarray(obs, self.obs_dtype)
        if a.shape != tuple(self.obs_shape):
            raise _Fail(
                f"the env returned an observation of shape {a.shape}; its observation space says "
                f"{tuple(self.obs_shape)}"
            )
        return a


class _Buffers:
    """NumPy views of an rl_env_io, cached by the buffers' addresses (the
    host alternates two observation buffers)."""

    def __init__(self, sp, n):
        self.sp, self.n, self.cache = sp, n, {}

    def views(self, io):
        key = (io.obs, io.final_obs, C.cast(io.action_mask, C.c_void_p).value)
        v = self.cache.get(key)
        if v is None:
            n, sp = self.n, self.sp
            ct = C.c_uint8 if sp.obs_dtype == np.uint8 else C.c_float
            shape = (n,) + tuple(sp.obs_shape)
            obs = np.ctypeslib.as_array(C.cast(io.obs, C.POINTER(ct)), shape=shape)
            final = np.ctypeslib.as_array(C.cast(io.final_obs, C.POINTER(ct)), shape=shape)
            rew = np.ctypeslib.as_array(io.rewards, shape=(n,))
            term = np.ctypeslib.as_array(io.terminated, shape=(n,))
            trunc = np.ctypeslib.as_array(io.truncated, shape=(n,))
            if sp.hybrid is not None:  # the components' rows and the floats' rows
                ints = np.ctypeslib.as_array(io.actions, shape=(n, sp.hybrid.nvec.size))
                acts = (ints, np.ctypeslib.as_array(io.box_actions, shape=(n, sp.hybrid.low.size)))
            elif sp.box:
                acts = np.ctypeslib.as_array(io.box_actions, shape=(n, sp.low.size))
            elif sp.multi is not None:
                acts = np.ctypeslib.as_array(io.actions, shape=(n, sp.multi.size))
            else:
                acts = np.ctypeslib.as_array(io.actions, shape=(n,))
            masks = finals = None
            if sp.masks_from:
                masks = np.ctypeslib.as_array(io.action_mask, shape=(n, sp.width))
                finals = np.ctypeslib.as_array(io.final_mask, shape=(n, sp.width))
            v = (obs, final, rew, term, trunc, acts, masks, finals)
            if len(self.cache) > 8:
                self.cache.clear()
            self.cache[key] = v
        return v

    def put_rows(self, dst, first, rows):
        """Observations (a list) into dst[first:first + len(rows)] at once."""
        if self.sp.onehot is not None or self.sp.layout is not None:
            for k, o in enumerate(rows):
                self.sp.put(dst[first + k], o)
        else:
            want = (len(rows),) + tuple(self.sp.obs_shape)
            try:
                a = None if rows and isinstance(rows[0], (str, bytes)) else np.asarray(rows, self.sp.obs_dtype)
            except (TypeError, ValueError):  # ragged (rows of different shapes), or not numbers
                a = None
            if a is None or a.shape != want:
                for o in rows:  # the first row that does not fit says its shape
                    self.sp.array(o)
            dst[first : first + len(rows)] = a


def _check_finite(rew, obs, first, end):
    """A NaN or infinite reward or observation would poison training
    silently: refused with the env's row.  The sums are the fast path (a
    finite sum has finite terms); a non-finite one looks row by row."""
    r = rew[first:end]
    if math.isfinite(float(r.sum())) and (obs.dtype != np.float32 or math.isfinite(float(obs[first:end].sum()))):
        return
    if not np.isfinite(r).all():
        i = first + int(np.flatnonzero(~np.isfinite(r))[0])
        raise _Fail(f"env {i} returned the reward {r[i - first]}: rewards must be finite")
    if obs.dtype == np.float32:
        o = obs[first:end].reshape(end - first, -1)
        bad = ~np.isfinite(o).all(axis=1)
        if bad.any():
            i = first + int(np.flatnonzero(bad)[0])
            raise _Fail(
                f"env {i} returned an observation holding {o[i - first][~np.isfinite(o[i - first])][0]}: "
                "observations must be finite"
            )


def _seed_of(seed, i):
    """Env i's seed from (seed, i), as rlhost seeds its own envs' streams."""
    return int(np.random.SeedSequence([seed & ((1 << 64) - 1), i]).generate_state(1, np.uint32)[0])


def _has_method(env, name):
    """Whether a Gymnasium env (or what it wraps) has the method name."""
    return callable(getattr(env, name, None)) or callable(getattr(getattr(env, "unwrapped", None), name, None))


def _masks_of(env):
    m = getattr(env, "action_masks", None)
    return m() if callable(m) else env.unwrapped.action_masks()


class _FactoryInst:
    def __init__(self, factory, n, seed, first=None):
        self.envs = ([first] if first is not None else []) + [factory() for _ in range(n - (first is not None))]
        for e in self.envs[:1]:
            if not all(hasattr(e, a) for a in ("reset", "step", "observation_space", "action_space")):
                raise _Fail(
                    f"the env= factory returned {type(e).__name__}, not a Gymnasium env "
                    "(reset, step, observation_space, action_space)"
                )
        self.seeds = [_seed_of(seed, i) for i in range(n)]
        e0 = self.envs[0]
        self.sp = _Spaces(e0.observation_space, e0.action_space, self._masks_from(e0))
        for k, e in enumerate(self.envs[1:], 1):
            if e.observation_space != self.sp.obs_space or e.action_space != self.sp.act_space:
                raise _Fail(f"the factory's env {k} has other spaces than env 0")
        for e, s in zip(self.envs, self.seeds):
            e.action_space.seed(s)
        self.buf = _Buffers(self.sp, n)

    def _masks_from(self, e0):
        """Where masks come from when the Dict has no 'action_mask' key: an
        info['action_mask'] of env 0's first reset (taken again, with the same
        seed, when the host resets it), else an action_masks() method."""
        if isinstance(e0.observation_space, spaces.Dict) and S.MASK_KEY in e0.observation_space.spaces:
            return None  # the key; _Spaces sees it
        if not isinstance(e0.action_space, (spaces.Discrete, spaces.MultiDiscrete)):
            return None
        _, info = e0.reset(seed=self.seeds[0])
        if isinstance(info, dict) and info.get(S.MASK_KEY) is not None:
            return "info"
        return "method" if _has_method(e0, "action_masks") else None

    def _mask(self, e, o, info, dst, i, where, final=False):
        if self.sp.masks_from:
            dst[i] = (self.sp.final_mask if final else self.sp.mask)(o, info, _Env(e), where)

    def reset(self, io, first, count):
        obs, _, _, _, _, _, masks, _ = self.buf.views(io)
        for i in range(first, first + count):
            o, info = self.envs[i].reset(seed=self.seeds[i])
            self.seeds[i] = None  # seeded once; later episodes continue the env's stream
            self.sp.put(obs[i], o)
            self._mask(self.envs[i], o, info, masks, i, f"env {i}'s reset")

    def step(self, io, first, count):
        obs, final, rew, term, trunc, acts, masks, finals = self.buf.views(io)
        end = first + count
        if self.sp.hybrid is not None:
            a = list(zip(acts[0][first:end].copy(), acts[1][first:end].copy()))
        else:
            a = acts[first:end].copy() if self.sp.box or self.sp.multi is not None else acts[first:end].tolist()
        out, rs, tes, trs = [], [], [], []
        for k, (e, ak) in enumerate(zip(self.envs[first:end], a)):
            i = first + k
            o, r, te, tr, info = e.step(self.sp.env_action(ak))
            if te or tr:
                self.sp.put(final[i], o)
                self._mask(e, o, info, finals, i, f"env {i}'s last step", final=True)
                o, info = e.reset()
            self._mask(e, o, info, masks, i, f"env {i}'s step")
            out.append(o)
            rs.append(r)
            tes.append(te)
            trs.append(tr)
        rew[first:end] = rs
        term[first:end] = tes
        trunc[first:end] = trs
        self.buf.put_rows(obs, first, out)
        _check_finite(rew, obs, first, end)

    def close(self):
        for e in self.envs:
            e.close()


class _Env:
    """env.action_masks() for _Spaces.mask, through wrappers."""

    def __init__(self, e):
        self.e = e

    def action_masks(self):
        return _masks_of(self.e)


class _VectorInst:
    """A gymnasium VectorEnv (either autoreset mode) or an SB3 VecEnv, stepped
    whole: the host steps it without worker threads and with action_repeat 1.
    Masks come from the Dict's 'action_mask' key or the envs' action_masks()
    (SB3's env_method, Gymnasium's call); a vector env autoresets inside its
    step, so with action_masks() an ended episode's final mask is all ones
    (what a DQN target over its final observation then maximizes over)."""

    def __init__(self, vec, kind, n, seed):
        if vec.num_envs != n:
            raise _Fail(f"the vector env has {vec.num_envs} envs, the config asks for {n}")
        self.vec, self.kind, self.n, self.seed = vec, kind, n, seed
        obs_sp = vec.observation_space if kind == "sb3" else vec.single_observation_space
        act_sp = vec.action_space if kind == "sb3" else vec.single_action_space
        self.sp = _Spaces(obs_sp, act_sp, self._masks_from(vec, kind, act_sp))
        self.buf = _Buffers(self.sp, n)
        self.next_step = False
        if kind == "vector":
            mode = getattr(vec, "metadata", {}).get("autoreset_mode")
            self.next_step = getattr(mode, "value", mode) in ("NextStep", None)

    @staticmethod
    def _masks_from(vec, kind, act_sp):
        if not isinstance(act_sp, (spaces.Discrete, spaces.MultiDiscrete)):
            return None
        if kind == "sb3":
            try:
                return "method" if any(vec.has_attr("action_masks")) or vec.has_attr("action_masks") is True else None
            except (AttributeError, TypeError):
                return None
        envs = getattr(vec, "envs", None)
        return "method" if envs and _has_method(envs[0], "action_masks") else None

    def _masks(self, o, masks):
        """Every env's mask: from the batched observation's key, or the envs."""
        if not self.sp.masks_from:
            return
        if self.sp.masks_from == "key":
            ms = o[S.MASK_KEY]
        elif self.kind == "sb3":
            ms = self.vec.env_method("action_masks")
        else:
            ms = self.vec.call("action_masks")
        for i in range(self.n):
            masks[i] = (
                self.sp.mask({S.MASK_KEY: ms[i]}, None, None, f"env {i}")
                if self.sp.masks_from == "key"
                else S.mask_row(ms[i], self.sp.width, f"env {i}'s action_masks()")
            )

    def _final_mask(self, o, finals, i):
        if not self.sp.masks_from:
            return
        finals[i] = self.sp.final_mask(o, None, None, f"env {i}'s last step") if self.sp.masks_from == "key" else 1

    def _whole(self, first, count):
        if first != 0 or count != self.n:
            raise _Fail("a vector env steps all its envs at once: env.optimizations.action_repeat must be 1")

    def _put_all(self, obs, o):
        for i in range(self.n):
            self.sp.put(obs[i], _row(o, i))

    def reset(self, io, first, count):
        self._whole(first, count)
        obs, _, _, _, _, _, masks, _ = self.buf.views(io)
        if self.kind == "sb3":
            if self.seed is not None:
                self.vec.seed(self.seed)
            o = self.vec.reset()
        else:
            o, _ = self.vec.reset(seed=self.seed)
        self.seed = None
        self._put_all(obs, o)
        self._masks(o, masks)

    def step(self, io, first, count):
        self._whole(first, count)
        obs, final, rew, term, trunc, acts, masks, finals = self.buf.views(io)
        h = self.sp.hybrid
        if h is not None:  # SB3's VecEnv takes one action a row, Gymnasium's a batch of each part
            rows = [h.value(acts[0][i], acts[1][i]) for i in range(acts[0].shape[0])]
            a = rows if self.kind == "sb3" else h.batch(rows)
        else:
            a = acts.copy()
        if self.sp.multi is not None:
            a = a.astype(np.int64) + self.sp.act_start
        if self.kind == "sb3":
            o, r, done, infos = self.vec.step(a)
            for i in np.flatnonzero(done):
                cut = bool(infos[i].get("TimeLimit.truncated", False))
                term[i], trunc[i] = not cut, cut
                self.sp.put(final[i], infos[i]["terminal_observation"])
                self._final_mask(infos[i]["terminal_observation"], finals, i)
            term[~done.astype(bool)] = 0
            trunc[~done.astype(bool)] = 0
        else:
            o, r, te, tr, infos = self.vec.step(a)
            term[:], trunc[:] = te, tr
            ended = np.asarray(te) | np.asarray(tr)
            if ended.any():
                if self.next_step:  # the last observations now, the next episodes' first from a masked reset
                    for i in np.flatnonzero(ended):
                        self.sp.put(final[i], _row(o, i))
                        self._final_mask(_row(o, i), finals, i)
                    fresh, _ = self.vec.reset(options={"reset_mask": ended})
                    o = _merge(o, fresh, ended)
                else:
                    for i in np.flatnonzero(ended):
                        self.sp.put(final[i], _row(infos["final_obs"], i))
                        self._final_mask(_row(infos["final_obs"], i), finals, i)
        rew[:] = r
        self._put_all(obs, o)
        self._masks(o, masks)
        _check_finite(rew, obs, 0, self.n)

    def close(self):
        pass  # the caller's object: the caller closes it


def _row(o, i):
    """Env i's observation of a batch: a dict of arrays, a tuple of arrays,
    or an array (a Gymnasium vector env's final_obs is an array of them)."""
    if isinstance(o, dict):
        return {k: v[i] for k, v in o.items()}
    if isinstance(o, tuple):
        return tuple(v[i] for v in o)
    return o[i]


def _merge(o, fresh, ended):
    """The batch o with the rows where ended replaced by fresh's."""
    if isinstance(o, dict):
        return {k: _merge(v, fresh[k], ended) for k, v in o.items()}
    if isinstance(o, tuple):
        return tuple(_merge(v, f, ended) for v, f in zip(o, fresh))
    o = np.array(o, copy=True)
    o[ended] = np.asarray(fresh)[ended]
    return o


class _NoInst:
    """Spaces only: a vector env has one instance, which training holds."""

    def __init__(self, sp):
        self.sp = sp

    def reset(self, io, first, count):
        raise _Fail(
            "this vector env is training; evaluation needs an env of its own: pass eval_env= "
            "(a factory or another vector env)"
        )

    step = reset

    def close(self):
        pass


class _Bridge:
    def __init__(self, name, source, eval_source=None):
        self.name, self.source, self.eval_source = name, source, eval_source
        self.kind = _kind(source)
        self.eval_kind = _kind(eval_source) if eval_source is not None else None
        self.insts, self.next_id, self.ios = {}, 1, {}
        self.source_in_use = False
        self.error = None  # the caller's exception behind the last failure
        self.sp = None
        self.cfuncs = (CREATE(self._create), DESTROY(self._destroy), RANGE(self._reset), RANGE(self._step))

    def _make(self, n, seed):
        """An instance of n envs: the factory's; else the vector env itself
        (once at a time, at its size), then the eval source; else one that
        only states the spaces (a policy's probe)."""
        if self.kind == "factory":
            first = self.source()
            if PZ.is_pettingzoo(first):
                return PZ.PettingZooInst(self.source, n, seed, first, _Spaces, _Buffers, _Fail, _seed_of)
            return _FactoryInst(self.source, n, seed, first)
        if not self.source_in_use and n == self.source.num_envs:
            self.source_in_use = True
            inst = _VectorInst(self.source, self.kind, n, seed)
            inst.owns_source = True
            return inst
        if self.eval_kind == "factory":
            return _FactoryInst(self.eval_source, n, seed)
        if self.eval_kind is not None and n == self.eval_source.num_envs:
            return _VectorInst(self.eval_source, self.eval_kind, n, seed)
        v = self.source
        act = v.action_space if self.kind == "sb3" else v.single_action_space
        return _NoInst(
            self.sp
            or _Spaces(
                v.observation_space if self.kind == "sb3" else v.single_observation_space,
                act,
                _VectorInst._masks_from(v, self.kind, act),
            )
        )

    def _guard(self, err, errlen, fn, *args):
        try:
            fn(*args)
            return 0
        except _Fail as e:
            _say(err, errlen, str(e))
        except BaseException as e:  # noqa: BLE001  (nothing may cross back into C)
            self.error = e
            _say(err, errlen, f"the env raised {type(e).__name__}: {e}")
        return RL_EIO

    def _create(self, ctx, n, seed, info, out, err, errlen):
        def go():
            inst = self._make(int(n), int(seed))
            self.sp = self.sp or inst.sp
            (inst.fill if hasattr(inst, "fill") else inst.sp.fill)(info.contents)
            k = self.next_id
            self.next_id += 1
            self.insts[k] = inst
            out[0] = k

        return self._guard(err, errlen, go)

    def _destroy(self, ctx, inst):
        i = self.insts.pop(inst, None)
        if i is not None:
            if getattr(i, "owns_source", False):
                self.source_in_use = False
            try:
                i.close()
            except Exception:  # noqa: BLE001
                pass

    def io(self, addr):
        """The rl_env_io at addr (the host's, fixed for a vec's life)."""
        v = self.ios.get(addr)
        if v is None:
            if len(self.ios) > 64:
                self.ios.clear()
            v = self.ios[addr] = EnvIO.from_address(addr)
        return v

    def _reset(self, ctx, inst, io, first, count, err, errlen):
        return self._guard(err, errlen, self.insts[inst].reset, self.io(io), first, count)

    def _step(self, ctx, inst, io, first, count, err, errlen):
        try:
            self.insts[inst].step(self.ios.get(io) or self.io(io), first, count)
            return 0
        except BaseException:  # noqa: BLE001  (the slow path says what happened)
            return self._guard(err, errlen, self._raise)

    def _raise(self):
        raise  # re-raises the exception being handled in _step


def _name_for(source):
    spec = getattr(source, "spec", None)
    if spec is None:  # a Gymnasium SyncVectorEnv or an SB3 DummyVecEnv: its first env's
        envs = getattr(source, "envs", None)
        spec = getattr(envs[0], "spec", None) if isinstance(envs, (list, tuple)) and envs else None
    base = getattr(spec, "id", None) or getattr(source, "__name__", None) or type(source).__name__
    base = re.sub(r"[^a-z0-9_]+", "_", str(base).lower()).strip("_")
    return "py_" + (base if base and base != "lambda" else "env")


_by_source = {}  # id(source) -> name, so run() reuses a registration


def register(source, name=None, eval_env=None, description=None):
    """Registers source (a Gymnasium env factory, a gymnasium VectorEnv or an
    SB3 VecEnv) as an rlhost env and returns its name, which configs use as
    env.plugin; eval_env (a factory or another vector env) serves
    evaluation when source is a vector env."""
    with _lock:
        if name is None:
            base = _name_for(source)
            name, k = base, 2
            while name in _bridges:
                name, k = f"{base}_{k}", k + 1
        if name in _bridges:
            raise N.RlhostError(f"an env named {name!r} is registered already in this process: pick another name")
        b = _Bridge(name, source, eval_env)
        d = EnvDef(C.sizeof(EnvDef), name.encode(), (description or f"Python env {name}").encode(), None, *b.cfuncs)
        err = N.err_buf()
        if N.lib.rlh_env_register(N.host(), C.cast(C.pointer(d), C.c_void_p), err, N.ERR_LEN) != N.RL_OK:
            N.fail(err)
        b.definition = d
        _bridges[name] = b
        _by_source[id(source)] = name
        return name


def registered(source, eval_env=None):
    """The name source was registered under (registering it now if need be)."""
    name = _by_source.get(id(source))
    b = _bridges.get(name)
    if b is not None and b.source is source:
        if eval_env is not None:
            b.eval_source, b.eval_kind = eval_env, _kind(eval_env)
        return name
    return register(source, eval_env=eval_env)


def bridge(name):
    return _bridges.get(name)
