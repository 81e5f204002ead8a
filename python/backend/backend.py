"""The build backend of the rlhost wheel: meson-python's, with one change.

The package reaches its C libraries through ctypes and has no extension
module, so one wheel serves every CPython 3 that requires-python admits.
meson-python tags any wheel with files in platlib for the interpreter that
built it (cp311-cp311), so this backend retags the wheel it built
py3-none-PLATFORM: the WHEEL file's Tag line, its RECORD entry and the file
name.  Everything else, sdists and editable installs included, is
meson-python's own (pyproject.toml names this module as the backend)."""

import base64
import hashlib
import os
import re
import zipfile

import mesonpy
from mesonpy import (
    build_editable,
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
)

# PEP 517's hooks: meson-python's, but for build_wheel below
__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
]

_NAME = re.compile(r"^(?P<dist>[^-]+-[^-]+)-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$")


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def retag(directory, name):
    """Rewrites the wheel `name` in `directory` as py3-none-PLATFORM; returns the new name."""
    m = _NAME.match(name)
    if not m or (m["py"], m["abi"]) == ("py3", "none"):
        return name
    new = f"{m['dist']}-py3-none-{m['plat']}.whl"
    src, dst = os.path.join(directory, name), os.path.join(directory, new)
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst + ".tmp", "w", zipfile.ZIP_DEFLATED) as zout:
        infos = zin.infolist()
        wheel_path = next(i.filename for i in infos if i.filename.endswith(".dist-info/WHEEL"))
        record_path = wheel_path[: -len("WHEEL")] + "RECORD"
        wheel = zin.read(wheel_path).decode()
        wheel = re.sub(r"(?m)^Tag: .*$", f"Tag: py3-none-{m['plat']}", wheel).encode()
        for info in infos:
            data = zin.read(info)
            if info.filename == wheel_path:
                data = wheel
            elif info.filename == record_path:
                lines = data.decode().splitlines()
                data = (
                    "\n".join(
                        f"{wheel_path},{_record_hash(wheel)},{len(wheel)}"
                        if line.startswith(wheel_path + ",")
                        else line
                        for line in lines
                    ).encode()
                    + b"\n"
                )
            zout.writestr(info, data)
    os.replace(dst + ".tmp", dst)
    os.remove(src)
    return new


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return retag(wheel_directory, mesonpy.build_wheel(wheel_directory, config_settings, metadata_directory))
