#!/usr/bin/env bash
# The run directory against a hostile neighbour (anyone who can write to
# it): planted links are never followed or kept, a moved run keeps writing
# into its own directory, --force removes nothing before the new run is
# accepted, and only rlhost's own temporary files are swept.  (TAP)
# Usage: rundir_hostile.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
DQN="$SRC/configs/cartpole_dqn.cfg"
Q="--set run.quiet=true"

# 1. Links planted under every name a run writes point outside; writing
#    replaces them, and nothing outside changes.
D="$T/planted"
expect_rc 0 "a run" -- "$RLHOST" run "$DQN" $Q --set run.steps=2000 --set run.checkpoint_interval=1000 --out "$D"
echo victim > "$T/victim"
for f in metrics.csv summary.json checkpoint.prev.safetensors evals.csv episodes.csv; do
  rm -f "$D/$f"; ln -s "$T/victim" "$D/$f"
done
expect_rc 0 "resume with links planted in the run directory" -- "$RLHOST" run --resume "$D" --set run.steps=4000
[ "$(cat "$T/victim")" = victim ]; ok $? "the file the links point at is unchanged"
bad=0
for f in metrics.csv summary.json checkpoint.safetensors checkpoint.prev.safetensors episodes.csv; do
  [ -f "$D/$f" ] && [ ! -L "$D/$f" ] || bad=1
done
[ $bad = 0 ]; ok $? "the run's files are its own regular files again"
# A checkpoint that is a link out of the directory is not read: the previous one is.
cp "$D/checkpoint.safetensors" "$T/elsewhere.safetensors"
rm "$D/checkpoint.safetensors"; ln -s "$T/elsewhere.safetensors" "$D/checkpoint.safetensors"
expect_rc 0 "eval of a run whose checkpoint is a link" -- "$RLHOST" eval "$D" --episodes 1
contains "$T/err" "is a symbolic link" "the link is named"
contains "$T/err" "using the previous checkpoint" "and the previous checkpoint used"
rm "$D/checkpoint.prev.safetensors"; ln -s "$T/elsewhere.safetensors" "$D/checkpoint.prev.safetensors"
expect_rc 1 "resume when both checkpoints are links" -- "$RLHOST" run --resume "$D" --set run.steps=6000
contains "$T/err" "is a symbolic link" "refused with the reason"
# A FIFO in the checkpoint's place neither blocks eval nor stops the fallback.
F="$T/fifo"
expect_rc 0 "a run" -- "$RLHOST" run "$DQN" $Q --set run.steps=2000 --set run.checkpoint_interval=1000 --out "$F"
rm "$F/checkpoint.safetensors"; mkfifo "$F/checkpoint.safetensors"
expect_rc 0 "eval with a FIFO as its checkpoint" -- timeout 20 "$RLHOST" eval "$F" --episodes 1
contains "$T/err" "not a regular file" "the FIFO is named"
# episodes.csv grows by appends: a resume cuts it back to the checkpoint's
# step (rows past it, a torn last line), and a FIFO in its place is removed.
E="$T/episodes"
expect_rc 0 "a run with a checkpoint every 1000 steps" -- "$RLHOST" run "$DQN" $Q --set run.steps=4500 \
  --set run.checkpoint_interval=1000 --set algo.save_replay=true --out "$E"
cp -r "$E" "$T/episodes_whole"
cp "$E/checkpoint.prev.safetensors" "$E/checkpoint.safetensors" # as if killed after step 4000's checkpoint
cp "$E/replay.prev.safetensors" "$E/replay.safetensors"
printf '4010,1.0,0,500,500\n4020,1.0,1,5' >> "$E/episodes.csv"
expect_rc 0 "it resumes past rows written after the checkpoint and a torn line" -- "$RLHOST" run --resume "$E"
learn_cols "$E/episodes.csv" > "$T/e1"; learn_cols "$T/episodes_whole/episodes.csv" > "$T/e2"
cmp -s "$T/e1" "$T/e2"; ok $? "its episodes.csv is the uninterrupted run's, row for row"
cp "$T/episodes_whole/checkpoint.prev.safetensors" "$E/checkpoint.safetensors"
cp "$T/episodes_whole/replay.prev.safetensors" "$E/replay.safetensors"
rm "$E/episodes.csv"; mkfifo "$E/episodes.csv"
expect_rc 0 "a resume with a FIFO as episodes.csv" -- timeout 20 "$RLHOST" run --resume "$E"
[ -f "$E/episodes.csv" ] && [ ! -p "$E/episodes.csv" ] && [ "$(head -c 5 "$E/episodes.csv")" = step, ]
ok $? "replaces it with a file of its own, from the resumed step on"
ls -A "$D" "$F" "$E" | grep -q '\.tmp$'; [ $? != 0 ]; ok $? "no temporary file is left behind"

# 2. A running run moved away keeps writing into its own directory; a new
#    run at the old path is a separate run.
A="$T/moving"
"$RLHOST" run "$DQN" $Q --set run.steps=100000000 --set run.eval_episodes=0 --set run.checkpoint_interval=500 \
  --set run.seed=11 --out "$A" >/dev/null 2>"$T/aerr" &
pid=$!
for _ in $(seq 100); do [ -e "$A/checkpoint.safetensors" ] && break; sleep 0.1; done
mv "$A" "$T/moved"
expect_rc 0 "a new run at the moved run's old path" -- "$RLHOST" run "$DQN" $Q --set run.steps=1000 --set run.seed=22 \
  --set run.checkpoint_interval=500 --out "$A"
s1=$(meta_step "$T/moved/checkpoint.safetensors")
sleep 1
kill -INT $pid; wait $pid
[ $? = 130 ]; ok $? "the moved run stops on SIGINT with exit 130"
s2=$(meta_step "$T/moved/checkpoint.safetensors")
[ "$s2" -gt "$s1" ]; ok $? "the moved run kept checkpointing into its directory ($s1 -> $s2)"
grep -q 'seed = 22' "$A/config.cfg" && [ "$(meta_step "$A/checkpoint.safetensors")" = 1000 ]
ok $? "the new run's directory holds only the new run"
grep -q 'seed = 11' "$T/moved/config.cfg"; ok $? "the moved run's config is its own"

# 3. --force removes nothing until the new run was accepted.
G="$T/forced"
expect_rc 0 "a run" -- "$RLHOST" run "$DQN" $Q --set run.steps=2000 --out "$G"
cp "$G/checkpoint.safetensors" "$T/g.ckpt"
expect_rc 2 "--force with an option the algorithm refuses at create" -- "$RLHOST" run "$DQN" $Q --force --out "$G" \
  --set algo.dueling=true --set 'algo.hidden=[]'
cmp -s "$G/checkpoint.safetensors" "$T/g.ckpt" && [ -e "$G/metrics.csv" ] && [ -e "$G/summary.json" ]
ok $? "the old run is intact"
expect_rc 2 "a refused run into a new directory" -- "$RLHOST" run "$DQN" $Q --out "$T/never/made" \
  --set algo.dueling=true --set 'algo.hidden=[]'
[ ! -e "$T/never/made" ]; ok $? "leaves no empty directory behind"

# 4. The sweep removes only rlhost's own temporary files, and only once a
#    run was accepted into the directory.
H="$T/sweep"
expect_rc 0 "a run" -- "$RLHOST" run "$DQN" $Q --set run.steps=1000 --out "$H"
echo mine > "$H/notes.tmp.42"
echo mine > "$H/.results.0123456789abcdef.tmp"
echo stale > "$H/.metrics.csv.0123456789abcdef.tmp"
ln -s "$T/victim" "$H/.summary.json.0123456789abcdef.tmp"
expect_rc 2 "a refused run (the directory holds a run)" -- "$RLHOST" run "$DQN" $Q --out "$H"
[ -e "$H/.metrics.csv.0123456789abcdef.tmp" ]; ok $? "a refused run sweeps nothing"
expect_rc 0 "resume" -- "$RLHOST" run --resume "$H" --set run.steps=2000
[ ! -e "$H/.metrics.csv.0123456789abcdef.tmp" ]; ok $? "rlhost's stale temporary file is removed"
[ -e "$H/notes.tmp.42" ] && [ -e "$H/.results.0123456789abcdef.tmp" ]; ok $? "the user's files stay"
[ -L "$H/.summary.json.0123456789abcdef.tmp" ] && [ "$(cat "$T/victim")" = victim ]
ok $? "a link with a temporary file's name stays, and its target too"
U="$T/notarun"
mkdir "$U"; echo mine > "$U/.metrics.csv.0123456789abcdef.tmp"
expect_rc 2 "a refused run into a directory that is not a run" -- "$RLHOST" run "$DQN" $Q --out "$U" \
  --set algo.dueling=true --set 'algo.hidden=[]'
[ -e "$U/.metrics.csv.0123456789abcdef.tmp" ]; ok $? "nothing in it is touched"

echo "1..$n"
[ $failed = 0 ]
