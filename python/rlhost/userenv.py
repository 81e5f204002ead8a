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
    ]


# err is a void pointer: a c_char_p argument would reach Python as a copy
CREATE = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_uint32, C.c_uint64, C.POINTER(N.EnvInfo), C.POINTER(C.c_void_p),
                     C.c_void_p, C.c_size_t)
DESTROY = C.CFUNCTYPE(None, C.c_void_p, C.c_void_p)
RANGE = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p, C.c_void_p, C.c_uint32, C.c_uint32, C.c_void_p,
                    C.c_size_t)  # io by address: EnvIO objects are kept per address (see _Bridge.io)


class EnvDef(C.Structure):  # rlh_env_def
    _fields_ = [("struct_size", C.c_uint32), ("name", C.c_char_p), ("description", C.c_char_p),
                ("ctx", C.c_void_p), ("create", CREATE), ("destroy", DESTROY), ("reset", RANGE), ("step", RANGE)]


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
    raise TypeError(f"env= takes a Gymnasium env factory (a callable), a gymnasium.vector.VectorEnv or a "
                    f"Stable-Baselines3 VecEnv, not {type(source).__name__}")


_OBS_MAX_BYTES = 64 << 20  # RL_OBS_MAX_BYTES of <rlhost/plugin.h>


class _Spaces:
    """How one observation and action space map onto rlhost's buffers."""

    def __init__(self, obs_space, act_space):
        self.obs_space, self.act_space = obs_space, act_space
        if isinstance(obs_space, spaces.Discrete):
            self.obs_shape, self.obs_dtype, self.onehot = (int(obs_space.n),), np.float32, int(obs_space.start)
        elif isinstance(obs_space, spaces.Box) and obs_space.dtype == np.uint8:
            self.obs_shape, self.obs_dtype, self.onehot = obs_space.shape, np.uint8, None
        elif isinstance(obs_space, spaces.Box) and np.issubdtype(obs_space.dtype, np.floating):
            self.obs_shape, self.obs_dtype, self.onehot = obs_space.shape, np.float32, None
        else:
            raise _Fail(f"observation space {obs_space}: rlhost trains on Box observations (float or uint8) "
                        "and Discrete ones (as one-hot floats)")
        if not 1 <= len(self.obs_shape) <= 4:
            raise _Fail(f"observation space {obs_space}: 1 to 4 dimensions")
        row = int(np.prod(self.obs_shape, dtype=np.float64)) * np.dtype(self.obs_dtype).itemsize
        if not 1 <= row <= _OBS_MAX_BYTES:
            raise _Fail(f"observation space of shape {tuple(self.obs_shape)}: one observation would need "
                        f"{row} bytes; the host takes 1 to {_OBS_MAX_BYTES} (RL_OBS_MAX_BYTES)")
        if isinstance(act_space, spaces.Discrete):
            if int(act_space.start) != 0:
                raise _Fail(f"action space {act_space}: a Discrete action space must start at 0")
            self.box = False
        elif isinstance(act_space, spaces.Box) and len(act_space.shape) == 1 and \
                np.issubdtype(act_space.dtype, np.floating):
            self.box = True
            self.low = np.ascontiguousarray(act_space.low, np.float32)
            self.high = np.ascontiguousarray(act_space.high, np.float32)
        else:
            raise _Fail(f"action space {act_space}: rlhost's learners take Discrete actions or a 1-D float Box")
        self.obs_low = self.obs_high = None
        if self.onehot is None and self.obs_dtype == np.float32:
            lo = np.asarray(obs_space.low, np.float32).reshape(-1)
            hi = np.asarray(obs_space.high, np.float32).reshape(-1)
            if np.isfinite(lo).all() and np.isfinite(hi).all():
                self.obs_low, self.obs_high = np.ascontiguousarray(lo), np.ascontiguousarray(hi)

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
        else:
            info.n_actions = int(self.act_space.n)
        if self.obs_low is not None:
            info.obs_low, info.obs_high = self.obs_low.ctypes.data_as(f), self.obs_high.ctypes.data_as(f)

    def put(self, row, obs):
        """One observation into a row of the host's buffer."""
        if self.onehot is not None:
            row[:] = 0
            row[int(obs) - self.onehot] = 1
        else:
            row[...] = self.array(obs)

    def array(self, obs):
        """One (Box) observation as an array of the space's dtype, its shape checked."""
        a = np.asarray(obs, self.obs_dtype)
        if a.shape != tuple(self.obs_shape):
            raise _Fail(f"the env returned an observation of shape {a.shape}; its observation space says "
                        f"{tuple(self.obs_shape)}")
        return a


class _Buffers:
    """NumPy views of an rl_env_io, cached by the buffers' addresses (the
    host alternates two observation buffers)."""

    def __init__(self, sp, n):
        self.sp, self.n, self.cache = sp, n, {}

    def views(self, io):
        key = (io.obs, io.final_obs)
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
            if sp.box:
                acts = np.ctypeslib.as_array(io.box_actions, shape=(n, sp.low.size))
            else:
                acts = np.ctypeslib.as_array(io.actions, shape=(n,))
            v = (obs, final, rew, term, trunc, acts)
            if len(self.cache) > 8:
                self.cache.clear()
            self.cache[key] = v
        return v

    def put_rows(self, dst, first, rows):
        """Observations (a list) into dst[first:first + len(rows)] at once."""
        if self.sp.onehot is not None:
            for k, o in enumerate(rows):
                self.sp.put(dst[first + k], o)
        else:
            want = (len(rows),) + tuple(self.sp.obs_shape)
            try:
                a = np.asarray(rows, self.sp.obs_dtype)
            except ValueError:  # ragged: rows of different shapes
                a = None
            if a is None or a.shape != want:
                for o in rows:  # the first row that does not fit says its shape
                    self.sp.array(o)
            dst[first:first + len(rows)] = a


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
            raise _Fail(f"env {i} returned an observation holding {o[i - first][~np.isfinite(o[i - first])][0]}: "
                        "observations must be finite")


def _seed_of(seed, i):
    """Env i's seed from (seed, i), as rlhost seeds its own envs' streams."""
    return int(np.random.SeedSequence([seed & ((1 << 64) - 1), i]).generate_state(1, np.uint32)[0])


class _FactoryInst:
    def __init__(self, factory, n, seed):
        self.envs = [factory() for _ in range(n)]
        for e in self.envs[:1]:
            if not all(hasattr(e, a) for a in ("reset", "step", "observation_space", "action_space")):
                raise _Fail(f"the env= factory returned {type(e).__name__}, not a Gymnasium env "
                            "(reset, step, observation_space, action_space)")
        self.sp = _Spaces(self.envs[0].observation_space, self.envs[0].action_space)
        for k, e in enumerate(self.envs[1:], 1):
            if e.observation_space != self.sp.obs_space or e.action_space != self.sp.act_space:
                raise _Fail(f"the factory's env {k} has other spaces than env 0")
        self.seeds = [_seed_of(seed, i) for i in range(n)]
        for e, s in zip(self.envs, self.seeds):
            e.action_space.seed(s)
        self.buf = _Buffers(self.sp, n)

    def reset(self, io, first, count):
        obs, *_ = self.buf.views(io)
        for i in range(first, first + count):
            o, _ = self.envs[i].reset(seed=self.seeds[i])
            self.seeds[i] = None  # seeded once; later episodes continue the env's stream
            self.sp.put(obs[i], o)

    def step(self, io, first, count):
        obs, final, rew, term, trunc, acts = self.buf.views(io)
        end = first + count
        a = acts[first:end].copy() if self.sp.box else acts[first:end].tolist()
        out, rs, tes, trs = [], [], [], []
        for k, (e, ak) in enumerate(zip(self.envs[first:end], a)):
            o, r, te, tr, _ = e.step(ak)
            if te or tr:
                self.sp.put(final[first + k], o)
                o, _ = e.reset()
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


class _VectorInst:
    """A gymnasium VectorEnv (either autoreset mode) or an SB3 VecEnv, stepped
    whole: the host steps it without worker threads and with action_repeat 1."""

    def __init__(self, vec, kind, n, seed):
        if vec.num_envs != n:
            raise _Fail(f"the vector env has {vec.num_envs} envs, the config asks for {n}")
        self.vec, self.kind, self.n, self.seed = vec, kind, n, seed
        obs_sp = vec.observation_space if kind == "sb3" else vec.single_observation_space
        act_sp = vec.action_space if kind == "sb3" else vec.single_action_space
        self.sp = _Spaces(obs_sp, act_sp)
        self.buf = _Buffers(self.sp, n)
        self.next_step = False
        if kind == "vector":
            mode = getattr(vec, "metadata", {}).get("autoreset_mode")
            self.next_step = getattr(mode, "value", mode) in ("NextStep", None)

    def _whole(self, first, count):
        if first != 0 or count != self.n:
            raise _Fail("a vector env steps all its envs at once: env.optimizations.action_repeat must be 1")

    def _put_all(self, obs, o):
        for i in range(self.n):
            self.sp.put(obs[i], o[i])

    def reset(self, io, first, count):
        self._whole(first, count)
        obs, *_ = self.buf.views(io)
        if self.kind == "sb3":
            if self.seed is not None:
                self.vec.seed(self.seed)
            o = self.vec.reset()
        else:
            o, _ = self.vec.reset(seed=self.seed)
        self.seed = None
        self._put_all(obs, o)

    def step(self, io, first, count):
        self._whole(first, count)
        obs, final, rew, term, trunc, acts = self.buf.views(io)
        a = acts.copy()
        if self.kind == "sb3":
            o, r, done, infos = self.vec.step(a)
            for i in np.flatnonzero(done):
                cut = bool(infos[i].get("TimeLimit.truncated", False))
                term[i], trunc[i] = not cut, cut
                self.sp.put(final[i], infos[i]["terminal_observation"])
            term[~done.astype(bool)] = 0
            trunc[~done.astype(bool)] = 0
        else:
            o, r, te, tr, infos = self.vec.step(a)
            term[:], trunc[:] = te, tr
            ended = np.asarray(te) | np.asarray(tr)
            if ended.any():
                if self.next_step:  # the last observations now, the next episodes' first from a masked reset
                    for i in np.flatnonzero(ended):
                        self.sp.put(final[i], o[i])
                    o = np.array(o, copy=True)
                    fresh, _ = self.vec.reset(options={"reset_mask": ended})
                    o[ended] = np.asarray(fresh)[ended]
                else:
                    for i in np.flatnonzero(ended):
                        self.sp.put(final[i], infos["final_obs"][i])
        rew[:] = r
        self._put_all(obs, o)
        _check_finite(rew, obs, 0, self.n)

    def close(self):
        pass  # the caller's object: the caller closes it


class _NoInst:
    """Spaces only: a vector env has one instance, which training holds."""

    def __init__(self, sp):
        self.sp = sp

    def reset(self, io, first, count):
        raise _Fail("this vector env is training; evaluation needs an env of its own: pass eval_env= "
                    "(a factory or another vector env)")

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
            return _FactoryInst(self.source, n, seed)
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
        return _NoInst(_Spaces(v.observation_space if self.kind == "sb3" else v.single_observation_space,
                               v.action_space if self.kind == "sb3" else v.single_action_space))

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
            inst.sp.fill(info.contents)
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
        d = EnvDef(C.sizeof(EnvDef), name.encode(), (description or f"Python env {name}").encode(), None,
                   *b.cfuncs)
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
