"""Gymnasium spaces and rlhost's rows (ABI 1.6): a composite observation
(Dict, Tuple, MultiDiscrete, MultiBinary) as named parts laid out in one row
of bytes, MultiDiscrete actions, action masks, and (ABI 1.11) hybrid actions:
a Dict or Tuple of Discrete, MultiDiscrete and Box parts.

A Dict's keys (in the space's order) or a Tuple's positions ("0", "1", ...)
become parts: a float Box an f32 part, a uint8 Box a u8 part scaled by 1/255
(as rlhost scales uint8 images), another integer Box an f32 part, a
MultiBinary a u8 part of 0 and 1, a Discrete or MultiDiscrete a discrete i32
part (its start subtracted) that the learners one-hot encode as SB3 does.  A
Dict's "action_mask" key (PettingZoo's convention) is the action mask, not a
part.  One level only: a Dict or Tuple inside one is refused with the way to
flatten it."""

import ctypes as C

import numpy as np
from gymnasium import spaces

from ._native import ObsPart

RL_DTYPE_F32, RL_DTYPE_U8, RL_DTYPE_I32 = 1, 2, 3
RL_PART_BOX, RL_PART_DISCRETE = 0, 1
RL_SPACE_DISCRETE, RL_SPACE_BOX, RL_SPACE_MULTI_DISCRETE, RL_SPACE_HYBRID = 0, 1, 2, 3
OBS_MAX_PARTS = 32  # RL_OBS_MAX_PARTS
MASK_KEY = "action_mask"
# choices of a Discrete space, or of all MultiDiscrete components together,
# at most (the host's RL__MAX_MASK_WIDTH): a count past it is refused, never
# wrapped into the host's 32 bits
MAX_CHOICES = 1 << 20


def check_choices(nvec, what):
    """nvec (a Discrete's n, or a MultiDiscrete's) within 1 .. MAX_CHOICES in
    all, each at least 1; else the sentence."""
    v = np.asarray(nvec, dtype=object).reshape(-1)
    if not v.size or any(int(x) < 1 for x in v) or sum(int(x) for x in v) > MAX_CHOICES:
        raise SpaceError(f"{what}: rlhost takes 1 to {MAX_CHOICES} choices in all, each component at least 1")


_NP = {RL_DTYPE_F32: np.float32, RL_DTYPE_U8: np.uint8, RL_DTYPE_I32: np.int32}


class SpaceError(ValueError):
    """A space the bridge cannot carry, with the sentence why."""


class Part:
    """One part: where it lies in the row and how a value becomes bytes."""

    def __init__(self, name, kind, dtype, shape, scale=1.0, nvec=None, start=None, space=None):
        self.name, self.kind, self.dtype = name, kind, dtype
        self.shape, self.scale, self.space = tuple(int(d) for d in shape), float(scale), space
        if nvec is not None:
            check_choices(nvec, f"part {name!r}: {space}")
        self.nvec = None if nvec is None else np.ascontiguousarray(np.asarray(nvec).reshape(-1), np.uint32)
        self.start = None if start is None else np.asarray(start, np.int64).reshape(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.nbytes = self.size * np.dtype(_NP[dtype]).itemsize
        self.offset = 0

    def put(self, row, value):
        """value (the space's form) into row (the composite row's bytes)."""
        a = np.asarray(value)
        if a.dtype.kind not in "biuf":
            raise SpaceError(f"part {self.name!r} got {a.dtype} values; its space {self.space} holds numbers")
        if self.kind == RL_PART_DISCRETE:
            if a.size != self.size:
                raise SpaceError(f"part {self.name!r} got {a.size} values; its space {self.space} holds {self.size}")
            a = a.astype(np.int64).reshape(self.shape) - self.start
            if (a < 0).any() or (a >= self.nvec.reshape(self.shape)).any():
                raise SpaceError(f"part {self.name!r} got {value!r}, outside its space {self.space}")
        if a.size != self.size:
            raise SpaceError(f"part {self.name!r} got {a.size} values; its space {self.space} holds {self.size}")
        b = np.ascontiguousarray(a.reshape(self.shape), _NP[self.dtype])
        row[self.offset : self.offset + self.nbytes] = b.reshape(-1).view(np.uint8)

    def get_batch(self, rows):
        """The part of every row of a [n][row bytes] array: [n, *shape]."""
        n = rows.shape[0]
        a = np.ascontiguousarray(rows[:, self.offset : self.offset + self.nbytes]).view(_NP[self.dtype])
        a = a.reshape((n,) + self.shape)
        if self.kind == RL_PART_DISCRETE:
            a = a.astype(np.int64) + self.start
            return a[:, 0] if isinstance(self.space, spaces.Discrete) else a
        return a.astype(self.space.dtype) if isinstance(self.space, spaces.Box) else a

    def get(self, row):
        """The part's value out of a row, in the space's form."""
        a = row[self.offset : self.offset + self.nbytes].view(_NP[self.dtype]).reshape(self.shape)
        if self.kind == RL_PART_DISCRETE:
            v = a.astype(np.int64) + self.start
            return int(v.reshape(-1)[0]) if isinstance(self.space, spaces.Discrete) else v
        if isinstance(self.space, spaces.Box):
            return a.astype(self.space.dtype, copy=True)
        return a.copy()


def _part(name, sp):
    if isinstance(sp, (spaces.Dict, spaces.Tuple)):
        raise SpaceError(
            f"part {name!r} is itself a {type(sp).__name__}: the bridge takes one level of Dict or "
            "Tuple; flatten the inner one (gymnasium.wrappers.FlattenObservation, or your own keys)"
        )
    if isinstance(sp, spaces.Discrete):
        return Part(name, RL_PART_DISCRETE, RL_DTYPE_I32, (1,), nvec=[int(sp.n)], start=[int(sp.start)], space=sp)
    if isinstance(sp, spaces.MultiDiscrete):
        return Part(name, RL_PART_DISCRETE, RL_DTYPE_I32, sp.nvec.shape, nvec=sp.nvec, start=sp.start, space=sp)
    if isinstance(sp, spaces.MultiBinary):
        return Part(name, RL_PART_BOX, RL_DTYPE_U8, np.atleast_1d(np.asarray(sp.n)).reshape(-1), space=sp)
    if isinstance(sp, spaces.Box):
        if not 1 <= len(sp.shape) <= 4:
            raise SpaceError(f"part {name!r}: a Box of {len(sp.shape)} dimensions; a part has 1 to 4")
        if sp.dtype == np.uint8:
            return Part(name, RL_PART_BOX, RL_DTYPE_U8, sp.shape, scale=1.0 / 255.0, space=sp)
        if np.issubdtype(sp.dtype, np.floating) or np.issubdtype(sp.dtype, np.integer) or sp.dtype == np.bool_:
            return Part(name, RL_PART_BOX, RL_DTYPE_F32, sp.shape, space=sp)
    raise SpaceError(
        f"part {name!r}: {sp} is not a space the bridge carries (Box, Discrete, MultiDiscrete, MultiBinary)"
    )


def is_composite(sp):
    return isinstance(sp, (spaces.Dict, spaces.Tuple, spaces.MultiDiscrete, spaces.MultiBinary))


class Layout:
    """A composite observation space as parts of one row of bytes."""

    def __init__(self, space):
        self.space, self.mask_space, self.kind = space, None, type(space).__name__
        if isinstance(space, spaces.Dict):
            items = list(space.spaces.items())
            self.mask_space = dict(items).get(MASK_KEY)
            items = [(k, s) for k, s in items if k != MASK_KEY]
        elif isinstance(space, spaces.Tuple):
            items = [(str(k), s) for k, s in enumerate(space.spaces)]
        else:  # one part: a MultiDiscrete or MultiBinary observation
            items = [("obs", space)]
        if not items:
            raise SpaceError(f"observation space {space}: no part besides the action mask")
        if len(items) > OBS_MAX_PARTS:
            raise SpaceError(f"observation space {space}: {len(items)} parts; the host takes {OBS_MAX_PARTS}")
        self.parts, off = [], 0
        for name, sp in items:
            if not name.replace("_", "").isalnum() or not name.isascii() or len(name) > 31:
                raise SpaceError(f"observation key {name!r}: a part's name is 1 to 31 letters, digits or _")
            p = _part(name, sp)
            align = np.dtype(_NP[p.dtype]).itemsize
            off = (off + align - 1) // align * align
            p.offset, off = off, off + p.nbytes
            self.parts.append(p)
        self.row_bytes = (off + 3) // 4 * 4
        self._c = (ObsPart * len(self.parts))()
        self._names = [p.name.encode() for p in self.parts]
        for k, p in enumerate(self.parts):
            c = self._c[k]
            c.struct_size, c.name, c.kind, c.dtype = C.sizeof(ObsPart), self._names[k], p.kind, p.dtype
            c.ndim, c.offset, c.scale = len(p.shape), p.offset, p.scale
            for d, n in enumerate(p.shape):
                c.shape[d] = n
            if p.nvec is not None:
                c.nvec = p.nvec.ctypes.data_as(C.POINTER(C.c_uint32))

    def fill(self, info):
        """Declares the layout in an rl_env_info (a u8 row holding the parts)."""
        info.obs_dtype, info.obs_ndim, info.obs_size, info.obs_scale = RL_DTYPE_U8, 1, self.row_bytes, 1.0
        info.obs_shape[0] = self.row_bytes
        info.n_obs_parts, info.obs_parts = len(self.parts), C.cast(self._c, C.POINTER(ObsPart))

    def put(self, row, obs):
        """One observation (a dict, tuple or array) into a row of bytes."""
        if isinstance(self.space, spaces.Dict):
            if not isinstance(obs, dict):
                raise SpaceError(f"the env returned {type(obs).__name__}; its Dict observation space needs a dict")
            missing = [p.name for p in self.parts if p.name not in obs]
            if missing:
                raise SpaceError(f"the env's observation lacks the key {missing[0]!r} of its Dict space")
            values = [obs[p.name] for p in self.parts]
        elif isinstance(self.space, spaces.Tuple):
            if len(obs) != len(self.parts):
                raise SpaceError(f"the env returned a tuple of {len(obs)}; its Tuple space has {len(self.parts)}")
            values = list(obs)
        else:
            values = [obs]
        row[:] = 0
        for p, v in zip(self.parts, values):
            p.put(row, v)

    def get_batch(self, rows):
        """Rows of bytes [n][row bytes] as the space's batch: a dict of
        arrays, a tuple of arrays, or an array."""
        values = [p.get_batch(rows) for p in self.parts]
        if isinstance(self.space, spaces.Dict):
            return {p.name: v for p, v in zip(self.parts, values)}
        if isinstance(self.space, spaces.Tuple):
            return tuple(values)
        return values[0]

    def get(self, row):
        """A row of bytes back in the space's form."""
        values = [p.get(row) for p in self.parts]
        if isinstance(self.space, spaces.Dict):
            return {p.name: v for p, v in zip(self.parts, values)}
        if isinstance(self.space, spaces.Tuple):
            return tuple(values)
        return values[0]


def parts_of(info):
    """The parts an rl_env_info declares, as (name, kind, dtype, shape,
    offset, scale, nvec) tuples; [] for one tensor."""
    n = int(getattr(info, "n_obs_parts", 0) or 0)
    if not n or not info.obs_parts:
        return []
    out = []
    for k in range(n):
        c = info.obs_parts[k]
        shape = tuple(int(c.shape[d]) for d in range(c.ndim))
        size = int(np.prod(shape))
        nvec = np.ctypeslib.as_array(c.nvec, shape=(size,)).copy() if c.kind == RL_PART_DISCRETE else None
        out.append((c.name.decode(), int(c.kind), int(c.dtype), shape, int(c.offset), float(c.scale), nvec))
    return out


def space_of_parts(parts):
    """The Gymnasium space of a composite rlhost observation (a Dict)."""
    sub = {}
    for name, kind, dtype, shape, _, scale, nvec in parts:
        if kind == RL_PART_DISCRETE:
            sub[name] = spaces.MultiDiscrete(nvec.reshape(shape).astype(np.int64))
        elif dtype == RL_DTYPE_U8:
            sub[name] = spaces.Box(0, 255, shape, np.uint8)
        else:
            sub[name] = spaces.Box(-np.inf, np.inf, shape, np.float32)
    return spaces.Dict(sub)


def layout_of_parts(parts, row_bytes):
    """A Layout for an rlhost env's own composite rows (Dict of its parts)."""
    lay = Layout.__new__(Layout)
    lay.space, lay.mask_space, lay.kind, lay.row_bytes = space_of_parts(parts), None, "Dict", row_bytes
    lay.parts = []
    for name, kind, dtype, shape, off, scale, nvec in parts:
        sp = lay.space[name]
        p = Part(name, kind, dtype, shape, scale, nvec, np.zeros(shape, np.int64) if nvec is not None else None, sp)
        p.offset = off
        lay.parts.append(p)
    return lay


def mask_width(act_space):
    if isinstance(act_space, spaces.Discrete):
        return int(act_space.n)
    if isinstance(act_space, spaces.MultiDiscrete):
        return int(np.asarray(act_space.nvec).sum())
    if isinstance(act_space, (spaces.Tuple, spaces.Dict)):  # a hybrid action's discrete parts
        subs = act_space.spaces.values() if isinstance(act_space, spaces.Dict) else act_space.spaces
        return sum(mask_width(sp) for sp in subs if not isinstance(sp, spaces.Box))
    return 0


def hybrid_space(nvec, low, high):
    """rlhost's hybrid action as Gymnasium writes one: a Tuple of the
    discrete part (Discrete for one component, else MultiDiscrete) and the
    float32 Box."""
    nvec = np.asarray(nvec, np.int64).reshape(-1)
    disc = spaces.Discrete(int(nvec[0])) if nvec.size == 1 else spaces.MultiDiscrete(nvec)
    low, high = np.asarray(low, np.float32), np.asarray(high, np.float32)
    return spaces.Tuple((disc, spaces.Box(low, high, low.shape, np.float32)))


class HybridAction:
    """A Dict or Tuple action space of Discrete, 1-D MultiDiscrete and 1-D
    float Box parts, one level deep, as rlhost's hybrid action: the discrete
    parts' components in the space's order (each start subtracted), then the
    Box parts' floats, bounds finite.  At least one part of each kind."""

    def __init__(self, space):
        items = list(space.spaces.items()) if isinstance(space, spaces.Dict) else list(enumerate(space.spaces))
        self.space, self.dict = space, isinstance(space, spaces.Dict)
        self.parts = []  # (key, sub-space, "d" or "b", offset among its kind's values, count)
        nvec, start, low, high = [], [], [], []
        for key, sp in items:
            where = f"action part {key!r} ({sp})"
            if isinstance(sp, (spaces.Dict, spaces.Tuple)):
                raise SpaceError(f"{where}: a hybrid action takes one level of Dict or Tuple; flatten the inner one")
            if isinstance(sp, spaces.Discrete):
                self.parts.append((key, sp, "d", len(nvec), 1))
                nvec.append(int(sp.n))
                start.append(int(sp.start))
            elif isinstance(sp, spaces.MultiDiscrete) and sp.nvec.ndim == 1:
                self.parts.append((key, sp, "d", len(nvec), int(sp.nvec.size)))
                nvec += [int(x) for x in sp.nvec]
                start += [int(x) for x in sp.start]
            elif isinstance(sp, spaces.Box) and len(sp.shape) == 1 and np.issubdtype(sp.dtype, np.floating):
                lo, hi = np.asarray(sp.low, np.float32), np.asarray(sp.high, np.float32)
                if not (np.isfinite(lo).all() and np.isfinite(hi).all()):
                    raise SpaceError(f"{where}: a Box part of a hybrid action needs finite bounds")
                self.parts.append((key, sp, "b", len(low), int(sp.shape[0])))
                low += lo.tolist()
                high += hi.tolist()
            else:
                raise SpaceError(f"{where}: a hybrid action's parts are Discrete, 1-D MultiDiscrete and 1-D float Box")
        if not nvec or not low:
            raise SpaceError(
                f"action space {space}: a hybrid action needs at least one Discrete or MultiDiscrete part and "
                "one Box part (one kind alone: use that space itself)"
            )
        check_choices(nvec, f"action space {space}")
        self.nvec = np.ascontiguousarray(nvec, np.uint32)
        self.start = np.asarray(start, np.int64)
        self.low, self.high = np.ascontiguousarray(low, np.float32), np.ascontiguousarray(high, np.float32)

    def value(self, ints, floats):
        """One row's components and floats as the env's Dict or Tuple."""
        out = {}
        for key, sp, kind, at, n in self.parts:
            if kind == "d":
                v = np.asarray(ints[at : at + n], np.int64) + self.start[at : at + n]
                out[key] = int(v[0]) if isinstance(sp, spaces.Discrete) else v
            else:
                out[key] = np.array(floats[at : at + n], sp.dtype)
        return out if self.dict else tuple(out[k] for k in range(len(self.parts)))

    def batch(self, rows):
        """Rows' values (from value) as one batched Dict or Tuple, each part
        stacked over the rows (Gymnasium's vector envs)."""
        keys = [key for key, *_ in self.parts]
        cols = {key: np.stack([np.asarray(r[key]) for r in rows]) for key in keys}
        return cols if self.dict else tuple(cols[k] for k in keys)


def mask_row(mask, width, where):
    """A mask as width bytes (1 allowed, 0 not), its length and type checked:
    numbers or booleans, in one array or in per-component lists."""
    if mask is None or isinstance(mask, (str, bytes, dict)):
        raise SpaceError(f"{where} is {type(mask).__name__}, not 0 or 1 per choice of every component")
    m = np.asarray(mask)
    if m.dtype == object:  # sb3-contrib's per-component lists
        try:
            m = np.concatenate([np.asarray(x).reshape(-1) for x in m])
        except (TypeError, ValueError):
            raise SpaceError(f"{where} is not 0 or 1 per choice of every component") from None
    if m.dtype.kind not in "biuf":
        raise SpaceError(f"{where} holds {m.dtype} values, not 0 or 1 per choice of every component")
    m = m.reshape(-1)
    if m.size != width:
        raise SpaceError(
            f"{where} has {m.size} entries; the action space needs {width} (one per choice of every "
            "component, in order)"
        )
    return (m != 0).astype(np.uint8)
