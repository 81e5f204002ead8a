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
. "$(dirname "$0")/lib.sh"
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
[ ! -e "$T/MUJOCO_LOG.TXT" ]; ok $? "MuJoCo leaves no MUJOCO_LOG.TXT behind"
echo "1..$n"
[ $failed = 0 ]
