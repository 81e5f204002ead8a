"""ctypes bindings of librlhost's embedding API (<rlhost/host.h>).

The libraries come from, in order: $RLHOST_LIB_DIR (a meson build
directory of the repository, for working on rlhost itself), the copies the
package was built with (rlhost/_lib/, by meson-python), else, for the
package imported from a checkout (the project's .venv, which
scripts/pydeps.sh points at python/), the checkout's build/."""

import ctypes as C
import os
from pathlib import Path

RL_OK = 0
RL_DTYPE = {1: "float32", 2: "uint8"}  # rl_dtype of observations (plugin.h)
ERR_LEN = 1024
API_VERSION = 2  # RLH_API_VERSION of <rlhost/host.h>
RL_EINTR = -8


class ObsPart(C.Structure):  # rl_obs_part of <rlhost/plugin.h> (ABI 1.6)
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("name", C.c_char_p),
        ("kind", C.c_uint32),
        ("dtype", C.c_int),
        ("ndim", C.c_uint32),
        ("shape", C.c_uint32 * 4),
        ("offset", C.c_uint32),
        ("scale", C.c_float),
        ("nvec", C.POINTER(C.c_uint32)),
    ]


class EnvInfo(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("obs_dtype", C.c_int),
        ("obs_ndim", C.c_uint32),
        ("obs_shape", C.c_uint32 * 4),
        ("obs_size", C.c_uint32),
        ("obs_scale", C.c_float),
        ("n_actions", C.c_uint32),
        ("score_name", C.c_char_p),
        ("agents", C.c_uint32),
        ("action_kind", C.c_uint32),  # ABI 1.2: 0 discrete, 1 box (2 MultiDiscrete, 3 hybrid)
        ("action_dim", C.c_uint32),
        ("action_low", C.POINTER(C.c_float)),
        ("action_high", C.POINTER(C.c_float)),
        ("obs_low", C.POINTER(C.c_float)),
        ("obs_high", C.POINTER(C.c_float)),
        ("max_episode_steps", C.c_uint32),  # 0: no fixed time limit
        ("action_nvec", C.POINTER(C.c_uint32)),  # ABI 1.6: action_kind 2, MultiDiscrete
        ("action_mask", C.c_uint32),  # nonzero: the env writes action masks
        ("n_obs_parts", C.c_uint32),  # a composite observation's parts
        ("obs_parts", C.POINTER(ObsPart)),
        ("seats", C.c_uint32),  # ABI 1.7: agents at seats, a turn-based env
        ("agent_seats", C.POINTER(C.c_uint32)),
        ("turn_based", C.c_uint32),
        ("action_box_dim", C.c_uint32),  # ABI 1.11: action_kind 3, hybrid: the box's floats
    ]


class Buffers(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("obs", C.c_void_p),
        ("actions", C.c_void_p),
        ("rewards", C.POINTER(C.c_float)),
        ("terminated", C.POINTER(C.c_uint8)),
        ("truncated", C.POINTER(C.c_uint8)),
        ("final_obs", C.c_void_p),
        ("scores", C.POINTER(C.c_float)),
        ("episode_start", C.POINTER(C.c_uint8)),
        ("episode_return", C.POINTER(C.c_double)),
        ("episode_length", C.POINTER(C.c_uint32)),
        ("action_mask", C.POINTER(C.c_uint8)),  # a masking env's: [num_envs][mask width]
        ("final_mask", C.POINTER(C.c_uint8)),
        ("to_move", C.POINTER(C.c_uint8)),  # a turn-based env's movers (ABI 1.7)
    ]


class Tensor(C.Structure):  # rlh_tensor of <rlhost/host.h>
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("name", C.c_char_p),
        ("dtype", C.c_int),
        ("ndim", C.c_uint32),
        ("shape", C.c_uint64 * 4),
        ("data", C.c_void_p),
        ("bytes", C.c_size_t),
    ]


class RunOptions(C.Structure):
    _fields_ = [
        ("struct_size", C.c_uint32),
        ("overrides", C.POINTER(C.c_char_p)),
        ("n_overrides", C.c_size_t),
        ("force", C.c_int),
        ("out_dir", C.c_char_p),
        ("out_len", C.c_size_t),
        ("resume", C.c_int),
    ]


LOG_FN = C.CFUNCTYPE(None, C.c_void_p, C.c_int, C.c_char_p)
RL_LOG_ERROR, RL_LOG_WARN = 0, 1


class RlhostWarning(UserWarning):
    """What librlhost warns about (a damaged checkpoint passed over for the
    previous one, a config that differs from a checkpoint's, ...)."""


def _on_log(ctx, level, message):
    """librlhost's messages: warnings as RlhostWarning (shown once each by
    Python's filters, catchable in tests), the rest on Python's stderr (which
    Jupyter shows, unlike the C library's)."""
    text = message.decode(errors="replace")
    try:
        if level == RL_LOG_WARN:
            import warnings

            warnings.warn(text, RlhostWarning, stacklevel=2)
        else:
            import sys

            sys.stderr.write(("rlhost: error: " if level == RL_LOG_ERROR else "") + text + "\n")
    except Exception:  # noqa: BLE001  (an exception cannot cross back into C)
        pass


_log_callback = LOG_FN(_on_log)


def package_lib():
    """(librlcore, librlhost, the rlhost executable, plugin directories) of
    the installed package: rlhost/_lib of a wheel, or, in an editable install
    (pip install -e, meson-python), the files in the build directory that
    importlib.resources maps that folder to."""
    from importlib.resources import files

    lib = files(__package__) / "_lib"
    plugins = lib / "plugins"
    dirs = []
    if isinstance(plugins, Path):
        dirs = [str(plugins)]
    elif plugins.is_dir():  # editable: each plugin where meson built it
        dirs = sorted({str(Path(str(p)).parent) for p in plugins.iterdir() if str(p).endswith(".so")})
    return (Path(str(lib / "librlcore.so")), Path(str(lib / "librlhost.so")), Path(str(lib / "rlhost")), dirs)


def _paths():
    build = os.environ.get("RLHOST_LIB_DIR")
    if build:
        b = Path(build)
        return b / "core" / "rlcore" / "librlcore.so.0", b / "core" / "runtime" / "librlhost.so.0", []
    core, host, _, dirs = package_lib()  # a wheel's: unversioned, one file each
    checkout = Path(__file__).resolve().parents[2] / "build"
    if not host.exists() and (checkout / "core" / "runtime" / "librlhost.so.0").exists():
        return checkout / "core" / "rlcore" / "librlcore.so.0", checkout / "core" / "runtime" / "librlhost.so.0", []
    return core, host, dirs


def _load():
    core, host, plugins = _paths()
    if not host.exists():
        raise ImportError(
            f"rlhost: {host} is missing: install the package with `pip install .` "
            "from the repository, or set RLHOST_LIB_DIR to a meson build directory"
        )
    # librlcore first: the plugins, dlopen'd later, find it loaded by its
    # soname.  Both stay local: loaded globally they would lend their
    # dependencies' symbols (OpenBLAS's sgemm_) to every library loaded
    # after them, and torch imported after rlhost ran its matrix products
    # on them, half as fast.
    C.CDLL(str(core), mode=C.RTLD_LOCAL)
    lib = C.CDLL(str(host), mode=C.RTLD_LOCAL)
    P, S, U32, U64, SZ = C.c_void_p, C.c_char_p, C.c_uint32, C.c_uint64, C.c_size_t
    sig = {
        "rlh_version": (S, []),
        "rlh_api_version": (C.c_int, []),
        "rlh_set_log_level": (None, [C.c_int]),
        "rlh_open": (P, [S, S, SZ]),
        "rlh_close": (None, [P]),
        "rlh_plugin_name": (S, [P, C.c_int, SZ]),
        "rlh_vec_open": (P, [P, S, U32, U64, S, S, SZ]),
        "rlh_vec_close": (None, [P]),
        "rlh_vec_info": (C.POINTER(EnvInfo), [P]),
        "rlh_vec_num_envs": (U32, [P]),
        "rlh_vec_threads": (U32, [P]),
        "rlh_vec_buffers": (C.POINTER(Buffers), [P]),
        "rlh_vec_set_buffers": (C.c_int, [P, C.POINTER(Buffers), S, SZ]),
        "rlh_vec_reset": (None, [P]),
        "rlh_vec_reseed": (C.c_int, [P, U64, S, SZ]),
        "rlh_vec_step": (C.c_int, [P, S, SZ]),
        "rlh_vec_set_autoreset": (C.c_int, [P, C.c_int, S, SZ]),
        "rlh_vec_info_names": (U32, [P, C.POINTER(S), C.POINTER(C.c_int), U32]),
        "rlh_vec_info_read": (C.c_int, [P, C.c_int, C.POINTER(C.c_double), S, SZ]),
        "rlh_vec_render_text": (C.c_int, [P, U32, S, SZ, S, SZ]),
        "rlh_vec_render_rgb": (C.c_int, [P, U32, P, SZ, C.POINTER(U32), S, SZ]),
        "rlh_run": (C.c_int, [P, S, C.POINTER(RunOptions), S, SZ]),
        "rlh_policy_open": (P, [P, S, U32, C.POINTER(S), SZ, S, SZ]),
        "rlh_policy_close": (None, [P]),
        "rlh_policy_info": (C.POINTER(EnvInfo), [P]),
        "rlh_policy_env_name": (S, [P]),
        "rlh_policy_algo_name": (S, [P]),
        "rlh_policy_step": (U64, [P]),
        "rlh_policy_act": (C.c_int, [P, P, P, P, U32, S, SZ]),
        "rlh_policy_act_masked": (C.c_int, [P, P, P, P, P, U32, S, SZ]),
        "rlh_policy_vec": (P, [P, U32, U64, S, SZ]),
        "rlh_policy_search": (C.c_int, [P, P, S, P, S, SZ]),
        "rlh_policy_checkpoint": (C.c_int, [P, C.POINTER(C.c_void_p), C.POINTER(SZ), S, SZ]),
        "rlh_policy_tensor": (C.c_int, [P, SZ, C.POINTER(Tensor)]),
        "rlh_policy_meta": (C.c_int, [P, SZ, C.POINTER(S), C.POINTER(S)]),
        "rlh_set_log_handler": (None, [LOG_FN, P]),
        "rlh_env_register": (C.c_int, [P, P, S, SZ]),
        "rlh_plugin_info": (C.c_int, [P, C.c_int, S, S, SZ, S, SZ]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    lib.rlh_set_log_handler(_log_callback, None)
    import atexit

    atexit.register(lib.rlh_set_log_handler, LOG_FN(), None)  # no calls into a finalizing interpreter
    if lib.rlh_api_version() != API_VERSION:
        raise ImportError(
            f"rlhost: {host} has embedding API {lib.rlh_api_version()}, this package speaks {API_VERSION}"
        )
    return lib, plugins


lib, _plugin_dir = _load()
_host = None


class RlhostError(RuntimeError):
    """A refusal or failure from rlhost, with its one-sentence reason."""


def err_buf():
    return C.create_string_buffer(ERR_LEN)


def fail(err):
    raise RlhostError(err.value.decode(errors="replace"))


def host():
    """The process's plugin registry, opened on first use."""
    global _host
    if _host is None:
        extra = os.environ.get("RLHOST_PYTHON_PLUGIN_PATH")
        dirs = ([extra] if extra else []) + list(_plugin_dir)
        err = err_buf()
        h = lib.rlh_open(":".join(dirs).encode() if dirs else None, err, ERR_LEN)
        if not h:
            fail(err)
        _host = h
    return _host


def strings(items):
    arr = (C.c_char_p * max(len(items), 1))(*[s.encode() for s in items])
    return arr, len(items)
