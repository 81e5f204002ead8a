"""The `rlhost` command a pip install puts on PATH: the C executable inside
the package (rlhost/_lib/rlhost), with the package's plugins found first."""
import os
import sys
from pathlib import Path


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
    os.execve(str(exe), [str(exe)] + sys.argv[1:], env)


if __name__ == "__main__":
    main()
