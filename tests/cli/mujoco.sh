#!/usr/bin/env bash
# The mujoco env through rlhost: the version line, training and eval, an
# exact resume (the env's qpos, qvel, act, time and RNG in the checkpoint),
# refused checkpoints with damaged env state, and every way a model can be
# wrong (missing file, broken MJCF, a model that does not fit the task), each
# one sentence and exit 2.  (TAP)
# Usage: mujoco.sh RLHOST SOURCE_ROOT
set -u
RL=$(realpath "$1") SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
cd "$T"
"$RL" --version >"$T/v"; contains "$T/v" "MuJoCo: 3.17.0" "rlhost --version names MuJoCo's version"
cat >"$T/sac.cfg" <<'EOC'
run: { steps = 3000; seed = 3; out_dir = "run"; eval_episodes = 2; checkpoint_interval = 1000; quiet = true; };
env: { plugin = "mujoco"; task = "half_cheetah"; num_envs = 2; max_steps = 400; };
algo: { plugin = "sac"; learning_starts = 500; hidden = [32, 32]; batch_size = 64; save_replay = true; };
EOC
expect_rc 0 "SAC trains on half_cheetah" -- "$RL" run "$T/sac.cfg" --out "$T/full"
expect_rc 0 "and evaluates from its run directory" -- "$RL" eval "$T/full" --episodes 1
# the same run, stopped at 2000 steps and resumed: the same checkpoint bytes
expect_rc 0 "a run to 2000 steps" -- "$RL" run "$T/sac.cfg" --out "$T/part" --set run.steps=2000
expect_rc 0 "resumed to 3000" -- "$RL" run --resume "$T/part" --set run.steps=3000
# every tensor (the metadata names each run's own directory)
python3 - "$T/full/checkpoint.safetensors" "$T/part/checkpoint.safetensors" >"$T/cmp" <<'EOP'
import json, struct, sys
def tensors(p):
    raw = open(p, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    h = json.loads(raw[8:8 + n])
    h.pop("__metadata__", None)
    return {k: raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]] for k, v in h.items()}
a, b = tensors(sys.argv[1]), tensors(sys.argv[2])
diff = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
print(len(a), "tensors;", "differ:", diff[:5])
sys.exit(1 if diff or "env/mujoco/state" not in a else 0)
EOP
okf_rc=$?
ok $okf_rc "the resumed run ends with the uninterrupted run's checkpoint: every tensor equal, env state included ($(cat "$T/cmp"))"
# damaged env state in a checkpoint: refused, the previous one used
python3 - "$T/part/checkpoint.safetensors" <<'EOP'
import json, struct, sys
p = sys.argv[1]
raw = bytearray(open(p, "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
a, b = h["env/mujoco/state"]["data_offsets"]
raw[8 + n + a:8 + n + a + 8] = struct.pack("<d", float("nan"))
open(p, "wb").write(raw)
EOP
resign "$T/part/checkpoint.safetensors" # crafted to pass the CRC-32s: the state's own check refuses it
"$RL" run --resume "$T/part" --set run.steps=4000 >"$T/out" 2>"$T/err"
contains "$T/err" "non-finite value" "resuming: a NaN in the env's saved state is named (the previous checkpoint is used)"
# models that cannot be
expect_rc 2 "a missing model file" -- "$RL" check "$T/sac.cfg" --set 'env.model_path="/nonexistent/cheetah.xml"'
contains "$T/err" "env.model_path: /nonexistent/cheetah.xml" "naming the option and the file"
printf '<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1"/></worldbody></mujoco>\n' >"$T/broken.xml"
expect_rc 2 "a broken MJCF file" -- "$RL" check "$T/sac.cfg" --set "env.model_path=\"$T/broken.xml\""
contains "$T/err" "broken.xml" "naming it, with MuJoCo's reason"
printf '<mujoco><worldbody><body><joint type="hinge"/><geom size="0.1"/></body></worldbody></mujoco>\n' >"$T/noact.xml"
expect_rc 2 "a model without actuators" -- "$RL" check "$T/sac.cfg" --set "env.model_path=\"$T/noact.xml\""
contains "$T/err" "does not fit task 'half_cheetah'" "saying it does not fit the task"
expect_rc 2 "healthy ranges that hold nothing" -- "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
  --set env.healthy_z_min=3 --set env.healthy_z_max=1
contains "$T/err" "env.healthy_z_min (3) must be below env.healthy_z_max (1)" "saying which"
expect_rc 2 "an unknown task" -- "$RL" check "$T/sac.cfg" --set 'env.task="swimmer"'
contains "$T/err" "env.task" "naming the option"
# a model of another robot: refused, naming the task whose shape it has
MODELS=$(dirname "$RL")/../envs/mujoco/mujoco_models
expect_rc 2 "hopper with Ant's model" -- "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$MODELS/ant.xml\""
contains "$T/err" "does not fit task 'hopper': it has 15 positions, 8 actuators and 14 bodies" "saying what it has"
contains "$T/err" 'the shape of env.task = "ant"' "and whose shape it is"
expect_rc 2 "ant with Hopper's model" -- "$RL" check "$T/sac.cfg" --set 'env.task="ant"' \
  --set "env.model_path=\"$MODELS/hopper.xml\""
expect_rc 2 "hopper with HalfCheetah's model" -- "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$MODELS/half_cheetah.xml\""
sed 's/gear="200.0"/gear="150.0"/g' "$MODELS/hopper.xml" >"$T/hopper_mine.xml"
expect_rc 0 "a Hopper of other gears fits its task" -- "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$T/hopper_mine.xml\""
# a FIFO as the model, or included by it: refused before MuJoCo would block on it
mkfifo "$T/fifo.xml"
expect_rc 2 "a FIFO as the model" -- timeout 20 "$RL" check "$T/sac.cfg" --set "env.model_path=\"$T/fifo.xml\""
contains "$T/err" "is not a regular file (a FIFO)" "saying what it is"
sed 's|<worldbody>|<include file="fifo.xml"/><worldbody>|' "$MODELS/hopper.xml" >"$T/inc.xml"
expect_rc 2 "a model including a FIFO" -- timeout 20 "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$T/inc.xml\""
contains "$T/err" "inc.xml names $T/fifo.xml, which is not a regular file" "naming both files"
# the name as MuJoCo's XML parser reads it: character references and entities decoded
for ref in 'fi&#102;o.xml' '&#x66;ifo.xml' 'fifo&#46;xml' './fifo.xml' '&#46;/fifo.xml'; do
  sed "s|<worldbody>|<include file=\"${ref//&/\\&}\"/><worldbody>|" "$MODELS/hopper.xml" >"$T/inc_ref.xml"
  expect_rc 2 "a model including the FIFO as $ref" -- timeout 20 "$RL" check "$T/sac.cfg" --set 'env.task="hopper"' \
    --set "env.model_path=\"$T/inc_ref.xml\""
  contains "$T/err" "which is not a regular file (a FIFO)" "$ref: refused, not waited on"
done
# an unstable simulation stops the run with a sentence
sed 's/timestep="0.002"/timestep="5"/' "$MODELS/hopper.xml" >"$T/hopper_ts5.xml"
expect_rc 1 "a timestep of 5 s diverges" -- "$RL" run "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$T/hopper_ts5.xml\"" --out "$T/unstable"
contains "$T/err" "the simulation became unstable" "and the run says so, not a return of -1e6"
# a resume on a model that changed since is refused; restored, it resumes
cp "$MODELS/hopper.xml" "$T/hopper_changing.xml"
expect_rc 0 "a run on a model of its own" -- "$RL" run "$T/sac.cfg" --set 'env.task="hopper"' \
  --set "env.model_path=\"$T/hopper_changing.xml\"" --set run.steps=2000 --out "$T/changing"
sed -i 's/gear="200.0"/gear="20000.0"/g' "$T/hopper_changing.xml"
expect_rc 2 "resuming after the model's gears changed" -- "$RL" run --resume "$T/changing" --set run.steps=3000
contains "$T/err" "stepped another model" "is refused, saying why"
cp "$MODELS/hopper.xml" "$T/hopper_changing.xml"
expect_rc 0 "the same model back: the run resumes" -- "$RL" run --resume "$T/changing" --set run.steps=3000
# Ctrl-C while a large model compiles ends the run at once (MuJoCo's compile cannot be stopped:
# it runs on a thread the run leaves behind)
awk 'BEGIN { while ((getline l < ARGV[1]) > 0) { if (!done && sub(/<worldbody>/, "<worldbody>", l)) {
  printf "<worldbody>"; for (i = 0; i < 80000; i++) printf "<geom type=\"box\" size=\"0.1 0.1 0.1\" pos=\"%d %d -5\" contype=\"0\" conaffinity=\"0\"/>", i % 300, i / 300;
  sub(/<worldbody>/, "", l); done = 1 } print l } }' "$MODELS/hopper.xml" >"$T/big.xml"
"$RL" run "$T/sac.cfg" --set 'env.task="hopper"' --set "env.model_path=\"$T/big.xml\"" --out "$T/big" 2>"$T/err" &
pid=$!
sleep 1.5
start=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
ok $([ $rc = 130 ] && [ $ms -lt 5000 ] && echo 0 || echo 1) "SIGINT while the model compiles: exit 130 in $ms ms (exit $rc)"
[ ! -e "$T/big/config.cfg" ]; ok $? "and the run directory was not claimed"
[ ! -e "$T/MUJOCO_LOG.TXT" ]; ok $? "MuJoCo leaves no MUJOCO_LOG.TXT behind"
echo "1..$n"
[ $failed = 0 ]
