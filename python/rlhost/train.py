"""Training from Python: rlhost.run(config, **overrides) trains in this
process through librlhost, as `rlhost run CONFIG --set ...` does."""
import ctypes
import json
import os

from . import _native as N
from .policy import Policy


def _override_items(overrides):
    """algo__lr=1e-3 or {"algo.lr": 1e-3} -> "algo.lr=0.001"."""
    from .envs import _cfg_value
    out = []
    for k, v in overrides.items():
        key = k.replace("__", ".")
        out.append(f"{key}={v}" if isinstance(v, str) else f"{key}={_cfg_value(v)}")
    return out


def run(config, force=False, num_envs=1, overrides=None, resume=False, **kw):
    """Trains CONFIG (a libconfig file) and returns its Policy (run_dir,
    summary and all).  Overrides as keyword arguments with "__" for the dot
    (run__steps=20000, algo__lr=1e-3) or as a dict ({"run.out_dir": "runs/x"}).
    resume=True continues the run directory CONFIG names from its
    checkpoint, as `rlhost run --resume DIR` (run__steps=N trains it on to
    N steps).  A refused config or a failed run raises RlhostError with the
    reason; Ctrl-C stops the run with its outputs written and raises
    KeyboardInterrupt."""
    items = _override_items(dict(overrides or {}, **kw))
    arr, n = N.strings(items)
    out = ctypes.create_string_buffer(4200)
    err = N.err_buf()
    opts = N.RunOptions(ctypes.sizeof(N.RunOptions), arr, n, int(bool(force)),
                        ctypes.cast(out, ctypes.c_char_p), 4200, int(bool(resume)))
    rc = N.lib.rlh_run(N.host(), os.fspath(config).encode(), ctypes.byref(opts), err, N.ERR_LEN)
    if rc == N.RL_EINTR:
        raise KeyboardInterrupt(err.value.decode(errors="replace"))
    if rc != 0:
        N.fail(err)
    run_dir = out.value.decode()
    p = Policy(run_dir, num_envs=num_envs)
    p.run_dir = run_dir
    with open(os.path.join(run_dir, "summary.json")) as f:
        p.summary = json.load(f)
    return p
