#!/usr/bin/env bash
# The run lifecycle: checkpoints (format, interval, the previous one kept),
# eval, play, resume, signals, a NaN keeping the last good checkpoint, and
# corrupt or mismatched checkpoints refused with their sentence.  (TAP)
# Usage: lifecycle.sh RLHOST SOURCE_ROOT FIXTURE_DIR
set -u
RLHOST=$1 SRC=$2 FIXTURES=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"

DQN="$SRC/configs/cartpole_dqn.cfg"
R="$T/run"
expect_rc 0 "train with checkpoint_interval" -- "$RLHOST" run "$DQN" --set run.steps=6000 --set run.checkpoint_interval=2000 --set run.eval_interval=0 --set run.quiet=true --out "$R"
[ -s "$R/checkpoint.safetensors" ] && [ -s "$R/checkpoint.prev.safetensors" ]; ok $? "checkpoint and the previous one kept"
[ "$(meta_step "$R/checkpoint.safetensors")" = 6000 ]; ok $? "final checkpoint at step 6000"
[ "$(meta_step "$R/checkpoint.prev.safetensors")" = 6000 ] || [ "$(meta_step "$R/checkpoint.prev.safetensors")" = 4000 ]; ok $? "previous checkpoint from an earlier write"
header "$R/checkpoint.safetensors" > "$T/h"
contains "$T/h" '"q/layer0.weight":{"dtype":"F32","shape":[64,4],"data_offsets":[' "safetensors header names tensors by role with dtype, shape, offsets"
contains "$T/h" '"target/q/layer2.bias":{"dtype":"F32","shape":[2]' "target network saved"
contains "$T/h" '"adam/m/q/layer1.weight"' "optimizer state saved"
contains "$T/h" '"rlhost.config":"# Fully resolved' "resolved config in the metadata"
ls "$R" | grep -q '\.new\|tmp'; [ $? != 0 ]; ok $? "no temporary files left"

expect_rc 0 "eval a run directory" -- "$RLHOST" eval "$R" --episodes 5
contains "$T/out" "return  mean" "eval prints the return"
expect_rc 0 "eval --json" -- "$RLHOST" eval "$DQN" --checkpoint "$R/checkpoint.safetensors" --episodes 3 --json
contains "$T/out" '"return_max":' "eval --json has min/max"
expect_rc 0 "play a checkpoint" -- "$RLHOST" play "$R" --episodes 1
contains "$T/out" "episode 1: return" "play shows the trained agent's episode"

# resume continues the step count and the metrics
expect_rc 0 "resume to 10000 steps" -- "$RLHOST" run --resume "$R" --set run.steps=10000
[ "$(meta_step "$R/checkpoint.safetensors")" = 10000 ]; ok $? "resumed run ends at step 10000"
[ "$(grep -c . "$R/metrics.csv")" -ge 3 ]; ok $? "metrics.csv keeps the rows before the resume"
contains "$R/summary.json" '"steps": 10000' "summary of the resumed run"
expect_rc 2 "resume with a CONFIG too is a usage error" -- "$RLHOST" run "$DQN" --resume "$R"

# Exact resume (exact in lib.sh) with one replica; lifecycle_replicas.sh
# runs the same with two.
exact dqn "$DQN" 4000 --set run.steps=30000 --set run.eval_interval=5000 --set run.log_interval=2000 --set algo.save_replay=true
exact snake_all "$SRC/configs/snake_dqn_all.cfg" 8000 --set run.steps=40000 --set run.eval_interval=10000 --set run.eval_episodes=10 --set algo.learning_starts=2000 --set run.log_interval=5000 --set algo.save_replay=true
# A2C, the SDK's example: checkpoints fall mid-rollout (20008 steps is
# vector step 2501: step 1 of a 5-step rollout, step 5 of a 32-step one)
exact a2c "$SRC/configs/cartpole_a2c.cfg" 20004 --set run.steps=300000 --set run.log_interval=20000 --set run.eval_episodes=5
exact a2c_box "$SRC/configs/pendulum_a2c.cfg" 20004 --set run.steps=200000 --set run.log_interval=20000 --set run.eval_episodes=5
# the SDK's examples: the off-policy learner (its replay kept) and the env template
exact mini_dqn "$SRC/examples/offpolicy/cartpole.cfg" 3000 --set run.steps=8000 --set run.log_interval=1000 --set algo.save_replay=true
exact catch "$SRC/examples/env-template/catch.cfg" 8192 --set run.steps=20000 --set run.log_interval=4096
exact rppo "$SRC/configs/cartpole_nov_rppo.cfg" 4096 --set run.steps=20000 --set run.log_interval=2048 --set run.eval_episodes=5
# normalize_obs statistics travel with the checkpoint: `eval` of the run
# directory reproduces the run's own final evaluation.
want=$(sed -n 's/^ *"eval_return_mean": \([-0-9.e+]*\).*/\1/p' "$T/rppo-a/summary.json")
got=$("$RLHOST" eval "$T/rppo-a" --episodes 5 --json 2>/dev/null | sed -n 's/.*"return_mean": \([-0-9.e+]*\).*/\1/p')
[ -n "$want" ] && [ "$want" = "$got" ]; ok $? "eval from the checkpoint (normalize_obs) matches the run's evaluation ($want, $got)"
# The same after periodic evaluations (they advance the eval envs) and
# keep_best: the final evaluation starts the eval seed stream over, as
# `eval` does, so it plays the same episodes.  (The config evaluates every
# 2500 steps and keeps the best; at 20k steps the policy is not yet perfect,
# so other episodes give another mean: 164.2 when the final evaluation went on
# from the periodic ones, against 187.6.)
"$RLHOST" run "$DQN" --set run.steps=20000 --set run.eval_episodes=5 --set run.quiet=true --out "$T/dqn-kb" >/dev/null 2>&1
want=$(sed -n 's/^ *"eval_return_mean": \([-0-9.e+]*\).*/\1/p' "$T/dqn-kb/summary.json")
got=$("$RLHOST" eval "$T/dqn-kb" --episodes 5 --json 2>/dev/null | sed -n 's/.*"return_mean": \([-0-9.e+]*\).*/\1/p')
[ -n "$want" ] && [ "$want" = "$got" ]; ok $? "eval after periodic evaluations and keep_best matches the run's final evaluation ($want, $got)"
exact tmaze "$SRC/configs/tmaze_rppo.cfg" 4096 --set run.steps=20000 --set run.log_interval=2048 --set run.eval_episodes=10
# boards of four snakes (agent rows, board RNGs and food lists), with a CNN
exact snake_multi_cnn "$SRC/configs/snake_multi_ppo.cfg" 4096 --set run.steps=16384 --set run.log_interval=4096 \
  --set run.eval_episodes=8 --set 'env.observation="grid"' --set 'algo.encoder="cnn"' --set 'algo.cnn_channels=[8, 8]' \
  --set algo.hidden=[64]

# SIGINT: checkpoint and outputs written, exit 130
"$RLHOST" run "$DQN" --set run.steps=1e12 --set run.eval_interval=0 --out "$T/int" >"$T/out" 2>"$T/err" &
pid=$!
for i in $(seq 50); do [ -s "$T/int/config.cfg" ] && break; sleep 0.1; done
sleep 0.5
kill -INT $pid; wait $pid; rc=$?
[ $rc = 130 ]; ok $? "SIGINT exits 130 (got $rc)"
[ -s "$T/int/checkpoint.safetensors" ]; ok $? "SIGINT still writes a checkpoint"
expect_rc 0 "the interrupted run's checkpoint evaluates" -- "$RLHOST" eval "$T/int" --episodes 2

# NaN in training: stop with the step and tensor named, exit 1, last good checkpoint kept
cat > "$T/nan.cfg" <<'CFG'
run: { steps = 1000; checkpoint_interval = 100; eval_episodes = 0; quiet = true; };
env: { plugin = "fixture_env"; needed = 1; num_envs = 2; };
algo: { plugin = "fixture_algo"; needed = 3; };
CFG
expect_rc 1 "a non-finite loss fails the run" -- "$RLHOST" run "$T/nan.cfg" --plugin-path "$FIXTURES" --out "$T/nan"
contains "$T/err" "at step 300: non-finite loss at step 300 in tensor 'fixture/w'" "the failure names the step and the tensor"
[ "$(meta_step "$T/nan/checkpoint.safetensors")" = 200 ]; ok $? "the last good checkpoint (step 200) is kept"
contains "$T/nan/summary.json" '"status": "failed"' "summary records the failure"

# An env whose episodes never end and that declares no time limit: the
# final evaluation stops at RL__EVAL_MAX_EPISODE_STEPS with a sentence, the
# run fails and its final checkpoint stays (it would run forever otherwise).
printf 'run: { steps = 200; eval_episodes = 2; quiet = true; };\nenv: { plugin = "fixture_env"; needed = 1; count = 4; num_envs = 2; };\nalgo: { plugin = "fixture_algo"; needed = 100; };\n' > "$T/endless.cfg"
expect_rc 1 "an evaluation of an env that never ends stops" -- "$RLHOST" run "$T/endless.cfg" --plugin-path "$FIXTURES" --out "$T/endless"
contains "$T/err" "episode has run 1000000 steps without ending; an env that never ends cannot be evaluated" "saying why, and what to do"
contains "$T/err" "evaluation: env 0's episode has run 100000 steps without ending, and its env declares no time limit" "and said so on stderr long before it stopped"
[ -s "$T/endless/checkpoint.safetensors" ]; ok $? "the run's checkpoint stays"

# An env returning a NaN observation: the run stops at that step, naming the env row and
# element, with the last checkpoint from before it.
printf 'run: { steps = 400; checkpoint_interval = 20; eval_episodes = 0; quiet = true; };\nenv: { plugin = "fixture_env"; needed = 1; count = 10; num_envs = 1; };\nalgo: { plugin = "ppo"; hidden = [8]; n_steps = 8; batch_size = 8; n_epochs = 1; };\n' > "$T/nanobs.cfg"
expect_rc 1 "a NaN observation stops the run" -- "$RLHOST" run "$T/nanobs.cfg" --plugin-path "$FIXTURES" --out "$T/nanobs"
contains "$T/err" "env 'fixture_env' returned an observation holding nan at env 0, element 0: observations must be finite" \
  "naming the env, the row and the element"
s=$(meta_step "$T/nanobs/checkpoint.safetensors")
[ -n "$s" ] && [ "$s" -le 60 ]; ok $? "the last checkpoint is from before the NaN (step $s)"

# The real algorithms on NaN rewards: stop (naming what) or skip the batch.
for algo in dqn ppo; do
  if [ $algo = dqn ]; then extra="learning_starts = 10; batch_size = 8; train_freq = 1;"; else extra="n_steps = 8; batch_size = 8; n_epochs = 1;"; fi
  printf 'run: { steps = 400; checkpoint_interval = 20; eval_episodes = 0; quiet = true; };\nenv: { plugin = "fixture_env"; needed = 1; count = 8; num_envs = 1; };\nalgo: { plugin = "%s"; hidden = [8]; %s };\n' "$algo" "$extra" > "$T/$algo-nan.cfg"
  expect_rc 1 "$algo stops on a NaN reward" -- "$RLHOST" run "$T/$algo-nan.cfg" --plugin-path "$FIXTURES" --out "$T/$algo-nan"
  contains "$T/err" "non-finite" "$algo says what went non-finite"
  s=$(meta_step "$T/$algo-nan/checkpoint.safetensors")
  [ -n "$s" ] && [ "$s" -le 60 ]; ok $? "$algo keeps the last checkpoint from before the NaN (step $s)"
  expect_rc 0 "$algo with on_nonfinite = skip runs on" -- "$RLHOST" run "$T/$algo-nan.cfg" --plugin-path "$FIXTURES" --set algo.on_nonfinite=skip --out "$T/$algo-skip"
  col=$(head -1 "$T/$algo-skip/metrics.csv" | tr , '\n' | grep -n '^skipped_batches$' | cut -d: -f1)
  sk=$(tail -1 "$T/$algo-skip/metrics.csv" | cut -d, -f"$col")
  awk -v s="$sk" 'BEGIN { exit !(s > 0) }'; ok $? "$algo counts the skipped batches ($sk)"
done

# A full disk: a 128 KiB tmpfs holds one 78 KiB checkpoint but not a second
# one beside it.  The run fails with a clear error; the first one survives.
mkdir -p "$T/tiny"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=128k tmpfs "$T/tiny" 2>/dev/null; then
  expect_rc 1 "a full disk fails the run" -- "$RLHOST" run "$DQN" --set run.steps=6000 --set run.checkpoint_interval=2000 --set run.eval_interval=0 --set run.quiet=true --out "$T/tiny/run"
  contains "$T/err" "No space left on device" "the error says the disk is full"
  [ "$(meta_step "$T/tiny/run/checkpoint.safetensors")" = 2000 ]; ok $? "the previous checkpoint (step 2000) survives intact"
  expect_rc 0 "and it still evaluates" -- "$RLHOST" eval "$T/tiny/run" --episodes 2
  umount "$T/tiny"
else
  n=$((n + 1)); echo "ok $n - # SKIP full-disk test needs root to mount a tmpfs"
fi

# corrupt and mismatched checkpoints: one sentence each, exit 1, no crash
C="$R/checkpoint.safetensors"
printf 'garbage' > "$T/short.st"
expect_rc 1 "a 7-byte file" -- "$RLHOST" eval "$DQN" --checkpoint "$T/short.st"
contains "$T/err" "short.st: not a safetensors file" "short file refused"
head -c 1000 "$C" > "$T/trunc.st"
expect_rc 1 "a truncated checkpoint" -- "$RLHOST" eval "$DQN" --checkpoint "$T/trunc.st"
contains "$T/err" "trunc.st: header length" "truncated file refused: header beyond the end"
{ printf '\377\377\377\377\377\377\377\177'; tail -c +9 "$C"; } > "$T/hugelen.st"
expect_rc 1 "a huge header length" -- "$RLHOST" eval "$DQN" --checkpoint "$T/hugelen.st"
contains "$T/err" "does not fit the file" "huge header length refused"
sed 's/"dtype":"F32"/"dtype":"F33"/' "$C" > "$T/dtype.st"
expect_rc 1 "an unknown dtype" -- "$RLHOST" eval "$DQN" --checkpoint "$T/dtype.st"
contains "$T/err" "unsupported dtype 'F33'" "unknown dtype refused"
sed 's/"__metadata__":{/"__metadata__":[/' "$C" > "$T/json.st"
expect_rc 1 "malformed JSON" -- "$RLHOST" eval "$DQN" --checkpoint "$T/json.st"
contains "$T/err" "corrupt header" "malformed JSON refused"
len=$(od -An -t u8 -N 8 "$C" | tr -d ' ')
head -c $((8 + len + 100)) "$C" > "$T/data.st"
expect_rc 1 "data cut short" -- "$RLHOST" eval "$DQN" --checkpoint "$T/data.st"
contains "$T/err" "bytes of data" "tensor offsets beyond the data refused"
expect_rc 1 "a checkpoint for another network" -- "$RLHOST" eval "$DQN" --checkpoint "$C" --set "algo.hidden=[32, 32]"
contains "$T/err" "tensor 'q/layer0.weight' is F32 [64, 4] in the checkpoint, but the config builds F32 [32, 4]" "shape mismatch named"
expect_rc 1 "a checkpoint for another algorithm" -- "$RLHOST" eval "$SRC/configs/cartpole_ppo.cfg" --checkpoint "$C"
contains "$T/err" "was written for env 'cartpole' and algo 'dqn', but the config uses 'cartpole' and 'ppo'" "plugin mismatch named"
expect_rc 1 "a missing checkpoint" -- "$RLHOST" eval "$DQN" --checkpoint "$T/none.st"
contains "$T/err" "cannot open" "missing checkpoint named"

# plot: an SVG with both panels, a band for several runs
expect_rc 0 "plot one run" -- "$RLHOST" plot "$R"
[ -s "$R/curve.svg" ]; ok $? "plot writes OUT_DIR/curve.svg by default"
expect_rc 0 "plot two runs" -- "$RLHOST" plot "$R" "$T/dqn-a" -o "$T/two.svg"
contains "$T/two.svg" "<svg xmlns='http://www.w3.org/2000/svg'" "an SVG document"
contains "$T/two.svg" "fill-opacity='0.2'" "the min-max band of several runs"
contains "$T/two.svg" ">steps/s</text>" "the steps/s panel"
contains "$T/two.svg" ">environment steps</text>" "axis labels"
grep -c "<path" "$T/two.svg" | awk '{ exit !($1 >= 4) }'; ok $? "curves drawn"
expect_rc 1 "plot a directory that is not a run" -- "$RLHOST" plot "$T"
contains "$T/err" "metrics.csv: cannot open" "plot names what is missing"

# play --follow: started before the run, it waits for it, then plays each
# newer checkpoint the training writes, until interrupted.
"$RLHOST" run "$DQN" --set run.steps=300000 --set run.checkpoint_interval=20000 --set run.quiet=true \
  --out "$T/follow" >/dev/null 2>&1 &
train=$!
"$RLHOST" play "$T/follow" --follow >"$T/fout" 2>"$T/ferr" &
play=$!
for _ in $(seq 600); do [ "$(grep -c 'checkpoint of step' "$T/ferr")" -ge 3 ] && break; sleep 0.1; done
kill -INT $play 2>/dev/null; wait $play; rc=$?
kill $train 2>/dev/null; wait $train 2>/dev/null
contains "$T/ferr" "waiting for the" "play --follow waits for the run"
steps=$(sed -n 's/.*checkpoint of step \([0-9]*\)$/\1/p' "$T/ferr" | tr '\n' ' ')
echo "$steps" | awk '{ ok = NF >= 3; for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) ok = 0; exit !ok }'
ok $? "and plays ever newer checkpoints as the training writes them ($steps)"
grep -q '^episode [0-9]*: return' "$T/fout"; ok $? "episodes were played"
[ "$rc" = 0 ] || [ "$rc" = 130 ]; ok $? "Ctrl-C ends it (exit $rc)"

echo "1..$n"
[ $failed = 0 ]
