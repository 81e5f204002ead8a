"""Where an rlhost tune study lives: its Optuna storage (the URL checked
before anything is made, opened with the heartbeat that fails a dead
worker's trial, its races retried, its password kept out of every output:
mask, Masked) and its OUT directory (out_dir, claimed by tune.json)."""

import errno
import json
import os
import re
import time
from pathlib import Path

from . import _trials as T


def mask(text, url):
    """text with url's password replaced by ***: no output of the study
    holds it."""
    if not url or not text:
        return text
    m = re.match(r"[^:/]+://[^/@]*?:([^@/]*)@", url)
    secrets = [m.group(1)] if m and m.group(1) else []
    secrets += [v for v in re.findall(r"[?&]password=([^&]*)", url) if v]
    for p in secrets:
        text = text.replace(p, "***")
    return text


class Masked:
    """A stream that writes through _mask: stderr while a study runs."""

    def __init__(self, stream, url):
        self.stream, self.url = stream, url

    def write(self, text):
        return self.stream.write(mask(text, self.url))

    def __getattr__(self, name):
        return getattr(self.stream, name)


def out_dir(args, name, url):
    """OUT, made or checked: a directory that holds this study and no other,
    and nothing that is not a study's.  The study it holds is recorded in
    OUT/tune.json."""
    out = Path(args.out or f"runs/tune-{Path(args.config).stem}")
    say = f"rlhost: tune: --out {out}"
    try:
        os.stat(out)
    except OSError as e:
        if e.errno == errno.ELOOP:
            T.refuse(f"{say} is a loop of symbolic links: give a directory")
        if out.is_symlink():
            T.refuse(f"{say} is a symbolic link to nothing ({os.readlink(out)}): give a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        T.refuse(f"{say} is a file, not a directory: give a directory")
    except OSError as e:
        T.refuse(f"{say}: {e.strerror}")
    if not out.is_dir():
        T.refuse(f"{say} is not a directory: give a directory")
    if not os.access(out, os.W_OK | os.X_OK):
        T.refuse(f"{say}: not writable")
    marker, me = out / "tune.json", record(name, url)
    try:
        held = json.loads(marker.read_text())
    except FileNotFoundError:
        held = None
    except (OSError, ValueError):
        held = "bad"
    if held is not None and not (isinstance(held, dict) and isinstance(held.get("study"), str)):
        T.refuse(f"{say}: {marker} is not a study record this rlhost wrote: move it away")
    if held is None:
        if any((out / f).exists() for f in ("summary.json", "checkpoint.safetensors", "config.cfg")):
            T.refuse(f"{say} is a run directory (rlhost run's): give the study a directory of its own")
        if (out / "trials").exists() or (out / "trials.csv").exists():
            T.refuse(
                f"{say} holds a study's trials but no record of which study ({marker}): give study "
                f"'{name}' another --out"
            )
    elif held.get("study") != name or held.get("storage") != me["storage"]:
        T.refuse(
            f"{say} holds study '{held.get('study')}' in {held.get('storage')}; its trials, trials.csv and "
            f"best.cfg stay there: give study '{name}' another --out"
        )
    best = out / "best.cfg"
    if best.exists() and not best.is_file():
        T.refuse(f"{say}: {best} is not a file: move it away (the study writes its best config there)")
    return out


def record(name, url):
    """OUT/tune.json's study: its name and its storage, password masked."""
    return {"study": name, "storage": mask(url, url)}


def claim(out, name, url):
    """Records the study in OUT (an empty OUT: _out_dir checked it) once it is open."""
    marker = out / "tune.json"
    if not marker.exists():
        T.write_atomic(marker, json.dumps(record(name, url)) + "\n")


def storage_url(args, out):
    """The storage's URL, refused with a sentence where it cannot hold a
    study (checked before anything is made)."""
    url = args.storage or f"sqlite:///{(out / 'study.db').resolve()}"
    shown = mask(url, url)
    try:
        import sqlalchemy

        dialect = sqlalchemy.engine.make_url(url).get_dialect()
        dialect.import_dbapi() if hasattr(dialect, "import_dbapi") else dialect.dbapi()
    except ImportError as e:
        mod = e.name or "its database driver"
        T.refuse(
            f"rlhost: tune: --storage {shown} needs the Python module '{mod}', which is not installed: "
            f"pip install {mod}, or name an installed driver in the URL (postgresql+psycopg2://...)"
        )
    except Exception:
        T.refuse(
            f"rlhost: tune: --storage {shown} is not a database URL: give sqlite:////path/study.db "
            "or postgresql://USER@HOST/DB"
        )
    m = re.match(r"sqlite(\+\w+)?://(.*)$", url)
    if m:
        path = m.group(2)
        if path in ("", "/") or ":memory:" in path or "mode=memory" in path:
            T.refuse(
                f"rlhost: tune: --storage {shown} is in memory, and a study must outlive its driver: give a "
                "file, sqlite:////path/to/study.db"
            )
        if path.startswith("/"):
            db = Path(path[1:].split("?")[0])
            parent = db.parent
            if not parent.is_dir():
                T.refuse(f"rlhost: tune: --storage {shown}: {parent} is not a directory")
            if db.exists() and not db.is_file():
                T.refuse(f"rlhost: tune: --storage {shown}: {db} is not a file")
            if not os.access(db if db.exists() else parent, os.W_OK):
                T.refuse(f"rlhost: tune: --storage {shown}: {db if db.exists() else parent} is not writable")
    return url


def retried(make, url):
    """make(), tried 5 times where it lost a race (workers that start
    together race to make the storage's tables and the study, and the loser
    finds them made); any other failure is one sentence."""
    shown = mask(url, url)
    for attempt in range(5):
        try:
            return make()
        except ImportError as e:
            mod = getattr(e.__cause__, "name", None) or e.name or "its database driver"
            T.refuse(
                f"rlhost: tune: --storage {shown} needs the Python module '{mod}', which is not installed: "
                f"pip install {mod}, or name an installed driver in the URL (postgresql+psycopg2://...)"
            )
        except Exception as e:
            kind = type(e).__name__
            msg = " ".join(str(getattr(e, "orig", None) or e).split())
            if kind in ("ArgumentError", "NoSuchModuleError"):
                T.refuse(
                    f"rlhost: tune: --storage {shown} is not a database URL: give sqlite:////path/study.db "
                    "or postgresql://USER@HOST/DB"
                )
            race = kind == "IntegrityError" or "locked" in msg or "already exists" in msg or "duplicate" in msg
            if not race or attempt == 4:
                T.refuse(f"rlhost: tune: cannot use the storage {shown}: {mask(msg, url)[:300]}")
            time.sleep(0.5 + attempt)


def open_storage(optuna, url, heartbeat):
    """The study's RDBStorage: a trial whose worker died (kill -9, a lost
    machine) is failed by the next worker that looks, and enqueued again."""
    kw = {"heartbeat_interval": heartbeat, "grace_period": 3 * heartbeat}
    if hasattr(optuna.storages, "RetryHeartbeatStaleTrialCallback"):  # Optuna >= 4.9
        kw["heartbeat_stale_trial_callback"] = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=3)
    else:
        kw["failed_trial_callback"] = optuna.storages.RetryFailedTrialCallback(max_retry=3)
    if url.startswith("sqlite"):
        kw["engine_kwargs"] = {"connect_args": {"timeout": 60}}
    return retried(lambda: optuna.storages.RDBStorage(url, **kw), url)
