#!/usr/bin/env bash
# CLI end to end: exit codes, --set, outputs, determinism, signals, refusals.
# Usage: cli.sh RLHOST SOURCE_ROOT FIXTURE_DIR   (speaks TAP)
set -u
RLHOST=$1
SRC=$2
FIXTURES=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

CFG="$SRC/configs/cartpole_random.cfg"

expect_rc 0 "--version" -- "$RLHOST" --version
ABI_MINOR=$(sed -n 's/^#define RL_ABI_MINOR \([0-9]*\)$/\1/p' "$SRC/include/rlhost/plugin.h")
contains "$T/out" "plugin ABI 1.$ABI_MINOR" "--version names the ABI"
expect_rc 0 "--help" -- "$RLHOST" --help
contains "$T/out" "usage: rlhost COMMAND" "--help prints usage"
expect_rc 0 "run --help" -- "$RLHOST" run --help
contains "$T/out" "usage: rlhost run CONFIG" "run --help prints its usage"
expect_rc 2 "no command is a usage error" -- "$RLHOST"
expect_rc 2 "unknown command" -- "$RLHOST" rnu
contains "$T/err" "unknown command 'rnu' (did you mean 'run'?)" "unknown command suggests"
expect_rc 2 "run without config" -- "$RLHOST" run
expect_rc 2 "unknown option" -- "$RLHOST" run "$CFG" --frobnicate
contains "$T/err" "unknown option '--frobnicate'" "unknown option named"
expect_rc 2 "--set without =" -- "$RLHOST" run "$CFG" --set algo.sticky
contains "$T/err" "--set needs KEY=VALUE" "--set format explained"

# BLAS kernel choice: the re-exec mechanism (forced to a core this CPU runs)
env -u OPENBLAS_CORETYPE RLHOST_TEST_BLAS_CORETYPE=Haswell "$RLHOST" run "$CFG" --out "$T/blas" --set run.steps=1000 >"$T/out" 2>"$T/err"
ok $? "run after a BLAS re-exec"
contains "$T/err" "OpenBLAS Haswell (chosen by rlhost over OpenBLAS's" "re-exec switched OpenBLAS kernels and says so"
contains "$T/blas/summary.json" '"blas.core": "Haswell"' "summary records the kernels used"

# list / info
expect_rc 0 "list" -- "$RLHOST" list
contains "$T/out" "cartpole" "list shows cartpole"
contains "$T/out" "random" "list shows the template algo"
expect_rc 0 "info cartpole" -- "$RLHOST" info cartpole
contains "$T/out" "observe_velocity = true" "info shows options with defaults"
contains "$T/out" "action_repeat" "info shows host stages"
expect_rc 0 "info run" -- "$RLHOST" info run
contains "$T/out" "log_interval" "info run documents the run group"
expect_rc 2 "info of an unknown plugin" -- "$RLHOST" info cartpol
contains "$T/err" "did you mean 'cartpole'" "info suggests"

# check
expect_rc 0 "check a good config" -- "$RLHOST" check "$CFG"
contains "$T/out" "eval_interval = 0;" "check prints defaults filled in"
printf 'run: { steps = 10; };\nenv: { plugin = "cartpole"; num_envs = 0; };\nalgo: { plugin = "random"; };\n' > "$T/bad.cfg"
expect_rc 2 "check a bad config" -- "$RLHOST" check "$T/bad.cfg"
contains "$T/err" "$T/bad.cfg:2: env.num_envs: expected an integer in [1, 1048576], got 0" "config error has file:line, key and expectation"
expect_rc 2 "bad --set" -- "$RLHOST" check "$CFG" --set algo.stickey=0.5
contains "$T/err" "--set algo.stickey=0.5: unknown key 'stickey'" "bad --set explained"
expect_rc 2 "--set out of range" -- "$RLHOST" check "$CFG" --set algo.sticky=2
contains "$T/err" "--set algo.sticky=2: expected a number in [0, 1], got 2" "--set range error"
for cmd in check run; do
  expect_rc 2 "$cmd: two settings in one --set" -- "$RLHOST" $cmd "$SRC/configs/cartpole_ppo.cfg" --set 'algo.lr=0.001; gamma = 0.5' --out "$T/two-sets"
  contains "$T/err" "--set algo.lr=0.001; gamma = 0.5: one value per --set" "$cmd: refused, the second not dropped"
done
[ ! -e "$T/two-sets" ]; ok $? "and nothing is created"
expect_rc 2 "unknown plugin" -- "$RLHOST" check "$CFG" --set env.plugin=cartpol
contains "$T/err" "unknown env plugin 'cartpol' (did you mean 'cartpole'?" "unknown plugin suggests"
contains "$T/err" "a plugin of your own is found through --plugin-path DIR or RLHOST_PLUGIN_PATH" "unknown plugin says where plugins are found"
expect_rc 2 "a misspelt --set key" -- "$RLHOST" check "$SRC/configs/cartpole_ppo.cfg" --set algo.ent_coeff=0.1 --set env.optimizations.thread=1
contains "$T/err" "--set algo.ent_coeff=0.1: unknown key 'ent_coeff' (did you mean 'algo.ent_coef'?)" "--set suggests the nearest key, as the file form does"
contains "$T/err" "(did you mean 'env.optimizations.threads'?)" "--set suggests among the group its path names"
expect_rc 2 "algo where env expected" -- "$RLHOST" check "$CFG" --set env.plugin=random
contains "$T/err" "'random' is an algo plugin, but an env is expected" "kind mismatch explained"
expect_rc 2 "missing config file" -- "$RLHOST" check "$T/nope.cfg"
contains "$T/err" "cannot open" "missing file explained"

# run: outputs
OUT="$T/run1"
expect_rc 0 "run the random config" -- "$RLHOST" run "$CFG" --out "$OUT" --set run.steps=20000
for f in config.cfg metrics.csv summary.json; do [ -s "$OUT/$f" ]; ok $? "run writes $f"; done
contains "$OUT/metrics.csv" "step,wall_s,sps,episodes,return_mean,length_mean" "metrics.csv header"
contains "$OUT/summary.json" '"steps": 20000' "summary has the steps"

# metrics.csv a pandas user trusts: CartPole pays 1 per step, so a return
# and a length over the same window of episodes are equal in every row;
# every evaluation is in evals.csv, even several per log interval; a value
# that is not a number reads "nan", never an empty field; an auto float
# stage is recorded as resolved.
CP="$T/cpm"
"$RLHOST" run "$SRC/configs/cartpole_dqn_zoo.cfg" --set run.steps=6000 --set run.log_interval=2000 \
  --set run.eval_interval=500 --set run.eval_episodes=2 --set algo.learning_starts=2500 --set run.quiet=true \
  --out "$CP" >/dev/null 2>&1
awk -F, 'NR > 1 && $5 != $6 { bad = 1 } END { exit bad }' "$CP/metrics.csv"
ok $? "return_mean and length_mean over the same episodes (CartPole: equal in every row)"
[ "$(grep -c '^[0-9]*,[^,]*,0,' "$CP/evals.csv")" = 12 ] && [ "$(grep -c '^6000,[^,]*,1,' "$CP/evals.csv")" = 1 ]
ok $? "evals.csv: all 12 periodic evaluations (4 per log interval) and the final one"
! grep -q ',,\|,$' "$CP/metrics.csv" "$CP/evals.csv" && grep -q ',nan' "$CP/metrics.csv"
ok $? "no empty fields; missing values read nan"
# episodes.csv: every training episode, in the order the metrics' window took them
[ "$(($(grep -c . "$CP/episodes.csv") - 1))" = "$(json_num "$CP/summary.json" train_episodes)" ]
ok $? "episodes.csv: a row for each of summary.json's train_episodes"
awk -F, 'FNR == 1 { next } NR == FNR { s[++n] = $1; r[n] = $4; if ($4 != $5) bad = 1; next }
         { while (k < n && s[k + 1] <= $1) k++; m = 0; c = 0
           for (i = (k > 100 ? k - 99 : 1); i <= k; i++) { m += r[i]; c++ }
           if (k != $4 || (c && (m / c - $5 > 1e-4 * $5 || $5 - m / c > 1e-4 * $5))) bad = 1 }
         END { exit bad || !n }' "$CP/episodes.csv" "$CP/metrics.csv"
ok $? "episodes.csv: each metrics row's count and 100-episode mean are its rows up to that step"
contains "$CP/summary.json" '"algo.train_steps_ratio": 0.5' "an auto float stage is recorded as resolved (128 / 256)"

# eval --trace: every step of every evaluated episode, for analysis.
expect_rc 0 "eval --trace" -- "$RLHOST" eval "$CP" --episodes 7 --json --trace "$T/trace.csv"
want_len=$(sed -n 's/.*"length_mean": \([-0-9.e+]*\).*/\1/p' "$T/out")
want_ret=$(sed -n 's/.*"return_mean": \([-0-9.e+]*\).*/\1/p' "$T/out")
awk -F, -v L="$want_len" -v R="$want_ret" '
  NR == 1 { ok = $1 == "env" && $4 == "action" && $NF == "obs_3" && NF == 11; next }
  { rows++; ret += $5; ep[$2] = 1; if ($6 || $7) { ends++; if ($3 + 1 != len[$2] + 1) ok = 0 } len[$2]++ }
  END { n = 0; for (e in ep) { n++; if (e < 0 || e > 6) ok = 0 }
        d1 = rows / 7 - L; d2 = ret / 7 - R  # --json prints 6 digits
        exit !(ok && n == 7 && ends == 7 && d1 * d1 < 1e-4 && d2 * d2 < 1e-4) }' "$T/trace.csv"
ok $? "the trace holds the 7 episodes whole: their steps, rewards and ends add up to the evaluation"
expect_rc 1 "a trace that cannot be written" -- "$RLHOST" eval "$CP" --episodes 1 --trace "$T/no/such/dir/t.csv"
contains "$T/err" "cannot write the trace $T/no/such/dir/t.csv" "says which file and why"
contains "$OUT/summary.json" '"status": "done"' "summary status done"
ev=$(json_num "$OUT/summary.json" eval_return_mean)
awk -v v="$ev" 'BEGIN { exit !(v > 8 && v < 60) }'; ok $? "random cartpole eval return is sane ($ev)"
[ "$(grep -c . "$OUT/metrics.csv")" = 2 ]; ok $? "one metrics row per log interval"
ls "$OUT" | grep -q tmp; [ $? != 0 ]; ok $? "no temp files left behind"
expect_rc 0 "the resolved config.cfg runs as is" -- "$RLHOST" check "$OUT/config.cfg"

# determinism: same seed => same learning numbers (timings aside)
expect_rc 0 "second run, same seed" -- "$RLHOST" run "$CFG" --out "$T/run2" --set run.steps=20000
learn_cols "$OUT/metrics.csv" > "$T/a"; learn_cols "$T/run2/metrics.csv" > "$T/b"
cmp -s "$T/a" "$T/b"; ok $? "same seed gives the same returns"
expect_rc 0 "run with 2 env threads" -- "$RLHOST" run "$CFG" --out "$T/run3" --set run.steps=20000 --set env.optimizations.threads=2
learn_cols "$T/run3/metrics.csv" > "$T/c"
cmp -s "$T/a" "$T/c"; ok $? "thread count does not change results"
[ "$(json_num "$T/run2/summary.json" eval_return_mean)" = "$ev" ]; ok $? "same seed gives the same eval"
expect_rc 0 "other seed" -- "$RLHOST" run "$CFG" --out "$T/run4" --set run.steps=20000 --set run.seed=2
learn_cols "$T/run4/metrics.csv" > "$T/d"
cmp -s "$T/a" "$T/d"; [ $? != 0 ]; ok $? "another seed gives other returns"
# run.schedule_steps: the first 4096 steps of an 8192-step run's schedule
# are that run's first 4096 steps, the linear learning rate half-way down
# at the end; without it the schedule ends with the run.
PC="$SRC/configs/cartpole_ppo_cleanrl.cfg"
sched() { "$RLHOST" run "$PC" --set run.log_interval=512 --set run.eval_episodes=0 --set run.quiet=true --force "$@" >/dev/null 2>&1; }
sched --set run.steps=4096 --set run.schedule_steps=8192 --out "$T/sch1"
sched --set run.steps=8192 --out "$T/sch2"
sched --set run.steps=4096 --out "$T/sch3"
learn_cols "$T/sch1/metrics.csv" > "$T/s1"; learn_cols "$T/sch2/metrics.csv" | head -9 > "$T/s2"
cmp -s "$T/s1" "$T/s2" && [ "$(grep -c . "$T/s1")" = 9 ]
ok $? "schedule_steps = 8192: the first 4096 steps of the 8192-step run, row for row"
lr1=$(tail -1 "$T/sch1/metrics.csv" | awk -F, '{print $NF}'); lr3=$(tail -1 "$T/sch3/metrics.csv" | awk -F, '{print $NF}')
awk -v a="$lr1" -v b="$lr3" 'BEGIN { exit !(a == 0.000125 && b == 0) }'
ok $? "the learning rate at step 4096: half of 2.5e-4 with schedule_steps 8192 ($lr1), 0 without ($lr3)"
expect_rc 2 "a negative schedule_steps" -- "$RLHOST" check "$PC" --set run.schedule_steps=-1
contains "$T/err" "--set run.schedule_steps=-1: expected an integer in [0, 1e+15], got -1" "says the key and the range"
expect_rc 0 "action_repeat 2 runs" -- "$RLHOST" run "$CFG" --out "$T/run5" --set run.steps=20000 --set env.optimizations.action_repeat=2
ev5=$(json_num "$T/run5/summary.json" eval_length_mean)
awk -v v="$ev5" 'BEGIN { exit !(v > 8 && v < 80) }'; ok $? "action_repeat episode lengths count env frames ($ev5)"

# Stages that promise unchanged results: DQN's batch_inference, env threads.
DQN="$SRC/configs/cartpole_dqn.cfg"
common="--set run.steps=6000 --set run.eval_interval=2000 --set algo.learning_starts=500"
if "$RLHOST" info dqn >/dev/null 2>&1; then
  expect_rc 0 "dqn, batched inference" -- "$RLHOST" run "$DQN" $common --out "$T/bi1"
  expect_rc 0 "dqn, one forward per env" -- "$RLHOST" run "$DQN" $common --set algo.optimizations.batch_inference=false --out "$T/bi0"
  learn_cols "$T/bi1/metrics.csv" > "$T/m1"; learn_cols "$T/bi0/metrics.csv" > "$T/m0"
  cmp -s "$T/m1" "$T/m0"; ok $? "batch_inference on/off: identical returns, losses and Q-values"
  grep '"eval_return' "$T/bi1/summary.json" > "$T/e1"; grep '"eval_return' "$T/bi0/summary.json" > "$T/e0"
  cmp -s "$T/e1" "$T/e0"; ok $? "batch_inference on/off: identical evaluation"
  expect_rc 0 "dqn, 8 envs on 2 threads" -- "$RLHOST" run "$DQN" $common --set env.num_envs=8 --set env.optimizations.threads=2 --out "$T/th2"
  expect_rc 0 "dqn, 8 envs on 1 thread" -- "$RLHOST" run "$DQN" $common --set env.num_envs=8 --set env.optimizations.threads=1 --out "$T/th1"
  learn_cols "$T/th2/metrics.csv" > "$T/m2"; learn_cols "$T/th1/metrics.csv" > "$T/m3"
  cmp -s "$T/m2" "$T/m3"; ok $? "env threads 1 or 2: identical DQN training"
  expect_rc 0 "dqn, train_steps_ratio set" -- "$RLHOST" run "$DQN" $common --set algo.optimizations.train_steps_ratio=0.25 --out "$T/tsr"
  grad=$(tail -1 "$T/tsr/metrics.csv" | awk -F, '{ print $(NF-1) }')
  awk -v g="$grad" 'BEGIN { exit !(g > 1300 && g <= 1375) }'; ok $? "train_steps_ratio 0.25 takes one gradient step per 4 transitions after learning_starts ($grad)"
fi

# PPO's batch_inference (recurrent, so the LSTM step is covered too), quiet,
# log_interval, and blas_threads.
RPPO="$SRC/configs/cartpole_nov_rppo.cfg"
if "$RLHOST" info recurrent_ppo >/dev/null 2>&1; then
  pc="--set run.steps=4096 --set run.log_interval=1024 --set run.eval_episodes=4"
  expect_rc 0 "recurrent ppo, batched inference" -- "$RLHOST" run "$RPPO" $pc --out "$T/pb1"
  expect_rc 0 "recurrent ppo, one forward per env" -- "$RLHOST" run "$RPPO" $pc --set algo.optimizations.batch_inference=false --out "$T/pb0"
  learn_cols "$T/pb1/metrics.csv" > "$T/p1"; learn_cols "$T/pb0/metrics.csv" > "$T/p0"
  cmp -s "$T/p1" "$T/p0"; ok $? "recurrent ppo batch_inference on/off: identical training"
  [ "$(grep -c . "$T/pb1/metrics.csv")" = 5 ]; ok $? "log_interval 1024 over 4096 steps: 4 metrics rows"
  contains "$T/err" "env/act/update" "progress lines carry the time split"
  expect_rc 0 "quiet run" -- "$RLHOST" run "$RPPO" $pc --set run.quiet=true --out "$T/pq"
  [ ! -s "$T/err" ]; ok $? "quiet: nothing on stderr"
  [ "$(grep -c . "$T/pq/metrics.csv")" = 5 ]; ok $? "quiet: metrics still written at the end"
  expect_rc 0 "ppo with 2 BLAS threads" -- "$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.steps=2048 --set algo.optimizations.blas_threads=2 --out "$T/pbt"
  contains "$T/err" "2 threads" "blas_threads shows in the Optimizations table"
fi

# failure: unwritable out_dir
touch "$T/file"
expect_rc 1 "out_dir under a file fails" -- "$RLHOST" run "$CFG" --out "$T/file/sub"
contains "$T/err" "cannot create directory" "unwritable out_dir explained"

# SIGINT stops cleanly and still writes the outputs
"$RLHOST" run "$CFG" --out "$T/int" --set run.steps=1e12 >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 50); do [ -s "$T/int/config.cfg" ] && break; sleep 0.1; done
sleep 0.3
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ]; ok $? "SIGINT exits 130 (got $rc)"
contains "$T/int/summary.json" '"status": "interrupted"' "interrupted run still writes summary.json"
[ -s "$T/int/metrics.csv" ]; ok $? "interrupted run still writes metrics.csv"
"$RLHOST" run "$CFG" --out "$T/term" --set run.steps=1e12 >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 50); do [ -s "$T/term/config.cfg" ] && break; sleep 0.1; done
kill -TERM $pid; wait $pid; rc=$?
[ $rc = 143 ]; ok $? "SIGTERM exits 143 (got $rc)"

# broken plugins on the path: warned about, the good ones keep working
mkdir -p "$T/plugins"
cp "$FIXTURES/bad_major.so" "$FIXTURES/garbage.so" "$T/plugins/"
expect_rc 0 "run with broken plugins on the path" -- env RLHOST_PLUGIN_PATH="$T/plugins" "$RLHOST" run "$CFG" --out "$T/run6" --set run.steps=1000
contains "$T/err" "bad_major.so was built for plugin ABI 99.$ABI_MINOR but this rlhost speaks 1.$ABI_MINOR" "broken plugin warned about"
expect_rc 0 "list with broken plugins" -- "$RLHOST" list --plugin-path "$T/plugins"
contains "$T/out" "refused:" "list shows refusals"
# a plugin found twice: the first wins, list shows the shadowed one
cp "$(dirname "$RLHOST")/../envs/cartpole/cartpole.so" "$T/plugins/"
expect_rc 0 "list with a duplicate plugin" -- "$RLHOST" list --plugin-path "$T/plugins"
contains "$T/out" "(shadowed by $T/plugins/cartpole.so)" "list shows the shadowed plugin"

# bench CONFIG --stage floor: the run's products replayed in sgemm alone
expect_rc 0 "bench --stage floor" -- "$RLHOST" bench "$SRC/configs/cartpole_ppo.cfg" --stage floor --steps 2048 --repeat 1 --json
gflop=$(sed -n 's/.*"gflop": \([0-9.e+]*\),.*"ratio": \([0-9.e+]*\),.*/\1 \2/p' "$T/out")
awk -v g="$gflop" 'BEGIN { split(g, v, " "); exit !(v[1] > 0 && v[2] > 0) }'; ok $? "bench floor reports the products and run/floor ($gflop)"
contains "$T/out" '"shapes_dropped": 0' "bench floor counted every shape"

# Input libconfig or a C conversion would get wrong silently is refused.
printf 'run: { steps = 10000000000; seed = 0x100000001; };\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "random"; };\n' > "$T/wide.cfg"
expect_rc 2 "integers wider than 32 bits without L" -- "$RLHOST" check "$T/wide.cfg"
contains "$T/err" "wide.cfg:1: integer 10000000000 does not fit in 32 bits and libconfig would truncate it; write 10000000000L" "the wide decimal is named with the fix"
contains "$T/err" "integer 0x100000001 does not fit in 32 bits" "so is the wide hex seed"
sed -i 's/10000000000/10000000000L/; s/0x100000001/0x100000001L/' "$T/wide.cfg"
expect_rc 0 "with L they are read as 64 bits" -- "$RLHOST" check "$T/wide.cfg"
contains "$T/out" "steps = 10000000000L;" "steps kept whole"
contains "$T/out" "seed = 4294967297L;" "hex seed kept whole"
expect_rc 0 "--set of a wide hex seed" -- "$RLHOST" check "$CFG" --set run.seed=0x100000001
contains "$T/out" "seed = 4294967297L;" "--set keeps it whole"
expect_rc 2 "--set beyond 64 bits" -- "$RLHOST" check "$CFG" --set run.seed=99999999999999999999999
mkfifo "$T/fifo.cfg"
printf 'run: { steps = 100; };\n@include "fifo.cfg"\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "random"; };\n' > "$T/inc.cfg"
expect_rc 2 "@include of a FIFO is refused, not waited on" -- timeout 10 "$RLHOST" check "$T/inc.cfg"
contains "$T/err" 'inc.cfg:2: @include "fifo.cfg": not a regular file' "the include is named"
for bad in 4294967296 2.5 -1 0 1e3 x; do
  expect_rc 2 "eval --episodes $bad" -- "$RLHOST" eval "$CFG" --episodes "$bad"
done
contains "$T/err" "--episodes: expected an integer in [1, 1000000], got 'x'" "counts are parsed as integers with their range"
expect_rc 2 "play --fps nan" -- "$RLHOST" play "$CFG" --fps nan
expect_rc 2 "bench --repeat 1e9" -- "$RLHOST" bench nn --repeat 1000000000

# check builds the env and the algorithm: what run would refuse, check does.
expect_rc 2 "check: a snake that does not fit the board" -- "$RLHOST" check "$SRC/configs/snake_dqn.cfg" --set env.width=4 --set env.height=16 --set env.initial_length=8
contains "$T/err" "initial_length 8 does not fit a 4x16 board" "the snake bound is named"
expect_rc 2 "run refuses it the same way, before training" -- "$RLHOST" run "$SRC/configs/snake_dqn.cfg" --set env.width=4 --set env.height=16 --set env.initial_length=8 --out "$T/sn"
expect_rc 2 "check: PPO batch larger than the rollout" -- "$RLHOST" check "$SRC/configs/cartpole_ppo.cfg" --set algo.batch_size=100000
contains "$T/err" "is larger than a rollout" "named"
expect_rc 2 "check: bptt_horizon not dividing n_steps" -- "$RLHOST" check "$SRC/configs/tmaze_rppo.cfg" --set algo.bptt_horizon=7
expect_rc 2 "check: too many hidden layers" -- "$RLHOST" check "$SRC/configs/cartpole_ppo.cfg" --set "algo.hidden=[8,8,8,8,8,8,8,8,8,8]"
printf 'run: { steps = 100; };\nenv: { plugin = "gridworld"; map = ["###", "#S#", "###"]; };\nalgo: { plugin = "random"; };\n' > "$T/gw.cfg"
expect_rc 2 "check: a gridworld map error" -- "$RLHOST" check "$T/gw.cfg"
contains "$T/err" "map has 1 floor cells" "named"

# Names from files and folders are escaped where they are written.
X="$T/a&b<script>'"
expect_rc 0 "a run in a folder with markup in its name" -- "$RLHOST" run "$CFG" --set run.steps=2000 --set run.log_interval=500 --set run.quiet=true --out "$X"
sed -i 's/"env": "cartpole"/"env": "<script>alert(1)<\/script>\&"/' "$X/summary.json"
expect_rc 0 "plot it" -- "$RLHOST" plot "$X" -o "$T/x.svg"
python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$T/x.svg" 2>"$T/xmlerr"; ok $? "the SVG is well-formed XML"
grep -q "<script>" "$T/x.svg"; [ $? != 0 ]; ok $? "no markup injected into the SVG"
# plot --column: episodes.csv's column, the mean over a window of steps.
expect_rc 0 "plot --column return of a real run" -- "$RLHOST" plot "$X" --column return -o "$T/xe.svg"
expect_rc 1 "plot --column score where the env has no score" -- "$RLHOST" plot "$X" --column score -o "$T/xs.svg"
contains "$T/err" "episodes.csv: no score column" "named"
expect_rc 2 "plot --column with an unknown column" -- "$RLHOST" plot "$X" --column wall_s
expect_rc 2 "plot --episodes: a flag means one thing, a count, in every command" -- "$RLHOST" plot "$X" --episodes return
contains "$T/err" "plot's curve is --column" "and points at --column"
expect_rc 2 "plot --window without --column" -- "$RLHOST" plot "$X" --window 100
expect_rc 2 "plot --window 0" -- "$RLHOST" plot "$X" --column return --window 0
E="$T/ep"; mkdir -p "$E"
printf 'step,wall_s,sps,episodes,return_mean\n500,1,100,5,1\n1000,2,100,10,2\n' > "$E/metrics.csv"
{ echo 'step,wall_s,env,return,length'
  for s in 100 200 300 400 500; do echo "$s,1,0,1,100"; done
  echo 'garbage line'; echo '550,1,0,nan,100'; echo 'step,wall_s,env,return,length'
  for s in 600 700 800 900 1000; do echo "$s,2,0,3,100"; done; } > "$E/episodes.csv"
expect_rc 0 "plot --column return --window 100" -- "$RLHOST" plot "$E" --column return --window 100 -o "$T/ep.svg"
contains "$T/ep.svg" "return (mean of the episodes ending in the last 100 steps)" "the axis names the window"
# The curve, read back from the SVG through the axis ticks: nothing before
# the first episode (step 100), 1 until the window (x - 100, x] leaves step
# 500 behind at x = 600, then 3.
python3 - "$T/ep.svg" > "$T/epchk" 2>&1 <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
ticks = {t: float(y) - 4 for y, t in re.findall(r"<text x='[0-9.]+' y='([0-9.]+)' font-size='11' text-anchor='end'>([^<]+)</text>", svg)}
xt = {t: float(x) for x, t in re.findall(r"<text x='([0-9.]+)' y='[0-9.]+' font-size='11' text-anchor='middle'>([^<]+)</text>", svg)}
path = re.search(r"<path fill='none' stroke='#1f77b4' stroke-width='2.5' d='([^']*)'", svg).group(1)
pts = [tuple(map(float, p.split())) for p in re.findall(r"[ML]([0-9.]+ [0-9.]+)", path)]
step = lambda px: (px - xt['0']) / (xt['1000'] - xt['0']) * 1000
first, ones, threes = step(pts[0][0]), [p for p in pts if abs(p[1] - ticks['1']) < 0.2], [p for p in pts if abs(p[1] - ticks['3']) < 0.2]
good = (abs(first - 100) < 1 and len(ones) + len(threes) == len(pts) == 181
        and max(step(p[0]) for p in ones) < 600 - 1 and abs(min(step(p[0]) for p in threes) - 600) < 1)
print("ok" if good else "bad: first %.1f, %d points, %d at 1, %d at 3" % (first, len(pts), len(ones), len(threes)))
PY
[ "$(cat "$T/epchk")" = ok ]; ok $? "the curve is 1 until its window leaves step 500 behind, then 3 ($(head -c 200 "$T/epchk"))"
mkdir -p "$T/epfifo"; cp "$E/metrics.csv" "$T/epfifo/"; mkfifo "$T/epfifo/episodes.csv" "$T/epfifo/summary.json"
expect_rc 1 "plot: a FIFO planted as episodes.csv is refused, not waited on" -- timeout 60 "$RLHOST" plot "$T/epfifo" --column return -o "$T/f.svg"
contains "$T/err" "episodes.csv: not a regular file" "named"
NL="$T/two
lines.cfg"
cp "$CFG" "$NL"
expect_rc 0 "a config path with a newline" -- "$RLHOST" run "$NL" --set run.steps=1000 --set run.quiet=true --out "$T/nl"
[ "$(grep -c '^#' "$T/nl/config.cfg")" = 1 ] && ! grep -q '^lines.cfg' "$T/nl/config.cfg"; ok $? "the path stays inside the one comment line of config.cfg"
expect_rc 0 "and config.cfg reads back" -- "$RLHOST" check "$T/nl/config.cfg"

# Plugins that misbehave are named; relative search paths are not followed.
expect_rc 139 "a plugin that crashes in init" -- "$RLHOST" list --plugin-path "$FIXTURES/crash"
contains "$T/err" "rlhost: fatal signal while loading plugin $(realpath "$FIXTURES")/crash/init_crashes.so" "the crashing plugin's file is named"
mkdir -p "$T/rel"
RL_ABS=$(realpath "$RLHOST"); (cd "$T" && RLHOST_PLUGIN_PATH=rel "$RL_ABS" list >"$T/out" 2>"$T/err")
contains "$T/out" "RLHOST_PLUGIN_PATH entry 'rel' is relative and was ignored" "a relative RLHOST_PLUGIN_PATH entry is refused"
mkdir -p "$T/shadow"
cp "$(dirname "$RLHOST")/../envs/cartpole/cartpole.so" "$T/shadow/"
expect_rc 0 "check with a plugin that shadows a built-in" -- "$RLHOST" check "$CFG" --plugin-path "$T/shadow"
contains "$T/err" "plugin 'cartpole' comes from $T/shadow/cartpole.so, which shadows" "the shadowing is said"

# Replicas (ABI 1.1): data-parallel PPO over threads; counts that do not
# split are config errors; plugins built for 1.0 load, train and run as one.
expect_rc 2 "check: 3 replicas cannot split 8 envs" -- "$RLHOST" check "$SRC/configs/cartpole_ppo.cfg" --set run.replicas=3
contains "$T/err" "3 replicas cannot split env.num_envs = 8 evenly (PPO replicas own their envs)" "named"
expect_rc 2 "check: 4 replicas cannot split a batch of 250" -- "$RLHOST" check "$SRC/configs/cartpole_ppo.cfg" --set run.replicas=4 --set algo.batch_size=250
contains "$T/err" "4 replicas cannot split batch_size 250 evenly" "named"
expect_rc 2 "check: recurrent PPO splits whole sequences only" -- "$RLHOST" check "$SRC/configs/tmaze_rppo.cfg" --set run.replicas=2 --set algo.batch_size=48 --set algo.bptt_horizon=16 --set algo.n_steps=64
expect_rc 0 "PPO with 2 replicas" -- "$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.replicas=2 --set run.steps=8192 --set run.eval_episodes=2 --out "$T/r2a"
contains "$T/err" "run.replicas                 2" "the Optimizations table shows the replicas"
expect_rc 0 "the same run again" -- "$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.replicas=2 --set run.steps=8192 --set run.eval_episodes=2 --set run.quiet=true --out "$T/r2b"
data_of "$T/r2a/checkpoint.safetensors" > "$T/da"; data_of "$T/r2b/checkpoint.safetensors" > "$T/db"
cmp -s "$T/da" "$T/db"; ok $? "2 replicas: the same config and seed give the same checkpoint"
grep -q '"replica1/' "$T/r2a/checkpoint.safetensors"; ok $? "the checkpoint holds replica 1's state too"
# Replicas as coroutines on one thread (what a busy machine gets) learn
# exactly what threads learn, for every algorithm family.
for spec in "cartpole_ppo.cfg 8192" "cartpole_dqn_zoo.cfg 3000" "pendulum_sac.cfg 1500" "tmaze_rppo.cfg 4096"; do
  set -- $spec
  for mode in threads coroutines; do
    RLHOST_REPLICAS_MODE=$mode "$RLHOST" run "$SRC/configs/$1" --set run.replicas=2 --set run.steps=$2 \
      --set run.eval_episodes=2 --set run.quiet=true --out "$T/mode_$mode" --force >/dev/null 2>"$T/err"
  done
  data_of "$T/mode_threads/checkpoint.safetensors" > "$T/da"; data_of "$T/mode_coroutines/checkpoint.safetensors" > "$T/db"
  [ -s "$T/da" ] && cmp -s "$T/da" "$T/db"; ok $? "$1, 2 replicas: coroutines and threads give the same checkpoint"
done
set -- "$RLHOST" "$SRC"
expect_rc 0 "auto picks the cores the config can split" -- "$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.replicas=auto --set run.steps=4096 --set run.eval_episodes=0 --out "$T/r2auto"
contains "$T/err" "(auto: " "auto says why"
expect_rc 0 "DQN with 2 replicas sharing its one env" -- "$RLHOST" run "$SRC/configs/cartpole_dqn.cfg" --set run.replicas=2 --set run.steps=2000 --set run.eval_episodes=0 --out "$T/dqnr2"
contains "$T/err" "run.replicas                 2 (sharing the envs: they do not split)" "the table says how"
expect_rc 0 "list shows the plugin built against the 1.0 header" -- "$RLHOST" list --plugin-path "$FIXTURES"
contains "$T/out" "abi10_algo" "the 1.0 plugin is listed, not refused"
printf 'run: { steps = 400; eval_episodes = 2; replicas = 2; };\nenv: { plugin = "cartpole"; num_envs = 2; };\nalgo: { plugin = "abi10_algo"; needed = 0; };\n' > "$T/abi10.cfg"
expect_rc 0 "a 1.0 algorithm trains under the 1.$ABI_MINOR host" -- "$RLHOST" run "$T/abi10.cfg" --plugin-path "$FIXTURES" --out "$T/abi10"
contains "$T/err" "run.replicas                 1 (algo 'abi10_algo' does not train data-parallel (no RL_DESC_REPLICAS; built for ABI 1.0))" "and runs as one replica, saying why"
printf 'run: { steps = 400; eval_episodes = 2; };\nenv: { plugin = "abi10_env"; needed = 0; num_envs = 2; };\nalgo: { plugin = "random"; };\n' > "$T/abi10env.cfg"
expect_rc 0 "a 1.0 env steps under the 1.$ABI_MINOR host" -- "$RLHOST" run "$T/abi10env.cfg" --plugin-path "$FIXTURES" --out "$T/abi10env"
# Every frozen header's plugin (tests/fixtures/abi_1_*) trains and steps.
for m in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do
  sed "s/abi10/abi1$m/g" "$T/abi10.cfg" > "$T/abi1$m.cfg"
  expect_rc 0 "a 1.$m algorithm trains under the 1.$ABI_MINOR host" -- "$RLHOST" run "$T/abi1$m.cfg" --plugin-path "$FIXTURES" --out "$T/abi1$m"
  sed "s/abi10/abi1$m/g" "$T/abi10env.cfg" > "$T/abi1${m}env.cfg"
  expect_rc 0 "a 1.$m env steps under the 1.$ABI_MINOR host" -- "$RLHOST" run "$T/abi1${m}env.cfg" --plugin-path "$FIXTURES" --out "$T/abi1${m}env"
done

expect_rc 0 "bench --stage replicas" -- "$RLHOST" bench "$SRC/configs/cartpole_ppo.cfg" --stage replicas --steps 4096 --repeat 1 --json
contains "$T/out" '"bench": "replicas", "config"' "bench reports the replicas' update speed-up"
contains "$T/out" '"evaluated": true' "and both runs' learning results"

# Encoders and agents per env: what does not fit is refused by `check`
# with one sentence (exit 2), before anything trains.
refuse() { # DESC SENTENCE CONFIG ARGS...
  local desc=$1 want=$2; shift 2
  expect_rc 2 "$desc" -- "$RLHOST" check "$@"
  contains "$T/err" "$want" "$desc: says so"
}
GCNN="$SRC/configs/gridworld_cnn_ppo.cfg" MSNAKE="$SRC/configs/snake_multi_ppo.cfg"
refuse "a CNN over a vector observation" 'encoder = "cnn" needs an image observation' \
  "$SRC/configs/snake_dqn.cfg" --set 'algo.encoder="cnn"'
refuse "cnn lists of different lengths" "need one entry per layer, 1 to 6 layers (got 2, 1, 2, 2)" \
  "$GCNN" --set 'algo.cnn_kernels=[3]'
refuse "a kernel larger than its input" "cnn layer 1: kernel 9 does not fit its 8x8 input (padding 0)" \
  "$GCNN" --set 'algo.cnn_kernels=[9, 3]' --set 'algo.cnn_padding=[0, 0]'
refuse "flood fill with several snakes" "flood_fill needs snakes = 1 (there are 4 per board)" \
  "$MSNAKE" --set env.flood_fill=true
refuse "snakes that do not fit the board" "40 snakes of initial_length 3 and 40 food need a board" \
  "$MSNAKE" --set env.snakes=40
refuse "action repeat with several agents" "action_repeat must be 1 with several agents" \
  "$MSNAKE" --set env.optimizations.action_repeat=2
refuse "tail_reach without flood fill" "tail_reach needs flood_fill = true" \
  "$SRC/configs/snake_best.cfg" --set env.flood_fill=false
refuse "several agents in the T-maze" "tmaze holds one agent" "$SRC/configs/tmaze_rppo.cfg" --set env.agents=2
refuse "more agents than the map holds" "6 agents need at least 8 floor cells" \
  "$GCNN" --set 'env.map=["#####", "#S.G#", "#...#", "#####"]' --set env.agents=6

# Box action spaces (ABI 1.2): a pair that does not fit is refused with one
# sentence; the continuous algorithms train, evaluate, play and resume.
PSAC="$SRC/configs/pendulum_sac.cfg"
refuse "a discrete algorithm on a box env" "algo 'dqn' does not take box actions (it takes discrete actions, action masks, composite observations), and env 'pendulum' has a box of 1 float action" \
  "$PSAC" --set 'algo.plugin="dqn"' --set 'algo.hidden=[64,64]'
refuse "a box algorithm on a discrete env" "algo 'sac' does not take discrete actions (it takes box actions, composite observations), and env 'cartpole' has 2 discrete actions" \
  "$PSAC" --set 'env.plugin="cartpole"'
refuse "a box algorithm on a discrete env, td3" "algo 'td3' does not take discrete actions" \
  "$SRC/configs/pendulum_td3.cfg" --set 'env.plugin="cartpole"'
for algo in sac tqc crossq td3 ddpg ppo random; do
  args=(--set "algo.plugin=\"$algo\"" --set run.steps=600 --set run.eval_episodes=2 --set run.quiet=true)
  [ $algo = random ] || args+=(--set algo.hidden=[32])
  [ $algo = crossq ] && args+=(--set algo.critic_hidden=[32])
  [ $algo = ppo ] && args+=(--set algo.n_steps=100 --set algo.batch_size=50)
  printf 'run: { steps = 600; };\nenv: { plugin = "pendulum"; };\nalgo: { plugin = "%s"; };\n' $algo > "$T/box_$algo.cfg"
  expect_rc 0 "$algo trains on pendulum" -- "$RLHOST" run "$T/box_$algo.cfg" "${args[@]}" --out "$T/box_$algo" --force
done
# TQC's quantiles: a target that keeps none of them, and critic counts and
# widths out of range, are refused before anything is made
PTQC="$SRC/configs/pendulum_tqc.cfg"
refuse "TQC dropping every quantile" "top_quantiles_to_drop_per_net 25 leaves no target quantile of the 25 per critic" \
  "$PTQC" --set algo.top_quantiles_to_drop_per_net=25
refuse "TQC dropping more quantiles than it has" "top_quantiles_to_drop_per_net 4 leaves no target quantile of the 3" \
  "$PTQC" --set algo.n_quantiles=3 --set algo.top_quantiles_to_drop_per_net=4
refuse "TQC with no critic" "algo.n_critics=0: expected an integer in [1, 16], got 0" "$PTQC" --set algo.n_critics=0
refuse "TQC with 17 critics" "expected an integer in [1, 16], got 17" "$PTQC" --set algo.n_critics=17
refuse "TQC with no quantile" "expected an integer in [1, 1000], got 0" "$PTQC" --set algo.n_quantiles=0
refuse "a critic of width 0" "expected a list of integers in [1, 65536]" "$PTQC" --set 'algo.hidden=[0]'
refuse "a critic of width 10^9" "expected a list of integers in [1, 65536]" "$PTQC" --set 'algo.hidden=[1000000000]'
expect_rc 2 "a run dropping every quantile" -- "$RLHOST" run "$PTQC" --set algo.top_quantiles_to_drop_per_net=25 \
  --out "$T/tqc_refused"
[ ! -e "$T/tqc_refused" ]; ok $? "makes no run directory"
# CrossQ: batch renormalization's momentum outside (0, 1), critics of no
# width, of 10^9 or too deep, a batch without statistics and gSDE (which
# it does not take) are refused before anything is made
PCQ="$SRC/configs/pendulum_crossq.cfg"
refuse "CrossQ with momentum 0" "algo.batch_norm_momentum=0: expected a number in [1e-09, 0.999999], got 0" \
  "$PCQ" --set algo.batch_norm_momentum=0
refuse "CrossQ with momentum 1" "got 1" "$PCQ" --set algo.batch_norm_momentum=1
refuse "CrossQ with eps 0" "algo.batch_norm_eps=0: expected a number in [1e-12, 1], got 0" "$PCQ" \
  --set algo.batch_norm_eps=0
refuse "a CrossQ critic of width 0" "algo.critic_hidden=[0]: expected a list of integers in [1, 65536]" "$PCQ" \
  --set 'algo.critic_hidden=[0]'
refuse "a CrossQ critic of width 10^9" "expected a list of integers in [1, 65536]" "$PCQ" \
  --set 'algo.critic_hidden=[1000000000]'
refuse "a CrossQ critic of 5 layers" "critic_hidden needs 1 to 4 layers" "$PCQ" \
  --set 'algo.critic_hidden=[8, 8, 8, 8, 8]'
refuse "CrossQ on batches of one row" "batch_size 1: crossq's batch statistics need at least 2 rows per replica" \
  "$PCQ" --set algo.batch_size=1
refuse "CrossQ with an Adam beta1 of 1" "algo.adam_beta1=1: expected a number in [0, 0.999999], got 1" "$PCQ" \
  --set algo.adam_beta1=1
refuse "CrossQ with gSDE" "algo.use_sde=true: unknown key 'use_sde'" "$PCQ" --set algo.use_sde=true
# gSDE (SAC and TQC): a sampling period of 0 or less and a log-std outside
# the clamp are refused; a checkpoint of a gSDE run resumes only with it
MSDE="$SRC/configs/mountain_car_continuous_sac_sde.cfg"
refuse "gSDE resampled every 0 steps" "algo.sde_sample_freq=0: expected an integer in [1, 1e+09]" "$MSDE" \
  --set algo.sde_sample_freq=0
refuse "gSDE resampled every -1 steps" "got -1" "$MSDE" --set algo.sde_sample_freq=-1
refuse "a gSDE log-std past the clamp" "expected a number in [-20, 2], got 3" "$MSDE" --set algo.log_std_init=3
sde_resume() { # NAME CONFIG SENTENCE WHAT ARGS...: a gSDE run resumed without gSDE is refused, its checkpoint kept
  local name=$1 cfg=$2 want=$3 what=$4; shift 4
  "$RLHOST" run "$cfg" --set run.eval_episodes=1 --set run.quiet=true "$@" --out "$T/$name" --force >/dev/null 2>&1
  cp "$T/$name/checkpoint.safetensors" "$T/${name}_ckpt"
  expect_rc 1 "a $name checkpoint resumed without gSDE" -- "$RLHOST" run --resume "$T/$name" --set run.steps=1600 \
    --set algo.use_sde=false
  contains "$T/err" "$want" "$what"
  cmp -s "$T/$name/checkpoint.safetensors" "$T/${name}_ckpt"; ok $? "and leaves the checkpoint as it was"
  expect_rc 0 "and with it, the run goes on" -- "$RLHOST" run --resume "$T/$name" --set run.steps=1600
}
sde_resume sde "$MSDE" "tensor 'actor/layer1.weight' is F32 [1, 16] in the checkpoint, but the config builds F32 [2, 16]" \
  "names the actor's head, one mean without gSDE's log-stds beside it" --set run.steps=800 --set algo.hidden=[16]
# PPO's gSDE: refused where it cannot work; its matrices resume with the run
PSDE="$SRC/configs/mountain_car_continuous_ppo_sde.cfg"
refuse "PPO's gSDE on discrete actions" "use_sde needs a box action space; this env's actions are discrete" \
  "$SRC/configs/cartpole_ppo.cfg" --set algo.use_sde=true
refuse "PPO's gSDE without a hidden layer" "use_sde needs a hidden layer, whose features its noise is linear in" \
  "$PSDE" --set 'algo.hidden=[]'
refuse "PPO's gSDE resampled every 0 steps" "algo.sde_sample_freq=0: expected an integer in [1, 1e+09]" "$PSDE" \
  --set algo.sde_sample_freq=0
sde_resume psde "$PSDE" "tensor 'actor/log_std' is F32 [64] in the checkpoint, but the config builds F32 [1]" \
  "names the log-stds, gSDE's matrix of them against one" --set run.steps=804
head -c 8192 "$T/psde/checkpoint.safetensors" | tr -d '\\' > "$T/psde_hdr"
contains "$T/psde_hdr" '"greedy":{"identity":"mean"}' "its export rule is the mean, with no state-independent log-std"
expect_rc 0 "a PPO gSDE run evaluates with sampled noise" -- "$RLHOST" eval "$T/psde" --episodes 2 \
  --set algo.deterministic_eval=false
# A2C's gSDE (the SDK's example): the same refusals and the same resume
ASDE="$SRC/configs/mountain_car_continuous_a2c_sde.cfg"
refuse "A2C's gSDE on discrete actions" "use_sde needs a box action space and a hidden layer; this env's actions are discrete" \
  "$SRC/configs/cartpole_a2c.cfg" --set algo.use_sde=true
refuse "A2C's gSDE on hybrid actions" "this env's actions are hybrid (discrete and box)" \
  "$SRC/configs/platform_a2c.cfg" --set algo.use_sde=true
refuse "A2C's gSDE resampled every 0 steps" "algo.sde_sample_freq=0: expected an integer in [1, 1e+09]" "$ASDE" \
  --set algo.sde_sample_freq=0
sde_resume asde "$ASDE" "tensor 'actor/log_std' is F32 [64] in the checkpoint, but the config builds F32 [1]" \
  "names the log-stds, gSDE's matrix of them against one" --set run.steps=800
expect_rc 0 "a SAC run evaluates" -- "$RLHOST" eval "$T/box_sac" --episodes 2 --json --trace "$T/box.csv"
contains "$T/out" '"return_mean"' "with a return"
contains "$T/box.csv" "env,episode,t,action_0,reward" "the trace has a column per action dimension"
expect_rc 0 "a SAC run plays" -- "$RLHOST" play "$T/box_sac" --episodes 1
contains "$T/out" "pendulum  angle" "and the pendulum draws itself"
head -c 4096 "$T/box_sac/checkpoint.safetensors" | tr -d '\\' > "$T/box_hdr"
contains "$T/box_hdr" '"type":"box","dim":1,"low":[-2],"high":[2]' "the checkpoint states the action box"
contains "$T/box_hdr" '"op":"rescale"' "and the policy's rescale into it"
expect_rc 0 "mountain car trains with TD3" -- "$RLHOST" run "$SRC/configs/pendulum_td3.cfg" \
  --set 'env.plugin="mountain_car_continuous"' --set run.steps=600 --set run.eval_episodes=1 --out "$T/box_mc" --force
# TD3 as well: its target actor is a network of its own (a layout read at
# the wrong offsets once made every run differ from the last); TQC's
# critics of quantiles too; CrossQ's running statistics and their warm-up
# counts (renormalizing after 300 training forwards, within the run).
printf 'run: { steps = 600; };\nenv: { plugin = "pendulum"; };\nalgo: { plugin = "sac"; use_sde = true; sde_sample_freq = 4; };\n' \
  >"$T/box_sac_sde.cfg"
printf 'run: { steps = 600; };\nenv: { plugin = "pendulum"; };\nalgo: { plugin = "ppo"; use_sde = true; sde_sample_freq = 30; };\n' \
  >"$T/box_ppo_sde.cfg"
printf 'run: { steps = 600; };\nenv: { plugin = "pendulum"; };\nalgo: { plugin = "a2c"; use_sde = true; sde_sample_freq = 30; };\n' \
  >"$T/box_a2c_sde.cfg"
for algo in sac sac_sde tqc crossq td3 ppo ppo_sde a2c_sde; do
  A="$T/rs_$algo" B="$T/rs_${algo}_cut"
  args=(--set algo.hidden=[32] --set run.eval_episodes=2 --set run.quiet=true --set run.checkpoint_interval=600)
  case $algo in
  ppo*) args+=(--set algo.n_steps=100 --set algo.batch_size=50 --set algo.normalize_reward=true) ;;
  a2c*) args+=(--set algo.n_steps=50 --set algo.normalize_reward=true) ;;
  crossq) args+=(--set algo.save_replay=true --set algo.critic_hidden=[32] --set algo.renorm_warmup_steps=300) ;;
  *) args+=(--set algo.save_replay=true) ;;
  esac
  "$RLHOST" run "$T/box_$algo.cfg" "${args[@]}" --set run.steps=1200 --out "$A" --force >/dev/null 2>&1
  "$RLHOST" run "$T/box_$algo.cfg" "${args[@]}" --set run.steps=600 --out "$B" --force >/dev/null 2>&1
  expect_rc 0 "a $algo run resumes" -- "$RLHOST" run --resume "$B" --set run.steps=1200
  data_of "$A/checkpoint.safetensors" > "$T/ca"; data_of "$B/checkpoint.safetensors" > "$T/cb"
  cmp -s "$T/ca" "$T/cb"; ok $? "$algo: the resumed run ends with every tensor of the uninterrupted one"
done

# The same run twice, with malloc filling new and freed blocks differently
# (0 leaves them as they come): a result that reads memory it never wrote
# tends to differ between the two.
for algo in sac sac_sde tqc crossq td3 ddpg ppo ppo_sde a2c_sde dqn; do
  cfg="$T/box_$algo.cfg" args=(--set algo.hidden=[32] --set run.steps=1200)
  case $algo in ppo*) args+=(--set algo.n_steps=100 --set algo.batch_size=50 --set algo.normalize_obs=true) ;; esac
  case $algo in a2c*) args+=(--set algo.n_steps=50 --set algo.normalize_obs=true) ;; esac
  [ $algo = crossq ] && args+=(--set algo.critic_hidden=[32])
  [ $algo = dqn ] && cfg="$DQN" args=(--set run.steps=3000)
  for fill in 0 165; do
    MALLOC_PERTURB_=$fill "$RLHOST" run "$cfg" "${args[@]}" --set run.eval_episodes=2 --set run.quiet=true \
      --out "$T/heap_${algo}_$fill" --force >/dev/null 2>&1
  done
  same_run "$algo, MALLOC_PERTURB_ 0 and 165" "$T/heap_${algo}_0" "$T/heap_${algo}_165"
done

echo "1..$n"
[ $failed = 0 ]
