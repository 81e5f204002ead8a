"""Builds rlhost's C libraries and plugins with meson (from the repository
this folder sits in) and ships them inside the package, in rlhost/_lib/.

`pip install ./python` needs what `scripts/deps.sh` installs (meson, ninja,
a C compiler, OpenBLAS, libconfig).  RLHOST_MESON_ARGS adds meson options;
RLHOST_PY_BUILD_DIR moves meson's build directory (default python/build/meson)."""
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent
# what the package needs of the build: the two libraries and every plugin
KEEP_DIRS = ("core", "envs", "algos", "plugins")


class build_native(build_py):
    def run(self):
        super().run()
        build = Path(os.environ.get("RLHOST_PY_BUILD_DIR") or Path(__file__).resolve().parent / "build" / "meson")
        if not (build / "build.ninja").exists():
            args = ["meson", "setup", str(build), str(ROOT), "-Dmpi=disabled", "-Db_lto=false"]
            args += shlex.split(os.environ.get("RLHOST_MESON_ARGS", ""))
            subprocess.check_call(args)
        targets = json.loads(subprocess.check_output(["meson", "introspect", "--targets", str(build)]))
        outs = []
        for t in targets:
            if t["type"] not in ("shared library", "shared module"):
                continue
            for f in t["filename"]:
                rel = Path(f).resolve().relative_to(build.resolve())
                if rel.parts[0] in KEEP_DIRS:
                    outs.append(rel)
        subprocess.check_call(["ninja", "-C", str(build)] + [str(o) for o in outs])
        lib = Path(self.build_lib) / "rlhost" / "_lib"
        shutil.rmtree(lib, ignore_errors=True)
        (lib / "plugins").mkdir(parents=True)
        for rel in outs:
            src = build / rel
            if rel.parts[0] == "core":  # librlcore.so.0.1.0, librlhost.so.0.1.0 -> by soname
                name = src.name.split(".so")[0] + ".so.0"
                shutil.copy2(src, lib / name)
            else:
                shutil.copy2(src, lib / "plugins" / src.name)


setup(cmdclass={"build_py": build_native})
