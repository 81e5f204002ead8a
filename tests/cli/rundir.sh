#!/usr/bin/env bash
# The run directory as a hostile user meets it: no silent overwrite, one
# writer at a time, stale temporary files cleaned, a failed resume writes
# nothing, the checkpoint's config compared, metrics.csv cut back to the
# checkpoint, the previous checkpoint as fallback, the replay paired with its
# checkpoint, and SIGKILL at random moments never losing the run.  (TAP)
# Usage: rundir.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
DQN="$SRC/configs/cartpole_dqn.cfg"
Q="--set run.quiet=true"
R="$T/run"

# No silent overwrite; --force replaces the whole run.
expect_rc 0 "a new run" -- "$RLHOST" run "$DQN" $Q --set run.steps=4000 --set run.checkpoint_interval=1000 --out "$R"
expect_rc 2 "a second run into the same out_dir is refused" -- "$RLHOST" run "$DQN" $Q --set run.steps=2000 --out "$R"
contains "$T/err" "holds another run (config.cfg); continue it with 'rlhost run --resume" "the refusal says how to continue or replace"
[ "$(meta_step "$R/checkpoint.safetensors")" = 4000 ]; ok $? "the refused run changed nothing"
expect_rc 0 "--force replaces it" -- "$RLHOST" run "$DQN" $Q --set run.steps=2000 --set run.checkpoint_interval=0 --out "$R" --force
[ "$(meta_step "$R/checkpoint.safetensors")" = 2000 ] && [ ! -e "$R/checkpoint.prev.safetensors" ]
ok $? "nothing of the replaced run stays (no previous checkpoint from it)"

# A run killed before its first checkpoint: its directory holds config.cfg
# alone, and --resume says so and how to start again.
mkdir -p "$T/nock" && cp "$R/config.cfg" "$T/nock/"
expect_rc 1 "resume of a run that never wrote a checkpoint" -- "$RLHOST" run --resume "$T/nock"
contains "$T/err" "holds no checkpoint: the run stopped before its first one; start it again with rlhost run $T/nock/config.cfg --out $T/nock --force" "says so, with the command that starts it again"

# One writer at a time.
"$RLHOST" run "$DQN" $Q --set run.steps=100000000 --set run.eval_episodes=0 --out "$T/busy" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 50); do [ -e "$T/busy/config.cfg" ] && break; sleep 0.1; done
expect_rc 2 "a second writer is refused while a run holds the directory" -- "$RLHOST" run "$DQN" $Q --out "$T/busy" --force
contains "$T/err" "is in use by another rlhost run" "the lock is named"
expect_rc 2 "so is a resume of the running run" -- "$RLHOST" run --resume "$T/busy"
kill -9 $pid; wait $pid 2>/dev/null

# Temporary files of killed writers are removed on the next start.
head -c 100000 /dev/zero > "$R/.checkpoint.safetensors.0123456789abcdef.tmp"
head -c 100 /dev/zero > "$R/.metrics.csv.fedcba9876543210.tmp"
expect_rc 0 "resume" -- "$RLHOST" run --resume "$R" --set run.steps=3000
ls -A "$R" | grep -q '\.tmp$'; [ $? != 0 ]; ok $? "stale temporary files removed"

# A failed resume writes nothing; the config is compared with the checkpoint's.
cp "$R/config.cfg" "$T/config.before"
expect_rc 1 "resume with a network that does not fit the checkpoint" -- "$RLHOST" run --resume "$R" --set run.steps=5000 --set "algo.hidden=[32]"
cmp -s "$R/config.cfg" "$T/config.before"; ok $? "config.cfg untouched by the failed resume"
expect_rc 0 "the run still evaluates" -- "$RLHOST" eval "$R" --episodes 2
sed -i 's/^  gamma = .*/  gamma = 0.5;/' "$R/config.cfg"
expect_rc 1 "resume after config.cfg was edited" -- "$RLHOST" run --resume "$R" --set run.steps=5000
contains "$T/err" "was written with another config (algo.gamma: 0.99 in the checkpoint, 0.5 now)" "what differs is named"
expect_rc 0 "eval of the edited run warns" -- "$RLHOST" eval "$R" --episodes 1
contains "$T/err" "was written with another config: algo.gamma: 0.99 in the checkpoint, 0.5 now" "eval names the difference"
cp "$T/config.before" "$R/config.cfg"
expect_rc 0 "a change given with --set is allowed" -- "$RLHOST" run --resume "$R" --set run.steps=4000 --set algo.gamma=0.98
expect_rc 2 "resume of a complete run" -- "$RLHOST" run --resume "$R"
contains "$T/err" "is complete at step 4000" "says it is complete and how to train on"
# A kill after the final checkpoint, before the summary that says done,
# leaves a run whose resume redoes only the final evaluation.
grep -q '"status": "done"' "$R/summary.json"; ok $? "a finished run's summary says done"
sed -i 's/"status": "done"/"status": "running"/' "$R/summary.json"
cp "$R/checkpoint.safetensors" "$T/final.ckpt"
expect_rc 0 "resume of a run killed before its last summary" -- "$RLHOST" run --resume "$R"
grep -q '"status": "done"' "$R/summary.json"; ok $? "its summary says done now"
cmp -s "$R/checkpoint.safetensors" "$T/final.ckpt"; ok $? "its final checkpoint untouched"

# metrics.csv is cut back to the checkpoint's step on resume.
M="$T/metrics"
expect_rc 0 "a run with log and checkpoint intervals" -- "$RLHOST" run "$DQN" $Q --set run.steps=3200 --set run.log_interval=500 --set run.checkpoint_interval=1000 --out "$M"
cp "$M/checkpoint.prev.safetensors" "$M/checkpoint.safetensors" # as if killed after step 3200's row
expect_rc 0 "resume from step 3000" -- "$RLHOST" run --resume "$M"
contains "$T/err" "replay buffer starts empty" "a resume without save_replay warns that the replay starts empty"
cut -d, -f1 "$M/metrics.csv" | tail -n +2 > "$T/steps"
[ "$(tr '\n' ' ' < "$T/steps")" = "500 1000 1500 2000 2500 3000 3200 " ]; ok $? "each step's row once, in order ($(tr '\n' ' ' < "$T/steps"))"

# The previous checkpoint is the fallback when the newest is bad or missing.
head -c 1000 "$M/checkpoint.safetensors" > "$T/cut" && mv "$T/cut" "$M/checkpoint.safetensors"
expect_rc 0 "eval falls back to the previous checkpoint" -- "$RLHOST" eval "$M" --episodes 1
contains "$T/err" "using the previous checkpoint" "the fallback is said"
before=$(meta_step "$M/checkpoint.prev.safetensors")
expect_rc 0 "a resume falls back past the cut checkpoint" -- "$RLHOST" run --resume "$M" --set run.steps=3500 \
  --set run.checkpoint_interval=100000
# its save replaces the cut file and keeps the one it resumed from, so a
# kill in that save still leaves a good checkpoint
[ -n "$before" ] && [ "$(meta_step "$M/checkpoint.prev.safetensors")" = "$before" ] &&
  [ "$(meta_step "$M/checkpoint.safetensors")" = 3500 ]
ok $? "its next checkpoint keeps the step-$before one it resumed from as the previous"
rm "$M/checkpoint.safetensors"
expect_rc 0 "so does a resume when the newest is missing" -- "$RLHOST" run --resume "$M" --set run.steps=4000
contains "$T/err" "using the previous checkpoint" "the fallback is said on resume"

# The replay is paired with its checkpoint by step.
P="$T/replay"
expect_rc 0 "DQN with save_replay" -- "$RLHOST" run "$DQN" $Q --set run.steps=5000 --set run.checkpoint_interval=2000 --set algo.save_replay=true --out "$P"
[ "$(meta_step "$P/replay.safetensors")" = 5000 ] && [ "$(meta_step "$P/replay.prev.safetensors")" = 4000 ]
ok $? "the replay carries its step and the previous one is kept"
expect_rc 0 "eval of a save_replay run" -- "$RLHOST" eval "$P" --episodes 1
cp "$P/checkpoint.prev.safetensors" "$P/checkpoint.safetensors" # killed between replay and checkpoint
expect_rc 0 "resume pairs the step-4000 checkpoint with the step-4000 replay" -- "$RLHOST" run --resume "$P" \
  --set run.steps=6000 --set run.checkpoint_interval=100000
grep -q "replay buffer starts empty" "$T/err"; [ $? != 0 ]; ok $? "no warning: the pair was exact"
# its next checkpoint (the final one: no periodic one before it) replaces
# the cut-off write's replay and keeps the pair's, so a second kill at the
# same point still resumes exactly
[ "$(meta_step "$P/replay.prev.safetensors")" = 4000 ] && [ "$(meta_step "$P/checkpoint.prev.safetensors")" = 4000 ]
ok $? "the next checkpoint keeps the step-4000 replay beside the step-4000 checkpoint"
cp "$P/checkpoint.prev.safetensors" "$P/checkpoint.safetensors" # killed there again
expect_rc 0 "a second kill between replay and checkpoint resumes too" -- "$RLHOST" run --resume "$P" \
  --set run.steps=7000 --set run.checkpoint_interval=2000
grep -q "replay buffer starts empty" "$T/err"; [ $? != 0 ]; ok $? "no warning: the pair was exact again"
cp "$P/checkpoint.prev.safetensors" "$P/checkpoint.safetensors" # step 6000 now, with replays of 7000 only
cp "$P/replay.safetensors" "$P/replay.prev.safetensors"
cp "$P/episodes.csv" "$T/episodes.before"
expect_rc 1 "a replay of another step is refused" -- "$RLHOST" run --resume "$P" --set run.steps=8000
contains "$T/err" "holds the replay of step 7000, not of the checkpoint's step 6000" "the mismatch is named"
cmp -s "$P/episodes.csv" "$T/episodes.before"; ok $? "episodes.csv keeps its rows past step 6000: the resume was refused"
for f in replay replay.prev; do head -c 1000 "$P/$f.safetensors" > "$T/cut" && mv "$T/cut" "$P/$f.safetensors"; done
expect_rc 1 "a truncated replay is refused" -- "$RLHOST" run --resume "$P" --set run.steps=8000
contains "$T/err" "without the replay of the checkpoint's step 6000" "the truncated replay is named as unreadable, not as another step's"
cmp -s "$P/episodes.csv" "$T/episodes.before"; ok $? "episodes.csv untouched by the refused resume"

# A run of an algorithm without rl.algo.state/1 evaluates.
expect_rc 0 "a template run" -- "$RLHOST" run "$SRC/configs/cartpole_random.cfg" $Q --set run.steps=2000 --out "$T/random"
expect_rc 0 "its run directory evaluates" -- "$RLHOST" eval "$T/random" --episodes 2

# SIGKILL at random moments: after every kill the run evaluates and resumes,
# and the resumed run ends identical to one never killed.
K=$T/kill
args=(--set run.steps=100000 --set run.checkpoint_interval=1500 --set run.log_interval=1500
      --set run.eval_interval=6000 --set run.eval_episodes=3 --set algo.save_replay=true $Q)
t0=$(date +%s%N)
"$RLHOST" run "$DQN" "${args[@]}" --out "$T/whole" >/dev/null 2>&1
# Kill moments are drawn from the length of the whole run, so that kills
# land between checkpoints however slow the build (sanitizers) or the load:
# each within the first quarter of what is left of the run at most, so that
# three segments never cover it all and at least three kills land even when
# the later runs go faster than the measured one (a machine that got idle).
whole_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kills=0 evals_ok=0 resumes=0
for i in $(seq 12); do
  grep -q '"status": "done"' "$K/summary.json" 2>/dev/null && break
  if [ -e "$K/checkpoint.safetensors" ]; then
    "$RLHOST" run --resume "$K" >/dev/null 2>"$T/kerr" & resumes=$((resumes + 1))
  else
    "$RLHOST" run "$DQN" "${args[@]}" --out "$K" --force >/dev/null 2>"$T/kerr" &
  fi
  pid=$!
  ms=$(( whole_ms / 20 + RANDOM % (whole_ms / 5 + 1) ))
  sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
  kill -9 $pid 2>/dev/null && kills=$((kills + 1))
  wait $pid 2>/dev/null
  if [ -e "$K/checkpoint.safetensors" ]; then
    "$RLHOST" eval "$K" --episodes 1 >/dev/null 2>"$T/eerr" && evals_ok=$((evals_ok + 1)) || sed 's/^/#   /' "$T/eerr"
  else
    evals_ok=$((evals_ok + 1)) # killed before the first checkpoint: nothing to evaluate yet
  fi
done
echo "# $kills kills, $resumes resumes"
[ "$evals_ok" = "$i" ] || [ "$evals_ok" = "$((i - 1))" ]; ok $? "after every kill the run directory evaluates ($evals_ok)"
grep -q '"status": "done"' "$K/summary.json" 2>/dev/null || "$RLHOST" run --resume "$K" >/dev/null 2>"$T/kerr"
grep -q '"status": "done"' "$K/summary.json"; ok $? "the killed run completes by resuming"
[ "$resumes" -ge 2 ]; ok $? "at least 2 resumes were killed or finished ($resumes)"
[ "$kills" -ge 3 ]; ok $? "at least 3 kills landed ($kills)"
same_run "killed, against never killed" "$T/whole" "$K"

echo "1..$n"
[ $failed = 0 ]
