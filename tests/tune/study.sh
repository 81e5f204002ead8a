#!/usr/bin/env bash
# rlhost study end to end: seeds of two configs side by side, the report's
# statistics equal rliable's own on the same scores (study_rliable.py), the
# outputs written, and a study killed (kill -9, Ctrl-C) then started again
# ends identical to one never stopped.  (TAP)
# Usage: study.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" rliable.library

for lr in 1e-3 3e-4; do
  printf 'run: { steps = 20000; seed = 1; eval_episodes = 5; eval_interval = 4000; };\nenv: { plugin = "cartpole"; num_envs = 8; };\nalgo: { plugin = "ppo"; n_steps = 32; batch_size = 256; lr = %s; };\n' $lr > "$T/lr$lr.cfg"
done
args=("$T/lr1e-3.cfg" "$T/lr3e-4.cfg" --seeds 6 --reps 5000 --seed 3 --jobs 2)
expect_rc 0 "a study of 2 configs x 6 seeds" -- "$RLHOST" study "${args[@]}" --out "$T/s1"
contains "$T/out" "| lr1e-3 |" "the table names each config"
for f in report.md report.json scores.csv intervals.svg profiles.svg curves.svg; do [ -s "$T/s1/$f" ]; ok $? "$f written"; done
[ "$(ls -d "$T"/s1/runs/*/seed-* | wc -l)" = 12 ]; ok $? "12 run directories"
py_tap "rliable: " "$SRC/.venv/bin/python" "$SRC/tests/tune/study_rliable.py" "$T/s1"
"$SRC/.venv/bin/python" - "$T/s1/report.json" <<'PY' > "$T/py" 2>&1
import json, sys
r = json.load(open(sys.argv[1]))
for lab, c in r["configs"].items():
    assert len(c["curve"]) == 5 and [p["step"] for p in c["curve"]] == [4000, 8000, 12000, 16000, 20000], c["curve"]
    assert all(p["ci"][0] <= p["iqm"] <= p["ci"][1] for p in c["curve"]), c["curve"]
print("fine")
PY
contains "$T/py" "fine" "learning curves: an IQM with its band at every evaluation step"

# Killed half-way, then the same command: the same study.
"$RLHOST" study "${args[@]}" --out "$T/s2" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 300); do [ "$(grep -l '"status": "done"' "$T"/s2/runs/*/seed-*/summary.json 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
sleep 0.5
! pgrep -f -- "--out $T/s2/runs" >/dev/null; ok $? "kill -9: the study's runs die with it"
expect_rc 0 "the same command finishes the study" -- "$RLHOST" study "${args[@]}" --out "$T/s2"
cmp -s "$T/s1/scores.csv" "$T/s2/scores.csv"; ok $? "scores identical to the study never stopped"
cmp -s "$T/s1/report.json" "$T/s2/report.json"; ok $? "report.json identical"
"$RLHOST" study "${args[@]}" --out "$T/s3" >/dev/null 2>"$T/cerr" &
pid=$!
for _ in $(seq 300); do [ "$(grep -l '"status": "done"' "$T"/s3/runs/*/seed-*/summary.json 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ]; ok $? "Ctrl-C stops the study (exit $rc, want 130)"
expect_rc 0 "and the same command finishes it" -- "$RLHOST" study "${args[@]}" --out "$T/s3"
cmp -s "$T/s1/report.json" "$T/s3/report.json"; ok $? "report.json identical to the study never stopped"

expect_rc 2 "a refused config stops the study before any run" -- "$RLHOST" study "$T/lr1e-3.cfg" --seeds 2 --set algo.lr=9 --out "$T/bad"
[ ! -e "$T/bad/runs" ]; ok $? "nothing ran"
expect_rc 2 "--seeds is required" -- "$RLHOST" study "$T/lr1e-3.cfg" --out "$T/bad"

# From Python: the report as a dict; a refused config raises with its line.
RLHOST_LIB_DIR="$(dirname "$(dirname "$RLHOST")")" PYTHONPATH="$SRC/python" "$SRC/.venv/bin/python" - "$T" <<'PY' > "$T/py" 2>&1
import sys, rlhost
T = sys.argv[1]
r = rlhost.study([f"{T}/lr1e-3.cfg", f"{T}/lr3e-4.cfg"], seeds=2, out=f"{T}/api", reps=100, labels=["a", "b"])
assert list(r["configs"]) == ["a", "b"] and len(r["configs"]["a"]["scores"]) == 2, r["configs"].keys()
assert "a,b" in r["probability_of_improvement"]
try:
    rlhost.study([f"{T}/lr1e-3.cfg"], seeds=2, out=f"{T}/api2", overrides={"algo.lr": 9})
    raise SystemExit("no error")
except rlhost.RlhostError as e:
    assert "algo.lr" in str(e), e
print("fine")
PY
contains "$T/py" "fine" "rlhost.study returns the report; a refused config raises RlhostError naming the key"

echo "1..$n"
[ $failed = 0 ]
