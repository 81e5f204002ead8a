"""rlhost export: a trained policy as an ONNX model or as one C99 file and
its header (docs/export.md).  `rlhost export` runs main(); Python calls
rlhost.export().  A refusal is one sentence and writes nothing: every file
goes to a temporary name beside its destination and is renamed into place
only once all of them are complete."""

import argparse
import os
import stat
import sys

from .. import _trials as T
from ._model import MIN_OPSET, Model, Refused

FORMATS = ("onnx", "c")


# the files a run writes, which an export never replaces, nor another name
# of one: rundir.c's run_files (librlhost does not export that list)
RUN_FILES = (
    "config.cfg",
    "metrics.csv",
    "summary.json",
    "checkpoint.safetensors",
    "checkpoint.prev.safetensors",
    "replay.safetensors",
    "replay.prev.safetensors",
    "curve.svg",
    "evals.csv",
    "episodes.csv",
    "events.out.tfevents.rlhost",
)


def _not_the_source(path, source):
    """Refuses an output that is the checkpoint exported or a file of its run."""
    src = os.path.abspath(source)
    run = src if os.path.isdir(src) else os.path.dirname(src)
    out = os.path.abspath(path)
    theirs = {os.path.join(run, f) for f in RUN_FILES} | ({src} if not os.path.isdir(src) else set())
    if (
        out in theirs
        or out.endswith(".safetensors")
        or any(os.path.exists(out) and os.path.exists(f) and os.path.samefile(out, f) for f in theirs)
    ):
        raise Refused(f"output {path} is a file of the run being exported (or a checkpoint's name); name another")


def _dest(path, what):
    """path, refused unless it is a new name or a regular file to replace."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise Refused(f"{what} {path}: its directory {parent} does not exist") from None
        return path
    except OSError as e:
        raise Refused(f"{what} {path}: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise Refused(f"{what} {path} is a symbolic link; rlhost export writes only regular files")
    if stat.S_ISDIR(st.st_mode):
        raise Refused(f"{what} {path} is a directory; name the file to write")
    if not stat.S_ISREG(st.st_mode):
        raise Refused(
            f"{what} {path} is not a regular file (a FIFO or a device?); rlhost export writes only regular files"
        )
    return path


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process, or no PID at all: not ours to remove
        pass
    return True


def _sweep(d, base):
    """Removes the temporaries an export to base killed mid-write left in d:
    .BASE.PID.HEX.tmp whose PID is gone, regular files only.  A live PID's
    file is another export's, still being written."""
    head = f".{base}."
    try:
        names = os.listdir(d)
    except OSError:
        return
    for n in names:
        mid = n[len(head) : -len(".tmp")].split(".") if n.startswith(head) and n.endswith(".tmp") else []
        if len(mid) != 2 or not mid[0].isdigit() or len(mid[1]) != 16 or _alive(int(mid[0])):
            continue
        try:
            if stat.S_ISREG(os.lstat(os.path.join(d, n)).st_mode):
                os.unlink(os.path.join(d, n))
        except OSError:
            pass


def _write_all(files):
    """files: [(path, bytes)], each written whole to a temporary name in its
    directory (.NAME.PID.HEX.tmp), then all renamed; on any failure or
    interruption none is left, and those of an export killed before are
    swept first."""
    tmps = []
    try:
        for path, data in files:
            d = os.path.dirname(os.path.abspath(path))
            _sweep(d, os.path.basename(path))
            tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.{os.urandom(8).hex()}.tmp")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            tmps.append(tmp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        for (path, _), tmp in zip(files, tmps):
            os.replace(tmp, path)
    except BaseException as e:
        for tmp in tmps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        if isinstance(e, OSError):
            raise Refused(f"cannot write {e.filename or 'the export'}: {e.strerror}") from None
        raise


def _default_out(model, fmt):
    stem = f"{model.env}_{model.algo}"
    src = model.path.rstrip("/")
    base = src if os.path.isdir(src) else os.path.dirname(os.path.abspath(src))
    return os.path.join(base, f"{stem}.{fmt}")


def export(path, format="onnx", output=None, opset=None, name=None, overrides=()):
    """Exports the greedy policy of a run directory (its newest good
    checkpoint) or a checkpoint file.  format "onnx" writes one .onnx file;
    "c" writes NAME.c and NAME.h (output names the .c file; NAME, the C
    prefix, is its stem unless name says another).  Returns the paths
    written.  Raises RlhostError with one sentence when the policy or the
    destination cannot be exported, having written nothing."""
    from .._native import RlhostError

    try:
        return _export(os.fspath(path), format, output, opset, name, overrides)
    except Refused as e:
        raise RlhostError(str(e)) from None


def _export(path, fmt, output, opset, name, overrides):
    if fmt not in FORMATS:
        raise Refused(f"--format {fmt!r}: rlhost exports {' or '.join(FORMATS)}")
    if opset is not None and fmt != "onnx":
        raise Refused("--opset is an ONNX option; the C exporter has none")
    if output is not None:
        output = os.fspath(output)
        if output.endswith(os.sep) or os.path.isdir(output) and not os.path.islink(output):
            raise Refused(f"output {output} is a directory; name the file to write")
    if os.path.isdir(path) and not any(
        os.path.exists(os.path.join(path, f)) for f in ("checkpoint.safetensors", "checkpoint.prev.safetensors")
    ):
        raise Refused(
            f"{path} has no checkpoint (checkpoint.safetensors): not a run directory, or a run that "
            "has not written one yet"
        )
    m = Model(path, overrides)
    out = output or _default_out(m, fmt)
    if fmt == "onnx":
        from . import _onnx

        _not_the_source(out, path)
        _dest(out, "output")
        model = _onnx.build(m, MIN_OPSET if opset is None else int(opset))
        _write_all([(out, model.SerializeToString())])
        return [out]
    from . import _c

    stem, ext = os.path.splitext(out)
    if ext not in (".c", ""):
        raise Refused(f"output {out}: the C exporter writes NAME.c and NAME.h; name the .c file")
    src, hdr = stem + ".c", stem + ".h"
    for f in (src, hdr):
        _not_the_source(f, path)
    _dest(src, "output")
    _dest(hdr, "output")
    cname = _c.c_name(name or os.path.basename(stem))
    if name is not None and cname != name:
        raise Refused(f"--name {name!r} is not a C identifier (letters, digits and _, not starting with a digit)")
    header, source = _c.generate(m, cname)
    source = source.replace(f'#include "{cname}.h"', f'#include "{os.path.basename(hdr)}"', 1)
    _write_all([(hdr, header.encode()), (src, source.encode())])
    return [src, hdr]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        """A usage error in one line, as the C commands say theirs."""
        T.refuse(f"rlhost export: {message} (rlhost export --help)")


def _parser():
    p = _Parser(
        prog="rlhost export",
        description="Writes the greedy policy of a run directory or checkpoint as an ONNX model or as one C99 file "
        "and its header (docs/export.md).",
    )
    p.add_argument("source", metavar="RUN_DIR|CHECKPOINT")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="the file to write (for c, NAME.c; NAME.h goes beside it); default: ENV_ALGO.FORMAT in the run directory",
    )
    p.add_argument("--opset", type=int, metavar="N", help=f"ONNX opset (default and least: {MIN_OPSET})")
    p.add_argument(
        "--name", metavar="PREFIX", help="the C prefix of the functions and types (default: the file's stem)"
    )
    p.add_argument("--set", action="append", default=[], metavar="K=V", help="a config override, as eval takes it")
    p.add_argument("--plugin-path", action="append", default=[], metavar="DIR")
    return p


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.plugin_path:
        os.environ["RLHOST_PYTHON_PLUGIN_PATH"] = os.pathsep.join(
            args.plugin_path
            + ([os.environ["RLHOST_PYTHON_PLUGIN_PATH"]] if os.environ.get("RLHOST_PYTHON_PLUGIN_PATH") else [])
        )
    try:
        paths = _export(args.source, args.format, args.output, args.opset, args.name, args.set)
    except Refused as e:
        T.refuse(f"rlhost export: {e}")
    for path in paths:
        print(f"rlhost export: wrote {path}", file=sys.stderr)
    return 0
