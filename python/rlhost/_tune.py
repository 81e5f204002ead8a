"""rlhost tune CONFIG: Optuna searches the config's hyperparameters, and
every trial is an ordinary `rlhost run` (a run directory under OUT/trials
with its summary, metrics and checkpoint), side by side on the cores.

    rlhost tune configs/cartpole_ppo.cfg --trials 40 --jobs 2 --out runs/tune-cp
    rlhost tune configs/pendulum_ppo.cfg --space space.cfg --seeds 3 --timeout 3600

The space comes from --space FILE, else the config's `tune` group, else
the plugins' declared defaults; `rlhost tune` (C) reads and checks it
against the schemas before the first trial and hands it here as JSON.
The study lives in an Optuna storage (OUT/study.db by default, any URL
with --storage for workers on many machines); a stopped study resumes
where it was.  Reference: docs/tune.md."""

import argparse
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

from . import _stats, _svg
from . import _storage as storage
from . import _trials as T
from ._overrides import as_sets

NEEDS_OPTUNA = (
    "rlhost tune needs Optuna: `pip install optuna` (in this checkout scripts/pydeps.sh puts it "
    "in .venv, which rlhost tune uses)"
)


def _parser():
    ap = argparse.ArgumentParser(
        prog="rlhost tune",
        description="Search a config's hyperparameters with Optuna; each trial is an "
        "ordinary rlhost run under OUT/trials.",
        epilog="Reference: docs/tune.md.",
    )
    ap.add_argument("config", help="the config every trial starts from")
    ap.add_argument("--space-fd", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--print-space", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument(
        "--dry-run",
        action="store_true",
        help="check the space (each value against the schemas, its "
        "extreme settings against the plugins) and exit, making nothing: exit 1 where a setting is refused",
    )
    ap.add_argument(
        "--space",
        metavar="FILE",
        help="the search space (default: the config's tune group, else the plugins' declared spaces)",
    )
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override for every trial")
    ap.add_argument("--plugin-path", action="append", default=[], metavar="DIR", help="look for plugins here first")
    ap.add_argument(
        "--trials",
        type=int,
        default=20,
        metavar="N",
        help="trials in the study, counting earlier sessions' (default 20)",
    )
    ap.add_argument("--timeout", type=float, metavar="SECONDS", help="start no trial after this wall time")
    ap.add_argument("--jobs", type=int, default=1, metavar="J", help="trials side by side (default 1)")
    ap.add_argument("--out", metavar="DIR", help="the study's directory (default runs/tune-CONFIGNAME)")
    ap.add_argument("--storage", metavar="URL", help="Optuna storage URL (default sqlite:///OUT/study.db)")
    ap.add_argument("--study-name", metavar="NAME", help="default: the config's file name")
    ap.add_argument("--seeds", type=int, default=1, metavar="K", help="seeds per trial: run.seed, +1, ... (default 1)")
    ap.add_argument(
        "--objective", choices=["mean", "iqm"], default="mean", help="of the seeds' final greedy returns (default mean)"
    )
    ap.add_argument("--direction", choices=["maximize", "minimize"], default="maximize")
    ap.add_argument("--sampler", choices=["tpe", "random"], default="tpe")
    ap.add_argument("--pruner", choices=["median", "halving", "none"], default="median")
    ap.add_argument(
        "--startup-trials",
        type=int,
        default=5,
        metavar="N",
        help="trials the sampler draws at random and the median pruner never prunes (default 5)",
    )
    ap.add_argument("--seed", type=int, metavar="S", help="the sampler's seed (give each worker its own)")
    ap.add_argument(
        "--eval-interval",
        type=int,
        metavar="STEPS",
        help="intermediate evaluations for the pruner (default: the config's, else steps / 10)",
    )
    ap.add_argument(
        "--cost",
        type=float,
        metavar="SECONDS",
        help="score each run at this wall time: stopped there, its checkpoint evaluated",
    )
    ap.add_argument(
        "--heartbeat",
        type=int,
        default=10,
        metavar="SECONDS",
        help="a trial whose worker is silent for 3x this is failed and retried (default 10)",
    )
    return ap


def _optuna():
    try:
        import optuna
    except ImportError:
        sys.exit(f"rlhost: {NEEDS_OPTUNA}")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", message=".*out of the range.*")
    warnings.filterwarnings("ignore", message=".*is out of range.*")
    warnings.filterwarnings("ignore", message="Heartbeat of storage.*")
    return optuna


def _check_args(args):
    """The numbers that make no study, refused before anything is made."""
    least = [
        ("--trials", args.trials, 1),
        ("--jobs", args.jobs, 1),
        ("--seeds", args.seeds, 1),
        ("--heartbeat", args.heartbeat, 1),
        ("--startup-trials", args.startup_trials, 0),
    ]
    if args.eval_interval is not None:
        least.append(("--eval-interval", args.eval_interval, 1))
    for flag, v, lo in least:
        if v < lo:
            T.refuse(f"rlhost: tune: {flag} {v}: give {'at least 1' if lo else '0 or more'}")
    for flag, v in (("--timeout", args.timeout), ("--cost", args.cost)):
        if v is not None and not (v > 0 and math.isfinite(v)):
            T.refuse(f"rlhost: tune: {flag} {v:g}: give a number of seconds above 0")
    if args.seed is not None and not 0 <= args.seed < 2**32:
        T.refuse(f"rlhost: tune: --seed {args.seed}: give a number in [0, 4294967295]")
    if args.study_name is not None and not args.study_name.strip():
        T.refuse("rlhost: tune: --study-name is empty")


def _space(args, exe, env):
    if args.space_fd is not None:
        with os.fdopen(args.space_fd) as f:
            return json.load(f)
    argv = [exe, "tune", args.config, "--print-space"] + (["--space", args.space] if args.space else [])
    argv += T.set_args(args.set) + T.flags("--plugin-path", args.plugin_path)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        T.refuse(p.stderr.strip() or f"rlhost: {exe} tune --print-space failed")
    return json.loads(p.stdout)


def _number(text, kind):
    v = float(text.rstrip("L"))
    return int(v) if kind == "int" else v


def _base_value(k):
    """The config's own value of a space key as Optuna's parameter, or None
    where the distribution cannot hold it (0 on a log scale): the trial of
    the config as given then leaves that key at the config's value."""
    if k["kind"] == "choice":
        return k["base"]
    try:
        v = _number(k["base"], k.get("type"))
    except ValueError:
        return None
    return None if k.get("log") and v <= 0 else v


def _clamp(space, values):
    """Each at_most key capped at the product of its keys' values in this
    trial (sampled, else the config's), as the RL Zoo's sampler caps PPO's
    batch at its rollout."""
    for k in space["keys"]:
        cap = k.get("at_most")
        if not cap or k["key"] not in values:
            continue
        bound = 1
        for key, base in cap.items():
            bound *= int(float(str(values.get(key, base)).rstrip("L")))
        if int(float(str(values[k["key"]]).rstrip("L"))) > bound:
            values[k["key"]] = str(bound)


def _corners(space):
    """A few extreme settings of the space: every key at its low end, at
    its high end, and each key at one end with the others at the other."""
    ends = []
    for k in space["keys"]:
        if k["kind"] == "choice":
            cs = k["choices"]
            try:
                nums = [float(c.rstrip("L")) for c in cs]
                lo, hi = cs[nums.index(min(nums))], cs[nums.index(max(nums))]
            except ValueError:
                lo, hi = cs[0], cs[-1]
        else:
            fmt = (lambda v: str(int(v))) if k.get("type") == "int" else (lambda v: repr(float(v)))
            lo, hi = fmt(k["low"]), fmt(k["high"])
        ends.append((k["key"], lo, hi))
    out = [{key: lo for key, lo, _ in ends}, {key: hi for key, _, hi in ends}]
    for i in range(len(ends)):
        out.append({key: (hi if j == i else lo) for j, (key, lo, hi) in enumerate(ends)})
        out.append({key: (lo if j == i else hi) for j, (key, lo, hi) in enumerate(ends)})
    seen, uniq = set(), []
    for c in out:
        _clamp(space, c)
        t = tuple(sorted(c.items()))
        if t not in seen:
            seen.add(t)
            uniq.append(c)
    return uniq


def check_corners(args, space, exe, env):
    """Says, before the first trial, when the space can propose a config the
    plugins refuse (the schema checks each value alone; a plugin checks them
    together: PPO's batch against its rollout).  True when none is."""
    for c in _corners(space):
        argv = [exe, "check", args.config] + T.set_args(args.set + [f"{k}={v}" for k, v in c.items()])
        argv += T.flags("--plugin-path", args.plugin_path)
        p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if p.returncode == 2:
            why = (p.stderr.strip().splitlines() or ["refused"])[-1]
            why = re.sub(r"^(rlhost: )?(error: )?", "", why)
            ps = " ".join(f"{k.split('.', 1)[1]}={v}" for k, v in c.items())
            print(
                f"rlhost tune: warning: the space can propose configs the plugins refuse, e.g. ({ps}): {why}; "
                "such trials fail without running and count against --trials (at_most caps a key by others: "
                "docs/tune.md)",
                file=sys.stderr,
                flush=True,
            )
            return False
    return True


class Tuner:
    def __init__(self, args, space, exe, env, launcher=None):
        self.args, self.space, self.exe, self.env = args, space, exe, env
        self.launcher = launcher  # rlhost.tune(env=...): runs in forked children instead of the executable
        self.optuna = optuna = _optuna()
        name = args.study_name or Path(args.config).stem
        per_trial = space.get("replicas", 1) or 1
        if args.jobs * per_trial > T.cores():
            T.refuse(
                f"rlhost: tune: --jobs {args.jobs} would run {args.jobs} trials of {per_trial} "
                f"core(s) each on {T.cores()} cores: at most --jobs {max(1, T.cores() // per_trial)}"
            )
        if args.storage:  # a server's is opened before OUT is made
            self.storage = self._open_storage(storage.storage_url(args, None))
        self.out = storage.out_dir(args, name, args.storage or "")
        if not args.storage:
            self.storage = self._open_storage(storage.storage_url(args, self.out))
        url = self.url
        self.lock = threading.Lock()
        self.stop = T.Stop()
        self.t0 = time.monotonic()
        self.best_number = None
        for k in space["keys"]:  # a choice always offers the config's own value
            if k["kind"] == "choice" and k["base"] not in k["choices"]:
                k["choices"] = [k["base"]] + k["choices"]
        if args.sampler == "tpe":
            sampler = optuna.samplers.TPESampler(seed=args.seed, n_startup_trials=args.startup_trials)
        else:
            sampler = optuna.samplers.RandomSampler(seed=args.seed)
        pruner = {
            "median": lambda: optuna.pruners.MedianPruner(n_startup_trials=args.startup_trials),
            "halving": lambda: optuna.pruners.SuccessiveHalvingPruner(),
            "none": lambda: optuna.pruners.NopPruner(),
        }[args.pruner]()
        self.study = storage.retried(
            lambda: optuna.create_study(
                study_name=name,
                storage=self.storage,
                sampler=sampler,
                pruner=pruner,
                direction=args.direction,
                load_if_exists=True,
            ),
            url,
        )
        keys = [{k: v for k, v in e.items() if k != "where"} for e in space["keys"]]
        old = self.study.user_attrs.get("space")
        if old is not None and old != keys:
            T.refuse(
                f"rlhost: study '{name}' in {storage.mask(url, url)} was made with another search space: give it "
                "another --study-name or --out"
            )
        storage.claim(self.out, name, args.storage or "")
        if old is None:
            self.study.set_user_attr("space", keys)
            self.study.set_user_attr("config", os.path.abspath(args.config))
        if not self.study.trials:  # the config as given comes first: the best is never worse
            base = {k["key"]: v for k in space["keys"] if (v := _base_value(k)) is not None}
            self.study.enqueue_trial(base, user_attrs={"as_given": True})
        # one core per trial: one env thread, one BLAS thread (T.command), the
        # config's replicas (each a core; "auto" becomes 1)
        self.forced = ["env.optimizations.threads=1"]
        self.cores_per_trial = space.get("replicas", 1) or 1
        if space.get("replicas", 1) == 0:
            self.forced.append("run.replicas=1")
        if space.get("eval_episodes", 1) == 0:
            self.forced.append("run.eval_episodes=10")
        interval = args.eval_interval or space.get("eval_interval") or 0
        if not interval and args.pruner != "none":
            interval = max(space["steps"] // 10, 1)
        if interval and interval != space.get("eval_interval"):
            self.forced.append(f"run.eval_interval={interval}")

    def _open_storage(self, url):
        self.url = url
        return storage.open_storage(self.optuna, url, self.args.heartbeat)

    # -- one trial -------------------------------------------------------------
    def _suggest(self, trial, k):
        key = k["key"]
        if k["kind"] == "choice":
            return trial.suggest_categorical(key, k["choices"])
        if k["kind"] == "int":
            return str(trial.suggest_int(key, int(k["low"]), int(k["high"]), log=k["log"]))
        v = trial.suggest_float(key, k["low"], k["high"], log=k["log"])
        return str(int(round(v))) if k.get("type") == "int" else repr(float(v))

    def _run_dir(self, number, seed):
        d = self.out / "trials" / f"{number:05d}"
        return d / f"seed-{seed}" if self.args.seeds > 1 else d

    def _count(self):
        """Trials that count against --trials: all but the waiting ones and
        those failed by an interruption (they run again)."""
        S = self.optuna.trial.TrialState
        n = 0
        for t in self.study.get_trials(deepcopy=False):
            if t.state == S.WAITING or (t.state == S.FAIL and "error" not in t.user_attrs):
                continue
            n += 1
        return n

    def trial(self, trial):
        S = self.optuna.trial.TrialState
        params, values = {}, {}  # the --set ones; every key's value, for the conditions
        as_given = trial.user_attrs.get("as_given")
        for k in self.space["keys"]:
            w = k.get("when")
            if w and values.get(w["key"]) not in w["in"]:
                continue
            if as_given and _base_value(k) is None:
                values[k["key"]] = k["base"]  # the config's value, which the space cannot express
                continue
            params[k["key"]] = values[k["key"]] = self._suggest(trial, k)
        _clamp(self.space, params)
        sets = self.args.set + [f"{k}={v}" for k, v in params.items()] + self.forced
        trial.set_user_attr("sets", sets)
        trial.set_user_attr("values", params)
        # a tuned run.seed is the trial's first seed (the driver's own would replace it)
        base_seed = int(params["run.seed"]) if "run.seed" in params else self.space.get("seed", 1)
        steps_span = self.space["steps"] + 1
        scores, wall, steps = [], 0.0, 0
        last_beat = [0.0]

        def beat():
            if time.monotonic() - last_beat[0] > self.args.heartbeat:
                self.storage.record_heartbeat(trial._trial_id)
                last_beat[0] = time.monotonic()

        for s in range(self.args.seeds):
            seed = base_seed + s
            d = self._run_dir(trial.number, seed)
            log = self.out / "logs" / f"{trial.number:05d}-seed-{seed}.log"
            argv = [self.exe, "run", self.args.config] + T.set_args(sets + [f"run.seed={seed}"])
            argv += ["--out", str(d), "--force"] + T.flags("--plugin-path", self.args.plugin_path)
            spawn = self.launcher(sets + [f"run.seed={seed}", f"run.out_dir={d}"]) if self.launcher else None
            run = T.Run(argv, d, log, self.env, spawn)

            def on_eval(step, value, off=s * steps_span):
                if not math.isfinite(value):
                    return False
                trial.report(value, off + step)
                return self.args.pruner != "none" and trial.should_prune()

            rc = T.watch(run, on_eval, self.stop, self.args.cost, beat)
            wall += run.elapsed()
            steps += int(run.summary().get("steps") or 0)
            trial.set_user_attr("wall_s", round(wall, 3))
            trial.set_user_attr("steps", steps)
            if run.stopped_by == "pruned":
                return self._tell(trial, S.PRUNED, f"pruned at step {steps}")
            if run.stopped_by == "interrupted":
                self.study.enqueue_trial(trial.params, user_attrs={"retry_of": trial.number})
                trial.set_user_attr("interrupted", True)
                return self._tell(trial, S.FAIL, "interrupted: it runs again when the study resumes")
            if run.stopped_by == "budget":
                try:
                    scores.append(T.evaluate(self.exe, self.env, d, None))
                except RuntimeError as e:
                    trial.set_user_attr("error", str(e))
                    return self._tell(trial, S.FAIL, str(e))
                continue
            if rc != 0:
                err = run.error()
                trial.set_user_attr("error", err)
                return self._tell(trial, S.FAIL, err)
            score = run.summary().get("eval_return_mean")
            if score is None or not math.isfinite(score):
                err = f"{d}: the run ended without a final evaluation"
                trial.set_user_attr("error", err)
                return self._tell(trial, S.FAIL, err)
            scores.append(score)
        trial.set_user_attr("seed_scores", scores)
        value = _stats.iqm(scores) if self.args.objective == "iqm" else float(sum(scores) / len(scores))
        return self._tell(trial, S.COMPLETE, None, float(value))

    def _tell(self, trial, state, note, value=None):
        S = self.optuna.trial.TrialState
        if state == S.COMPLETE:
            self.study.tell(trial, value)
        else:
            self.study.tell(trial, state=state)
        ps = " ".join(f"{k.split('.', 1)[1]}={v}" for k, v in trial.params.items())
        what = f"{value:.6g}" if state == S.COMPLETE else note
        print(f"rlhost tune: trial {trial.number}: {what}  ({ps})", file=sys.stderr, flush=True)
        with self.lock:
            self.write_outputs()

    # -- the workers ---------------------------------------------------------------
    def work(self, i):
        while not self.stop():
            with self.lock:
                if self.args.timeout and time.monotonic() - self.t0 > self.args.timeout:
                    return
                # a dead worker's trial fails (and is enqueued again) before the count
                self.optuna.storages.fail_stale_trials(self.study)
                S = self.optuna.trial.TrialState
                waiting = any(t.state == S.WAITING for t in self.study.get_trials(deepcopy=False))
                if self._count() >= self.args.trials and not waiting:
                    return
                trial = self.study.ask()
            try:
                self.trial(trial)
            except Exception as e:  # a bug here must not leave the trial running forever
                try:
                    trial.set_user_attr("error", f"{type(e).__name__}: {e}")
                    self.study.tell(trial, state=self.optuna.trial.TrialState.FAIL)
                except Exception:
                    pass
                print(
                    f"rlhost tune: trial {trial.number} failed in the driver: {type(e).__name__}: {e}", file=sys.stderr
                )

    def run(self):
        if self.launcher is None:
            check_corners(self.args, self.space, self.exe, self.env)
        print(
            f"rlhost tune: {self.space['algo']} on {self.space['env']}, {len(self.space['keys'])} keys "
            f"from {self.space['source']}, {self.args.trials} trials, {self.args.jobs} at a time -> {self.out}",
            file=sys.stderr,
            flush=True,
        )
        rc = T.run_workers(self.args.jobs, self.work, self.stop)
        with self.lock:
            self.write_outputs()
        S = self.optuna.trial.TrialState
        done = [t for t in self.study.get_trials(deepcopy=False) if t.state == S.COMPLETE]
        if rc:
            again = shlex.join(["rlhost", "tune"] + self.argv)
            print(f"rlhost tune: stopped; `{again}` resumes the study", file=sys.stderr)
            return rc
        if not done:
            print("rlhost tune: no trial completed (see trials.csv for why)", file=sys.stderr)
            return 1
        b = self.study.best_trial
        print(f"rlhost tune: best trial {b.number}: {b.value:.6g} -> {self.out / 'best.cfg'}", file=sys.stderr)
        return 0

    # -- outputs -----------------------------------------------------------------------
    def write_outputs(self):
        S = self.optuna.trial.TrialState
        trials = self.study.get_trials(deepcopy=False)
        keys = [k["key"] for k in self.space["keys"]]
        rows = []
        for t in trials:
            ran = t.user_attrs.get("values") or t.params  # after at_most's caps
            rows.append(
                [
                    t.number,
                    t.state.name.lower(),
                    "" if t.value is None else repr(t.value),
                    t.user_attrs.get("wall_s", ""),
                    t.user_attrs.get("steps", ""),
                    storage.mask(t.user_attrs.get("error", ""), self.args.storage),
                ]
                + [ran.get(k, "") for k in keys]
            )
        T.write_csv(self.out / "trials.csv", ["number", "state", "value", "wall_s", "steps", "error"] + keys, rows)
        done = [t for t in trials if t.state == S.COMPLETE and t.value is not None]
        if not done:
            return
        sign = 1 if self.args.direction == "maximize" else -1
        # the Pareto front of score against wall time
        front, best = [], -math.inf
        for t in sorted(done, key=lambda t: (t.user_attrs.get("wall_s", 0), -sign * t.value)):
            if sign * t.value > best:
                best = sign * t.value
                front.append([t.number, repr(t.value), t.user_attrs.get("wall_s", "")])
        T.write_csv(self.out / "pareto.csv", ["number", "value", "wall_s"], front)
        b = max(done, key=lambda t: sign * t.value)
        if b.number != self.best_number:
            self._best_cfg(b)
        hist, best_line, cur = [], [], None
        for t in sorted(done, key=lambda t: t.number):
            hist.append((t.number, t.value))
            cur = t.value if cur is None else (max(cur, t.value) if sign > 0 else min(cur, t.value))
            best_line.append((t.number, cur))
        _svg.write(
            self.out / "history.svg",
            [
                _svg.panel(
                    "trials",
                    "trial",
                    "objective",
                    [
                        {"label": "trial", "points": hist, "style": "dots"},
                        {"label": "best so far", "points": best_line},
                    ],
                )
            ],
            cols=1,
        )
        panels = []
        for k in self.space["keys"]:
            key = k["key"]
            pts = [(t.params[key], t.value) for t in done if key in t.params]
            if k["kind"] == "choice":
                cats = k["choices"]
                pts = [(cats.index(x), y) for x, y in pts if x in cats]
                panels.append(_svg.panel(key, key, "objective", [{"points": pts, "style": "dots"}], categories=cats))
            else:
                panels.append(
                    _svg.panel(key, key, "objective", [{"points": pts, "style": "dots"}], xlog=bool(k.get("log")))
                )
        _svg.write(self.out / "params.svg", panels)

    def _best_cfg(self, b):
        """The config with the trial's settings, resolved by `rlhost check`
        (so it runs as is: the trial's run minus its directory)."""
        name = Path(self.args.config).stem
        argv = [self.exe, "check", self.args.config] + T.set_args(b.user_attrs.get("sets", []))
        argv += ["--set", f'run.out_dir="runs/{name}-tuned"']
        argv += T.flags("--plugin-path", self.args.plugin_path)
        p = subprocess.run(argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            print(f"rlhost tune: best.cfg not written: {p.stderr.strip()}", file=sys.stderr)
            return
        ps = ", ".join(f"{k} = {v}" for k, v in (b.user_attrs.get("values") or b.params).items())
        seeds = b.user_attrs.get("seed_scores", [])
        head = [
            f"# rlhost tune: trial {b.number} of study '{self.study.study_name}', "
            f"{self.args.objective} over {len(seeds)} seed(s): {b.value:.6g}",
            f"# from {self.args.config}; tuned: {ps}",
            f"# seeds' final greedy returns: {', '.join(f'{s:.6g}' for s in seeds)}",
        ]
        best, marker = self.out / "best.cfg", self.out / "tune.json"
        try:
            record = json.loads(marker.read_text())
            record = record if isinstance(record, dict) else {}
        except (OSError, ValueError):  # moved or damaged while the study ran: written again
            record = storage.record(self.study.study_name, self.args.storage or "")
        try:
            now = hashlib.sha256(best.read_bytes()).hexdigest()
        except FileNotFoundError:
            now = None
        if now and now != record.get("best_sha256"):  # edited by hand since the study wrote it: kept
            k = 1
            while (kept := self.out / f"best.edited-{k}.cfg").exists():
                k += 1
            os.replace(best, kept)
            print(f"rlhost tune: {best} was edited since the study wrote it: kept as {kept}", file=sys.stderr)
        text = "\n".join(head) + "\n" + p.stdout
        T.write_atomic(best, text)
        record["best_sha256"] = hashlib.sha256(text.encode()).hexdigest()
        T.write_atomic(marker, json.dumps(record) + "\n")
        self.best_number = b.number


def main(argv=None, launcher=None, result=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser().parse_args(argv)
    _check_args(args)
    stderr = sys.stderr
    if args.storage:  # nothing the driver prints shows the storage's password
        sys.stderr = storage.Masked(stderr, args.storage)
    try:
        return _main(argv, args, launcher, result)
    finally:
        sys.stderr = stderr


def _main(argv, args, launcher, result):
    exe, env = T.command()
    space = _space(args, exe, env)
    if args.print_space:
        print(json.dumps(space))
        return 0
    if args.dry_run:
        good = check_corners(args, space, exe, env)
        if good:
            print(
                f"rlhost tune: {len(space['keys'])} keys from {space['source']}: every value and every extreme "
                "setting accepted",
                file=sys.stderr,
            )
        return 0 if good else 1

    tuner = Tuner(args, space, exe, env, launcher)
    # the arguments that resume it: as given, less the space's hand-over
    tuner.argv = [a for i, a in enumerate(argv) if a != "--space-fd" and (i == 0 or argv[i - 1] != "--space-fd")]
    tuner.argv = [storage.mask(a, args.storage) for a in tuner.argv]
    if args.out is None:
        tuner.argv += ["--out", str(tuner.out)]
    if result is not None:
        result.append(tuner)
    return tuner.run()


class TuneResult:
    """What rlhost.tune returns: the best trial's value, params and config
    (best.cfg), the study directory, and the Optuna study itself."""

    def __init__(self, tuner):
        self.out = tuner.out
        self.study = tuner.study
        b = tuner.study.best_trial
        self.best_value, self.best_params, self.best_number = b.value, dict(b.params), b.number
        self.best_config = tuner.out / "best.cfg"

    def __repr__(self):
        return f"TuneResult(best_value={self.best_value!r}, best_params={self.best_params!r}, out={str(self.out)!r})"


def _forked(config, env, eval_env):
    """A launcher for rlhost.tune(env=...): each run is rlhost.run in a
    forked child (the env is Python, in this process)."""
    import multiprocessing as mp

    ctx = mp.get_context("fork")

    def child(log_fd, overrides):
        os.dup2(log_fd, 1)
        os.dup2(log_fd, 2)
        T._die_with_parent()
        code = 0
        try:
            from .train import run

            run(config, force=True, overrides=overrides, env=env, eval_env=eval_env)
        except KeyboardInterrupt:
            code = 143
        except BaseException as e:  # the child's one sentence, where the driver reads it
            print(f"rlhost: error: {e}", file=sys.stderr)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    class Child:
        def __init__(self, p):
            self.p = p

        @property
        def returncode(self):
            c = self.p.exitcode
            return 128 - c if c is not None and c < 0 else c

        def poll(self):
            return self.returncode

        def send_signal(self, sig):
            os.kill(self.p.pid, sig)

        def wait(self):
            self.p.join()
            return self.returncode

    def launcher(sets):
        overrides = dict(s.split("=", 1) for s in sets)

        def spawn(logf):
            p = ctx.Process(target=child, args=(logf.fileno(), overrides), daemon=False)
            p.start()
            return Child(p)

        return spawn

    return launcher


def tune(
    config,
    trials: int = 20,
    jobs: int = 1,
    out=None,
    space=None,
    env=None,
    eval_env=None,
    overrides=None,
    **options,
) -> TuneResult:
    """Tunes CONFIG as `rlhost tune` does and returns the best trial.
    options are the command's, with "_" for "-": seeds=3, pruner="halving",
    storage="postgresql://...", timeout=3600, objective="iqm", seed=1.
    space= a space file; overrides= {"run.steps": 50000} for every trial.
    env= tunes on your own env (a Gymnasium env factory, as rlhost.run
    takes; the config's env plugin is still what the space's env keys are
    checked against): every trial then runs rlhost.run in a forked child.
    A refused space raises RlhostError; Ctrl-C stops the study (it
    resumes) and raises KeyboardInterrupt."""
    from .train import _config_path

    config = _config_path(config, False)
    argv = [os.fspath(config), "--trials", str(trials), "--jobs", str(jobs)]
    if out is not None:
        argv += ["--out", os.fspath(out)]
    if space is not None:
        argv += ["--space", os.fspath(space)]
    for s in as_sets(overrides):
        argv += ["--set", s]
    for k, v in options.items():
        argv += [f"--{k.replace('_', '-')}", str(v)]
    launcher = _forked(config, env, eval_env) if env is not None else None
    result = []
    T.api_call(
        lambda: main(argv, launcher, result),
        "tune",
        lambda: f"rlhost tune: no trial completed (see {result[0].out / 'trials.csv'})",
    )
    return TuneResult(result[0])


if __name__ == "__main__":
    sys.exit(T.cli(main))
