#!/usr/bin/env bash
# rlhost tune against a hostile user: numbers that make no study, storages
# and output directories that cannot hold one, two studies on one --out, a
# tuned seed, a space the plugins refuse in combination, a 12,000-value
# choice, an edited best.cfg and the resume hint after Ctrl-C.  Each is one
# sentence (exit 2 before anything is made) or handled, nothing lost.  (TAP)
# Usage: tune_hostile.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$(realpath "$1") SRC=$(realpath "$2")
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" optuna
cd "$T" || exit 1
one_line() { [ "$(grep -c . "$T/err")" = 1 ] && ! grep -q Traceback "$T/err"; ok $? "$1: one sentence ($(head -c 300 "$T/err"))"; }

cat > cp.cfg <<'CFG'
run: { steps = 4000; seed = 1; eval_episodes = 3; eval_interval = 2000; };
env: { plugin = "cartpole"; num_envs = 4; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 64; lr = 1e-3; hidden = [16]; };
tune: { algo: { lr = { log_uniform = [1e-4, 3e-3]; }; }; };
CFG

# 1. Numbers, storages and directories that make no study: refused before
#    anything is made.
while IFS='|' read -r what args; do
  # shellcheck disable=SC2086
  expect_rc 2 "$what" -- timeout 20 "$RLHOST" tune cp.cfg --out o $args
  one_line "$what"
  [ ! -e o ]; ok $? "$what: nothing made"
done <<'CASES'
--trials 0|--trials 0
--jobs 0|--jobs 0
--seeds 0|--seeds 0
--timeout -1|--timeout -1
--eval-interval -5|--eval-interval -5
--cost -1|--cost -1
--heartbeat 0|--heartbeat 0
--startup-trials -1|--startup-trials -1
--seed -1|--seed -1
a storage that is no URL|--storage foo
an in-memory SQLite|--storage sqlite://
an in-memory SQLite by name|--storage sqlite:///:memory:
a SQLite file under a file|--storage sqlite:////etc/passwd/x.db
a SQLite file in a missing directory|--storage sqlite:////nonexistent-dir/x.db
a driver that is not installed|--storage mssql+pymssql://rl:Sup3rSecretPw@127.0.0.1/db
a refused PostgreSQL|--storage postgresql+psycopg2://rl:Sup3rSecretPw@127.0.0.1:1/postgres
CASES
grep -q Sup3rSecretPw "$T/err"; [ $? = 1 ]; ok $? "the password is not printed"
touch file
ln -s nowhere dangling
ln -s loop1 loop2 && ln -s loop2 loop1
for o in file dangling loop1; do
  expect_rc 2 "--out $o" -- "$RLHOST" tune cp.cfg --out $o
  one_line "--out $o"
done
expect_rc 0 "a run directory" -- "$RLHOST" run cp.cfg --out rundir --set run.quiet=true
expect_rc 2 "--out a run directory" -- "$RLHOST" tune cp.cfg --out rundir
contains "$T/err" "is a run directory" "says so"
[ ! -e rundir/trials ] && [ ! -e rundir/study.db ]; ok $? "and adds nothing beside the run's files"

# 2. Two studies on one --out: the second is refused; the first's trials
#    stay as they were.
expect_rc 0 "study A" -- "$RLHOST" tune cp.cfg --out s --study-name A --trials 2 --pruner none
sum_a=$(cd s && find trials trials.csv best.cfg -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)
printf 'tune: { algo: { n_epochs = { choice = [2, 4]; }; }; };\n' > other.cfg
expect_rc 2 "study B on A's --out" -- "$RLHOST" tune cp.cfg --out s --study-name B --space other.cfg --trials 2
contains "$T/err" "holds study 'A'" "names the other study"
one_line "study B on A's --out"
[ "$(cd s && find trials trials.csv best.cfg -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum)" = "$sum_a" ]
ok $? "A's trials, trials.csv and best.cfg are as they were"
expect_rc 0 "study A goes on in its --out" -- "$RLHOST" tune cp.cfg --out s --study-name A --trials 3 --pruner none

mkdir -p damaged && echo '[]' > damaged/tune.json
expect_rc 2 "a damaged study record" -- "$RLHOST" tune cp.cfg --out damaged
one_line "a damaged study record"

# 3. best.cfg edited by hand is kept; best.cfg made a directory is refused.
echo "# mine" >> s/best.cfg
cp s/best.cfg edited.cfg
expect_rc 0 "resume after best.cfg was edited" -- "$RLHOST" tune cp.cfg --out s --study-name A --trials 4 --pruner none
if grep -q "best.cfg was edited" "$T/err"; then
  cmp -s s/best.edited-1.cfg edited.cfg; ok $? "the edit is kept as best.edited-1.cfg"
else
  cmp -s s/best.cfg edited.cfg; ok $? "the edit stays (the best trial did not change)"
fi
mv s/best.cfg best.bak && mkdir s/best.cfg
expect_rc 2 "best.cfg a directory" -- "$RLHOST" tune cp.cfg --out s --study-name A --trials 5
one_line "best.cfg a directory"
rmdir s/best.cfg

# 4. A tuned run.seed is the seed its trial runs, and best.cfg's.
printf 'tune: { run: { seed = { int = [0, 10]; }; }; algo: { lr = { log_uniform = [1e-4, 3e-3]; }; }; };\n' > seed.cfg
expect_rc 0 "a study that tunes run.seed" -- "$RLHOST" tune cp.cfg --space seed.cfg --out sd --trials 4 --pruner none --sampler random --seed 3
"$PY" - sd <<'PY' > py 2>&1
import csv, re, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/trials.csv")))
seeds = set()
for r in rows:
    ran = re.search(r"seed = (\d+);", open(f"{sys.argv[1]}/trials/{int(r['number']):05d}/config.cfg").read()).group(1)
    assert ran == r["run.seed"], (r, ran)
    seeds.add(ran)
assert len(seeds) > 1, seeds
best = open(f"{sys.argv[1]}/best.cfg").read()
n = re.search(r"trial (\d+) of", best).group(1)
want = [r["run.seed"] for r in rows if r["number"] == n][0]
assert re.search(rf"seed = {want};", best), (n, want)
print("fine", sorted(seeds))
PY
contains py "fine" "every trial ran the seed trials.csv records, and best.cfg carries its trial's"

# 5. The plugins' default space never proposes what the plugin refuses
#    (PPO's batch capped at its rollout); a user's space that can is told so.
printf 'run: { steps = 3000; seed = 1; eval_episodes = 2; };\nenv: { plugin = "cartpole"; num_envs = 1; };\nalgo: { plugin = "ppo"; n_steps = 32; batch_size = 32; };\n' > one.cfg
expect_rc 0 "the default space's extremes on one env are accepted" -- "$RLHOST" tune one.cfg --dry-run
expect_rc 0 "8 trials of the default space" -- "$RLHOST" tune one.cfg --out d --trials 8 --sampler random --seed 2 --pruner none
! grep -q "larger than a rollout" d/trials.csv; ok $? "no trial is refused for its batch"
printf 'tune: { algo: { batch_size = { choice = [32, 512]; }; }; };\n' > bs.cfg
expect_rc 1 "a user's space that can propose a refused batch" -- "$RLHOST" tune one.cfg --space bs.cfg --dry-run
contains "$T/err" "the space can propose configs the plugins refuse" "is told so"
contains "$T/err" "batch_size 512 is larger than a rollout" "with the plugin's reason"
printf 'tune: { algo: { batch_size = { choice = [32, 512]; at_most = ("algo.n_steps", "env.num_envs"); }; }; };\n' > bs2.cfg
expect_rc 0 "the same with at_most" -- "$RLHOST" tune one.cfg --space bs2.cfg --dry-run

# 6. A 12,000-value choice reaches the driver.
"$PY" -c "print('tune: { algo: { lr = { choice = [' + ', '.join('%.9f' % (1e-4 + i * 1e-8) for i in range(12000)) + ']; }; }; };')" > big.cfg
[ "$(wc -c < big.cfg)" -gt 140000 ]; ok $? "the space is longer than one argument may be"
expect_rc 0 "a 12,000-value choice" -- "$RLHOST" tune cp.cfg --space big.cfg --dry-run

# 7. Ctrl-C: the hint names every argument that makes the study, and works.
"$RLHOST" tune cp.cfg --space other.cfg --study-name C --out c --trials 2 --set run.steps=5000000 --set run.eval_interval=50000 >/dev/null 2>cerr &
pid=$!
for _ in $(seq 300); do [ -e c/trials/00000/config.cfg ] && break; sleep 0.1; done
sleep 0.3
kill -INT $pid; wait $pid
hint=$(sed -n 's/.*stopped; `\(.*\)` resumes the study.*/\1/p' cerr)
case "$hint" in *"--space other.cfg"*"--study-name C"*) r=0 ;; *) r=1 ;; esac; ok $r "the hint names the space and the study ($hint)"
eval "${hint/#rlhost/\"\$RLHOST\"} --set run.steps=4000" >/dev/null 2>cerr2
ok $? "following it (with a shorter run) resumes the study"

# 8. rlhost study of configs on different envs says so.
printf 'run: { steps = 1000; seed = 1; eval_episodes = 2; };\nenv: { plugin = "pendulum"; };\nalgo: { plugin = "ppo"; n_steps = 32; batch_size = 32; };\n' > pend.cfg
expect_rc 0 "a study of a CartPole and a Pendulum config" -- "$RLHOST" study cp.cfg pend.cfg --seeds 1 --out st --set run.steps=1000 --reps 100
contains "$T/err" "the configs train on different envs" "notes that their returns are not comparable"
grep -q "different envs" st/report.md && grep -q tasks_differ st/report.json; ok $? "in report.md and report.json too"
echo "1..$n"
[ $failed = 0 ]
