"""The `rlhost` command a pip install puts on PATH: the C executable inside
the package (rlhost/_lib/rlhost), with the package's plugins found first."""

import os
import sys
from pathlib import Path

_TAKES_CONFIGS = ("run", "check", "bench", "tune", "study")


def _shipped_configs(args):
    """The README's `rlhost run configs/NAME.cfg` from any directory: an
    argument ending in .cfg that names no file here, spelled NAME.cfg or
    configs/NAME.cfg with NAME a shipped config, becomes the package's copy
    (as rlhost.run finds it)."""
    if not args or args[0] not in _TAKES_CONFIGS or "--resume" in args:
        return args
    from . import configs

    names = set(configs.names())
    out = [args[0]]
    for a in args[1:]:
        if (
            a.endswith(".cfg")
            and not a.startswith("-")
            and not os.path.exists(a)
            and os.path.dirname(a) in ("", "configs")
            and a[:-4].rsplit("/", 1)[-1] in names
        ):
            a = configs.path(os.path.basename(a))
        out.append(a)
    return out


def main() -> None:
    build = os.environ.get("RLHOST_LIB_DIR")
    env = dict(os.environ)
    if build:
        exe = Path(build) / "core" / "rlhost"
    else:
        from ._native import package_lib

        _, _, exe, dirs = package_lib()
        extra = env.get("RLHOST_PLUGIN_PATH")
        env["RLHOST_PLUGIN_PATH"] = ":".join(dirs + ([extra] if extra else []))
    # rlhost tune and study come back to Python: this interpreter, which has this package
    env.setdefault("RLHOST_PYTHON", sys.executable)
    if not exe.exists():
        sys.exit(f"rlhost: {exe} is missing: the package was installed without its libraries")
    os.execve(str(exe), [str(exe)] + _shipped_configs(sys.argv[1:]), env)


if __name__ == "__main__":
    main()
