#!/usr/bin/env bash
# rlhost tune end to end: a short study of CartPole PPO that starts from a
# config that does not learn and finds one that reaches 500; both pruners
# stop hopeless trials; a refused trial is recorded with its sentence and
# the study goes on; a study resumes; Ctrl-C and kill -9 of the driver leave
# the storage consistent and no run behind, and the study resumes where it
# was; the Python API with a Gymnasium factory.  (TAP)
# Usage: tune.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" optuna
csv_count() { grep -c ",$2," "$1" 2>/dev/null || true; } # FILE STATE: rows in that state
py() { "$PY" - "$@"; }
no_runs_of() { ! pgrep -f -- "--out $1/trials" >/dev/null; }

# 1. From a config that does not learn (lr 1e-5) to one that reaches 500.
cat > "$T/cp.cfg" <<'CFG'
run: { steps = 40000; seed = 1; eval_episodes = 10; eval_interval = 4000; };
env: { plugin = "cartpole"; num_envs = 8; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 256; lr = 1e-5; hidden = [64, 64]; };
tune: {
  algo: {
    lr = { log_uniform = [1e-5, 3e-3]; };
    n_epochs = { choice = [4, 10]; };
    gamma = { choice = [0.98, 0.99]; };
  };
};
CFG
expect_rc 0 "a 12-trial study, 2 at a time" -- "$RLHOST" tune "$T/cp.cfg" --trials 12 --jobs 2 --out "$T/s1" --startup-trials 3 --seed 1
contains "$T/err" "rlhost tune: best trial" "it names the best trial"
[ "$(grep -c '^[0-9]' "$T/s1/trials.csv")" = 12 ]; ok $? "trials.csv holds the 12 trials"
first=$(sed -n 2p "$T/s1/trials.csv")
case "$first" in 0,complete,*,1e-05,10,0.99) r=0 ;; *) r=1 ;; esac; ok $r "trial 0 is the config as given ($first)"
base=$(echo "$first" | cut -d, -f3)
best=$(sed -n 's/^# rlhost tune: trial \([0-9]*\) .*: \([0-9.]*\)$/\2/p' "$T/s1/best.cfg")
[ "$best" = 500 ]; ok $? "the best trial reaches 500 (best $best, the config as given $base)"
expect_rc 0 "best.cfg runs as it is" -- "$RLHOST" run "$T/s1/best.cfg" --set run.quiet=true --out "$T/best"
grep -q '"eval_return_mean": 500' "$T/best/summary.json"; ok $? "and reaches 500 again, on the same seed"
for f in history.svg params.svg pareto.csv study.db; do [ -s "$T/s1/$f" ]; ok $? "$f written"; done
py "$T/s1/trials.csv" "$T/s1" <<'PY' > "$T/py" 2>&1
import csv, os, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    d = os.path.join(sys.argv[2], "trials", f"{int(r['number']):05d}")
    if r["state"] == "complete":
        assert float(r["wall_s"]) > 0 and int(r["steps"]) == 40000, r
        assert os.path.exists(os.path.join(d, "summary.json")) and os.path.exists(os.path.join(d, "checkpoint.safetensors")), d
print("fine")
PY
contains "$T/py" "fine" "every completed trial is a run directory with its summary, checkpoint, wall time and steps"

# 2. Pruners: trials with lr 1e-7 are stopped early, cleanly.
cat > "$T/pr.cfg" <<'CFG'
run: { steps = 100000; seed = 1; eval_episodes = 5; eval_interval = 10000; };
env: { plugin = "cartpole"; num_envs = 8; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 256; lr = 1e-3; hidden = [64, 64]; };
tune: { algo: { lr = { choice = [1e-3, 1e-7]; }; }; };
CFG
for pr in median halving; do
  expect_rc 0 "pruner $pr" -- "$RLHOST" tune "$T/pr.cfg" --trials 5 --out "$T/p-$pr" --startup-trials 1 --sampler random --seed 1 --pruner $pr
  pruned=$(csv_count "$T/p-$pr/trials.csv" pruned)
  [ "$pruned" -ge 1 ]; ok $? "$pr: hopeless trials pruned ($pruned)"
  awk -F, '$2 == "pruned" && $5 >= 100000 { bad = 1 } END { exit bad }' "$T/p-$pr/trials.csv"; ok $? "$pr: a pruned run stopped before its end"
  awk -F, '$2 == "pruned" && $7 != "1e-07" { bad = 1 } END { exit bad }' "$T/p-$pr/trials.csv"; ok $? "$pr: only the hopeless ones"
done

# 3. A refused trial is recorded with its sentence; the study goes on.
printf 'tune: { algo: { batch_size = { choice = [256, 512]; }; }; };\n' > "$T/bs.cfg"
expect_rc 0 "a study where one choice is refused by the plugin" -- "$RLHOST" tune "$T/pr.cfg" --space "$T/bs.cfg" --trials 4 --out "$T/bs" --sampler random --seed 1 --pruner none --set run.steps=4000
grep -q "fail,.*batch_size 512 is larger than a rollout" "$T/bs/trials.csv"; ok $? "the refused trial's row says why"
[ "$(csv_count "$T/bs/trials.csv" complete)" -ge 1 ]; ok $? "the others completed"

# The config's own value where the space cannot hold it (ent_coef 0 on a
# log scale): the first trial keeps it.
printf 'tune: { algo: { ent_coef = { log_uniform = [1e-8, 0.1]; }; }; };\n' > "$T/ent.cfg"
expect_rc 0 "a log-scale key whose config value is 0" -- "$RLHOST" tune "$T/pr.cfg" --space "$T/ent.cfg" --trials 2 --out "$T/ent" --pruner none --set run.steps=4000
grep -q '^0,complete,.*,$' "$T/ent/trials.csv"; ok $? "the config as given runs with its own ent_coef"

# 4. Resume: 4 trials, then on to 6, in the same directory.
expect_rc 0 "4 trials" -- "$RLHOST" tune "$T/cp.cfg" --trials 4 --out "$T/r" --seed 3 --set run.steps=8000
head -5 "$T/r/trials.csv" > "$T/r4"
expect_rc 0 "on to 6" -- "$RLHOST" tune "$T/cp.cfg" --trials 6 --out "$T/r" --seed 3 --set run.steps=8000
[ "$(grep -c '^[0-9]' "$T/r/trials.csv")" = 6 ]; ok $? "the study holds 6 trials"
head -5 "$T/r/trials.csv" | cmp -s - "$T/r4"; ok $? "the first 4 as they were"
printf 'tune: { algo: { lr = { uniform = [0.001, 0.002]; }; }; };\n' > "$T/other.cfg"
expect_rc 2 "the same study with another space is refused" -- "$RLHOST" tune "$T/cp.cfg" --space "$T/other.cfg" --trials 8 --out "$T/r"
contains "$T/err" "was made with another search space" "and says so"

# 5. Ctrl-C of the driver: runs stop, the trial is failed and enqueued
#    again; the study resumes with it.
long=(--set run.steps=5000000 --set run.eval_interval=50000)
"$RLHOST" tune "$T/cp.cfg" --trials 2 --out "$T/c" --seed 4 "${long[@]}" >/dev/null 2>"$T/cerr" &
pid=$!
for _ in $(seq 300); do [ -e "$T/c/trials/00000/config.cfg" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ]; ok $? "Ctrl-C stops the study (exit $rc, want 130)"
sleep 0.5; no_runs_of "$T/c"; ok $? "no run of the study is left"
contains "$T/cerr" "resumes the study" "it says how to resume"
grep -q '^0,fail,' "$T/c/trials.csv"; ok $? "the interrupted trial is recorded as failed"
expect_rc 0 "the study resumes" -- "$RLHOST" tune "$T/cp.cfg" --trials 1 --out "$T/c" --seed 4 --set run.steps=8000
py "$T/c/study.db" <<'PY' > "$T/py" 2>&1
import sys, optuna
s = optuna.load_study(study_name="cp", storage=f"sqlite:///{sys.argv[1]}")
t = s.trials
assert len(t) == 2 and t[0].state.name == "FAIL" and t[0].user_attrs.get("interrupted"), [(x.state, x.user_attrs) for x in t]
assert t[1].state.name == "COMPLETE" and t[1].params == t[0].params and t[1].user_attrs.get("retry_of") == 0, t[1]
print("fine")
PY
contains "$T/py" "fine" "the interrupted trial ran again with its params, and nothing is left running"

# 6. kill -9 of the driver: its runs die with it; a worker that resumes
#    fails the silent trial after the heartbeat's grace and runs it again.
"$RLHOST" tune "$T/cp.cfg" --trials 1 --out "$T/k" --seed 5 --heartbeat 1 "${long[@]}" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ -e "$T/k/trials/00000/config.cfg" ] && break; sleep 0.1; done
sleep 0.5
kill -9 $pid; wait $pid 2>/dev/null
for _ in $(seq 50); do no_runs_of "$T/k" && break; sleep 0.1; done
no_runs_of "$T/k"; ok $? "kill -9: the driver's runs die with it"
sleep 3.5 # the grace period: 3 heartbeats
expect_rc 0 "a new worker resumes the study" -- "$RLHOST" tune "$T/cp.cfg" --trials 1 --out "$T/k" --seed 5 --heartbeat 1 --set run.steps=8000
py "$T/k/study.db" <<'PY' > "$T/py" 2>&1
import sys, optuna
s = optuna.load_study(study_name="cp", storage=f"sqlite:///{sys.argv[1]}")
t = s.trials
assert [x.state.name for x in t] == ["FAIL", "COMPLETE"], [(x.state, x.user_attrs, x.system_attrs) for x in t]
assert t[1].params == t[0].params, (t[0].params, t[1].params)
print("fine")
PY
contains "$T/py" "fine" "the killed worker's trial failed and ran again; none stuck as running"

# 7. rlhost.tune from Python on a Gymnasium env factory.
RLHOST_LIB_DIR="$(dirname "$(dirname "$RLHOST")")" PYTHONPATH="$SRC/python" py "$T/cp.cfg" "$T/pyt" <<'PY' > "$T/py" 2>&1
import sys, gymnasium as gym, rlhost
r = rlhost.tune(sys.argv[1], trials=4, out=sys.argv[2], env=lambda: gym.make("CartPole-v1"),
                overrides={"run.steps": 8000}, pruner="none", seed=1)
assert r.best_config.exists() and r.best_value > 0, r
assert open(f"{sys.argv[2]}/trials/00000/summary.json").read().count('"env": "py_') == 1
print("fine", r.best_value)
PY
contains "$T/py" "fine" "rlhost.tune(env=factory) tunes a Python env"

echo "1..$n"
[ $failed = 0 ]
