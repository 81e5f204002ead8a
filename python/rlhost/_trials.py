"""Runs of the rlhost executable, started and watched from Python: every
trial of `rlhost tune` and every seed of `rlhost study` is an ordinary
`rlhost run` with its own run directory.

A run is stopped with SIGTERM (it writes its checkpoint and outputs, then
exits 143) and dies with the thread that started it (PR_SET_PDEATHSIG):
a driver killed with kill -9 leaves no run behind."""

import csv
import ctypes
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    try:
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass


def command():
    """(the rlhost executable, the environment its runs get): the one
    that started this driver (RLHOST_EXE), a build tree's (RLHOST_LIB_DIR)
    or the installed package's."""
    env = dict(os.environ)
    env["OPENBLAS_NUM_THREADS"] = "1"  # one core per run unless the config says otherwise
    exe = os.environ.get("RLHOST_EXE")
    if exe:
        return exe, env
    build = os.environ.get("RLHOST_LIB_DIR")
    if build:
        return str(Path(build) / "core" / "rlhost"), env
    from ._native import package_lib

    _, _, exe, dirs = package_lib()
    extra = env.get("RLHOST_PLUGIN_PATH")
    env["RLHOST_PLUGIN_PATH"] = ":".join(dirs + ([extra] if extra else []))
    return str(exe), env


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def flags(flag, items):
    """["--set", "a=1", "--set", "b=2"] from ("--set", ["a=1", "b=2"])."""
    out = []
    for s in items:
        out += [flag, s]
    return out


def set_args(items):
    return flags("--set", items)


def write_atomic(path, text):
    """Writes a whole output file, or leaves the old one: a study killed
    mid-write never leaves half a report."""
    tmp = f"{path}.tmp"
    with open(tmp, "w", newline="") as f:
        f.write(text)
    os.replace(tmp, path)


def write_csv(path, header, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    write_atomic(path, out.getvalue())


def periodic_evals(run_dir):
    """[(step, mean return)] of a run directory's periodic evaluations
    (evals.csv's rows with final 0; complete lines only, as a run may be
    writing it)."""
    try:
        text = (Path(run_dir) / "evals.csv").read_text()
    except (OSError, UnicodeDecodeError):
        return []
    out = []
    for r in csv.DictReader(io.StringIO(text[: text.rfind("\n") + 1])):
        try:
            if r.get("final") == "0":
                out.append((int(r["step"]), float(r["return_mean"])))
        except (TypeError, ValueError):
            pass
    return out


class Run:
    """One `rlhost run` (or `--resume`) in the background, its output in
    log, its periodic evaluations read as they are written."""

    def __init__(self, argv, out_dir, log, env, spawn=None):
        self.out_dir = Path(out_dir)
        self.log_path = Path(log)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._seen = 0
        self.t0 = time.monotonic()
        self.stopped_by = None
        with open(self.log_path, "wb") as f:
            if spawn:
                self.proc = spawn(f)
            else:
                self.proc = subprocess.Popen(
                    argv,
                    stdin=subprocess.DEVNULL,
                    stdout=f,
                    stderr=subprocess.STDOUT,
                    env=env,
                    preexec_fn=_die_with_parent,
                )

    def running(self):
        return self.proc.poll() is None

    def elapsed(self):
        return time.monotonic() - self.t0

    def new_evals(self):
        """[(step, mean return)] of the periodic evaluations written since
        the last call."""
        evs = periodic_evals(self.out_dir)
        new, self._seen = evs[self._seen :], len(evs)
        return new

    def stop(self, why):
        if self.running():
            self.stopped_by = self.stopped_by or why
            try:
                self.proc.send_signal(signal.SIGTERM)
            except ProcessLookupError:
                pass

    def wait(self):
        return self.proc.wait()

    def summary(self):
        try:
            with open(self.out_dir / "summary.json") as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def error(self):
        """The run's own sentence for why it failed: its last line saying
        error, else its last line."""
        try:
            lines = [ln for ln in self.log_path.read_text(errors="replace").splitlines() if ln.strip()]
        except OSError:
            return "no output"
        for ln in reversed(lines):
            if "error" in ln or ln.startswith("rlhost:"):
                return ln.strip()
        return lines[-1].strip() if lines else f"exit status {self.proc.returncode}"


def watch(run, on_eval=None, should_stop=None, budget_s=None, tick=None, period=0.1):
    """Waits for run, calling on_eval(step, value) for each periodic
    evaluation (a True answer stops the run: "pruned"), should_stop() and
    tick() each period (a True answer of should_stop stops it:
    "interrupted"), and stopping it at budget_s seconds ("budget")."""
    while run.running():
        for step, value in run.new_evals():
            if on_eval and on_eval(step, value):
                run.stop("pruned")
        if should_stop and should_stop():
            run.stop("interrupted")
        if budget_s and run.elapsed() > budget_s:
            run.stop("budget")
        if tick:
            tick()
        time.sleep(period)
    if on_eval:
        for step, value in run.new_evals():
            on_eval(step, value)
    return run.wait()


def evaluate(exe, env, run_dir, episodes):
    """The greedy evaluation of a run directory's checkpoint (the score of
    a run stopped at its wall budget)."""
    argv = [exe, "eval", str(run_dir), "--json"] + (["--episodes", str(episodes)] if episodes else [])
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "rlhost eval failed")
    return json.loads(p.stdout)["return_mean"]


class Refused(SystemExit):
    """A usage or config error: one line, exit 2 (as the C commands)."""

    def __init__(self, msg):
        super().__init__(2)
        self.msg = msg


def refuse(msg):
    raise Refused(msg)


def cli(main):
    """Runs a driver's main as a command: a refusal is its line and exit 2."""
    try:
        return main()
    except Refused as e:
        print(e.msg, file=sys.stderr)
        return 2


def api_call(run, name, failed):
    """A driver's main for the Python API: a refusal raises RlhostError with
    its line, a stop KeyboardInterrupt, a failure RlhostError(failed())."""
    from ._native import RlhostError

    try:
        rc = run()
    except Refused as e:
        raise RlhostError(e.msg) from None
    if rc in (130, 143):
        raise KeyboardInterrupt(f"rlhost {name}: stopped; the same call resumes it")
    if rc != 0:
        raise RlhostError(failed())


class Stop:
    """The stop flag every worker reads: set by Ctrl-C or SIGTERM."""

    def __init__(self):
        self.event = threading.Event()
        self.signal = None

    def __call__(self):
        return self.event.is_set()

    def set(self, sig):
        self.signal = self.signal or sig
        self.event.set()


def run_workers(n, work, stop):
    """Runs work(worker_index) on n threads until they return; Ctrl-C or
    SIGTERM sets stop and waits for the workers to wind down.  Returns the
    exit code the signal asks for (130, 143) or 0."""
    threads = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(n)]
    # both installed, not inherited: a driver started in the background of a
    # script has SIGINT ignored, and must still stop on it
    prev = [
        signal.signal(signal.SIGTERM, lambda *_: stop.set(signal.SIGTERM)),
        signal.signal(signal.SIGINT, lambda *_: stop.set(signal.SIGINT)),
    ]
    try:
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            try:
                for t in threads:
                    t.join(0.2)
            except KeyboardInterrupt:
                stop.set(signal.SIGINT)
    finally:
        signal.signal(signal.SIGTERM, prev[0])
        signal.signal(signal.SIGINT, prev[1])
    return 128 + stop.signal if stop.signal else 0
