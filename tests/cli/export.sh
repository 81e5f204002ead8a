#!/usr/bin/env bash
# rlhost export (docs/export.md): for each kind of policy rlhost trains
# (the DQN family with dueling and CNN heads, PPO with discrete, masked,
# MultiDiscrete, box and hybrid actions, composite observations, recurrent PPO
# with and without a CNN, A2C, SAC, TD3, DDPG, the SDK's mini_dqn,
# observation normalizers, Atari's Nature CNN), a briefly trained run is
# exported to ONNX and to C, and tests/python/export_check.py replays the observations of `rlhost eval
# --trace` through onnxruntime and the compiled C file against rlhost's own
# actions.  Then every bad input the exporter refuses, each with its
# sentence and nothing written.  (TAP)
# Usage: export.sh RLHOST SOURCE_ROOT FIXTURE_DIR ATARI(0|1)
set -u
RLHOST=$1 SRC=$2 FIXTURES=$3 ATARI=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" onnxruntime
# `rlhost export` runs Python on librlhost: under ASan (CI) it needs the runtimes first
LIB="$(dirname "$(dirname "$RLHOST")")/core/runtime/librlhost.so"
sanitizer_wrap "$LIB" "$RLHOST" "$T/rlhost"
RLX=$T/rlhost # rlhost for export
C="$SRC/configs"
mkdir -p "$T/plug" && cp "$FIXTURES/spaces.so" "$T/plug/"
export RLHOST_PLUGIN_PATH="$T/plug"
check() { # NAME EPISODES CONFIG ARGS...: train briefly, trace an evaluation, export and compare
  local name=$1 episodes=$2 cfg=$3; shift 3
  expect_rc 0 "$name: train" -- "$RLHOST" run "$cfg" "$@" --set run.quiet=true --set run.eval_episodes=2 \
    --set run.eval_interval=0 --out "$T/$name"
  expect_rc 0 "$name: eval --trace" -- "$RLHOST" eval "$T/$name" --episodes "$episodes" --trace "$T/$name.csv"
  py_tap "" "$PY" "$SRC/tests/python/export_check.py" "$RLX" "$T/$name" "$T/$name.csv" "$name" "$T/x"
}
check dqn 100 "$C/cartpole_dqn.cfg" --set run.steps=3000
# the mean op (a distributional head's reduction, as a QR-DQN plugin of one's
# own writes it): the DQN's last layer split in two values per action whose
# means are its Q values (tests/python/mean_op.py), over either axis
for axis in 1 0; do
  mkdir -p "$T/mean$axis" && cp "$T/dqn/config.cfg" "$T/mean$axis/"
  "$PY" "$SRC/tests/python/mean_op.py" "$T/dqn/checkpoint.safetensors" "$T/mean$axis/checkpoint.safetensors" $axis
  py_tap "" "$PY" "$SRC/tests/python/export_check.py" "$RLX" "$T/mean$axis" "$T/dqn.csv" "dqn_mean_axis$axis" "$T/x"
done
check dueling_cnn_snake_grid 200 "$C/snake_dqn.cfg" --set 'env.observation="grid"' --set env.flood_fill=false \
  --set 'algo.plugin="dueling_dqn"' --set 'algo.encoder="cnn"' --set 'algo.cnn_channels=[8, 8]' \
  --set 'algo.cnn_kernels=[4, 3]' --set 'algo.cnn_strides=[2, 1]' --set 'algo.cnn_padding=[0, 1]' \
  --set run.steps=3000 --set algo.learning_starts=1000
check dqn_masked_snake 40 "$C/snake_dqn.cfg" --set 'env.action_mask="deadly"' --set run.steps=3000
check ppo 100 "$C/cartpole_ppo.cfg" --set run.steps=4096
check ppo_shared_snake 250 "$C/snake_ppo.cfg" --set algo.shared=true --set run.steps=4096
check ppo_box_normalized 8 "$C/pendulum_ppo.cfg" --set run.steps=4096
check ppo_dict_masked 20 "$C/snake_dict_ppo.cfg" --set run.steps=8192 --set env.num_envs=8 \
  --set algo.batch_size=256
check ppo_multidiscrete 12 "$C/squad_ppo.cfg" --set run.steps=4096
cat > "$T/parts.cfg" <<'EOF'
run: { steps = 2048; };
env: { plugin = "spaces_env"; num_envs = 4; nvec = [4, 3]; parts = true; };
algo: { plugin = "ppo"; n_steps = 64; batch_size = 128; encoder = "cnn"; cnn_channels = [4, 4]; };
EOF
check ppo_parts_cnn 300 "$T/parts.cfg"
check rppo_normalized 100 "$C/cartpole_nov_rppo.cfg" --set run.steps=4096
check rppo_cnn_snake_window 200 "$C/snake_ppo.cfg" --set 'algo.plugin="recurrent_ppo"' \
  --set 'env.observation="window"' --set env.flood_fill=false --set env.num_envs=16 --set algo.batch_size=256 \
  --set algo.bptt_horizon=16 --set 'algo.encoder="cnn"' --set 'algo.cnn_channels=[8]' --set 'algo.cnn_kernels=[3]' \
  --set 'algo.cnn_strides=[1]' --set 'algo.cnn_padding=[0]' --set run.steps=4096
check a2c_normalized 100 "$C/cartpole_a2c.cfg" --set run.steps=3000 --set algo.normalize_obs=true
check a2c_box 8 "$C/pendulum_a2c.cfg" --set run.steps=3000
check sac 8 "$C/pendulum_sac.cfg" --set run.steps=1500
check tqc 8 "$C/pendulum_tqc.cfg" --set run.steps=1500 --set algo.hidden=[32]
check crossq 8 "$C/pendulum_crossq.cfg" --set run.steps=1500 --set algo.hidden=[32] --set algo.critic_hidden=[32]
check sac_sde 8 "$C/mountain_car_continuous_sac_sde.cfg" --set run.steps=1500 --set algo.hidden=[32]
check ppo_sde 8 "$C/mountain_car_continuous_ppo_sde.cfg" --set run.steps=1500 --set algo.hidden=[32]
check td3 8 "$C/pendulum_td3.cfg" --set run.steps=1500 --set algo.learning_starts=500
check ddpg 8 "$C/pendulum_td3.cfg" --set 'algo.plugin="ddpg"' --set run.steps=1500 --set algo.learning_starts=500
check mini_dqn 100 "$SRC/examples/offpolicy/cartpole.cfg" --set run.steps=3000 # the SDK's off-policy example
# hybrid actions: the components' argmax and the box's clipped means, unmasked (Platform) and masked
check ppo_hybrid 800 "$C/platform_ppo.cfg" --set run.steps=8192
cat > "$T/hybrid.cfg" <<'EOF'
run: { steps = 2048; };
env: { plugin = "spaces_env"; num_envs = 4; nvec = [4, 3]; hybrid = "good"; };
algo: { plugin = "ppo"; n_steps = 64; batch_size = 128; };
EOF
check ppo_hybrid_masked 130 "$T/hybrid.cfg"
check a2c_hybrid 800 "$C/platform_a2c.cfg" --set run.steps=8192
if [ "$ATARI" = 1 ]; then # the Nature CNN on 4 x 84 x 84 frames
  check atari_ppo 8 "$C/breakout_ppo.cfg" --set run.steps=1024 --set env.num_envs=2 --set env.max_frames=5000 \
    --set algo.n_steps=128 --set algo.batch_size=128
fi

# ---- what the exporter refuses, each in one sentence, writing nothing ----
R="$T/dqn"
refuse() { # DESC SENTENCE ARGS...
  local desc=$1 want=$2; shift 2
  ls -A "$T/o" > "$T/before" 2>/dev/null
  expect_rc 2 "$desc" -- "$RLX" export "$@"
  contains "$T/err" "$want" "$desc: says so"
  [ "$(wc -l < "$T/err")" = 1 ]; ok $? "$desc: in one line"
  ls -A "$T/o" > "$T/after" 2>/dev/null
  cmp -s "$T/before" "$T/after"; ok $? "$desc: writes nothing"
}
mkdir -p "$T/o" "$T/empty"
refuse "a run directory without a checkpoint" "has no checkpoint" "$T/empty" --format onnx -o "$T/o/p.onnx"
expect_rc 0 "a random run" -- "$RLHOST" run "$C/cartpole_random.cfg" --set run.steps=500 --set run.quiet=true \
  --out "$T/random"
refuse "a policy that describes no network" "describes no network" "$T/random" --format c -o "$T/o/p.c"
# the checkpoint's policy description: removed, cut short, of a future format
mut() { edit_meta "$R/checkpoint.safetensors" "$T/$1.safetensors" "$2"; } # NAME PYTHON-ON-meta
mut nodesc 'del meta["algo.policy"]'
refuse "a checkpoint without its policy description" "describes no network" "$T/nodesc.safetensors" --format onnx \
  -o "$T/o/p.onnx"
mut cut 'meta["algo.policy"] = meta["algo.policy"][:len(meta["algo.policy"]) // 2]'
refuse "a truncated policy description" "policy description" "$T/cut.safetensors" --format c -o "$T/o/p.c"
mut future 'meta["algo.policy"] = meta["algo.policy"].replace("rlhost.policy/1", "rlhost.policy/2")'
refuse "a policy description of a future format" "'rlhost.policy/2'; this rlhost exports 'rlhost.policy/1'" \
  "$T/future.safetensors" --format onnx -o "$T/o/p.onnx"
mut newop 'meta["algo.policy"] = meta["algo.policy"].replace("\"relu\"", "\"gelu\"", 1)'
refuse "an op no exporter knows" "unknown op 'gelu'" "$T/newop.safetensors" --format c -o "$T/o/p.c"
# crafted numbers and shapes: each one sentence, exit 2, no traceback
mut clipped 'p = json.loads(meta["algo.policy"]); p["outputs"]["q"].append({"op": "clip", "min": 1, "max": -1}); meta["algo.policy"] = json.dumps(p)'
refuse "a clip op with its bounds reversed" "a clip op has bounds 1, -1, not finite numbers in order" \
  "$T/clipped.safetensors" --format c -o "$T/o/p.c"
mut clipstr 'p = json.loads(meta["algo.policy"]); p["outputs"]["q"].append({"op": "clip", "min": "0); pwned(", "max": 1}); meta["algo.policy"] = json.dumps(p)'
refuse "a clip op with a bound that is text" "a clip op has bounds '0); pwned(', 1" "$T/clipstr.safetensors" --format onnx \
  -o "$T/o/p.onnx"
mut huge 'meta["algo.policy"] = meta["algo.policy"].replace("\"in\":4,", "\"in\":1e999,", 1)'
refuse "a width of 1e999" "in = inf, which is no count" "$T/huge.safetensors" --format c -o "$T/o/p.c"
mut frac 'meta["algo.policy"] = meta["algo.policy"].replace("\"in\":4,", "\"in\":2.5,", 1)'
refuse "a width of 2.5" "in = 2.5, outside" "$T/frac.safetensors" --format onnx -o "$T/o/p.onnx"
mut conv 'p = json.loads(meta["algo.policy"]); p["outputs"]["q"].insert(0, {"op": "conv2d", "weight": "q/layer0.weight", "bias": "q/layer0.bias", "in_c": 1, "in_h": 2, "in_w": 2, "out_c": 1, "kernel": 1, "stride": 0, "pad": 0}); meta["algo.policy"] = json.dumps(p)'
refuse "a conv2d stride of 0" "stride = 0, outside [1," "$T/conv.safetensors" --format c -o "$T/o/p.c"
mut kern 'p = json.loads(meta["algo.policy"]); p["outputs"]["q"].insert(0, {"op": "conv2d", "weight": "q/layer0.weight", "bias": "q/layer0.bias", "in_c": 1, "in_h": 2, "in_w": 2, "out_c": 1, "kernel": -1, "stride": 1, "pad": 0}); meta["algo.policy"] = json.dumps(p)'
refuse "a conv2d kernel of -1" "kernel = -1, outside [1," "$T/kern.safetensors" --format onnx -o "$T/o/p.onnx"
mut deep 't = meta["algo.policy"]; i = t.index("\"q\":[") + 4; j = t.index("]},\"greedy\"") + 1; q = t[i:j]
for _ in range(2000): q = "[{\"op\":\"concat\",\"parts\":[" + q + "]}]"
meta["algo.policy"] = t[:i] + q + t[j:]'
refuse "2000 nested concat ops" "nests too deep to read" "$T/deep.safetensors" --format c -o "$T/o/p.c"
mut deep40 't = meta["algo.policy"]; i = t.index("\"q\":[") + 4; j = t.index("]},\"greedy\"") + 1; q = t[i:j]
for _ in range(40): q = "[{\"op\":\"concat\",\"parts\":[" + q + "]}]"
meta["algo.policy"] = t[:i] + q + t[j:]'
refuse "40 nested concat ops" "nests its ops more than 32 deep" "$T/deep40.safetensors" --format c -o "$T/o/p.c"
# the checkpoint's bytes: cut in half, a weight made NaN (the loader eval uses refuses both)
head -c $(($(stat -c %s "$R/checkpoint.safetensors") / 2)) "$R/checkpoint.safetensors" > "$T/half.safetensors"
refuse "a checkpoint cut in half" "corrupt header" "$T/half.safetensors" --format onnx -o "$T/o/p.onnx"
"$PY" - "$R/checkpoint.safetensors" "$T/nan.safetensors" <<'EOF'
import json, struct, sys
raw = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
a = json.loads(raw[8:8 + n])["q/layer0.weight"]["data_offsets"][0]
raw[8 + n + a:8 + n + a + 4] = struct.pack("<f", float("nan"))
open(sys.argv[2], "wb").write(raw)
EOF
resign "$T/nan.safetensors" # crafted to pass the CRC-32s: the loader's own check refuses it
refuse "a weight that is NaN" "tensor 'q/layer0.weight' holds nan at element 0" "$T/nan.safetensors" --format c \
  -o "$T/o/p.c"
# nothing read from a run or a checkpoint is pasted into the C as code: a
# run directory whose name closes a comment, a part name that would
mkdir -p "$T/i*/ int pwned = 42; /*" && cp "$R/config.cfg" "$R/checkpoint.safetensors" "$T/i*/ int pwned = 42; /*/"
expect_rc 0 "an export from a path that closes a C comment" -- "$RLX" export "$T/i*/ int pwned = 42; /*" --format c \
  -o "$T/o/inj.c"
cc -std=c99 -pedantic -Wall -Wextra -Werror -c "$T/o/inj.c" -o "$T/o/inj.o" && ! nm "$T/o/inj.o" | grep -q pwned
ok $? "the file compiles with -Werror and defines nothing the path wrote"
mut partname 'meta["rlhost.observation"] = json.dumps({"parts": [{"name": "x*/ int pwned; /*", "kind": "box", "dtype": "F32", "shape": [4], "offset": 0, "scale": 1.0}]})'
refuse "a part name that closes a C comment" "rlhost.observation" "$T/partname.safetensors" --format c -o "$T/o/p.c"
# the metadata the exporter would build from is the env's, as the loader opened it: an edit is refused
mut scale 'o = json.loads(meta["rlhost.observation"]); o["scale"] = 0.5; meta["rlhost.observation"] = json.dumps(o)'
refuse "an edited observation scale" "the metadata was edited" "$T/scale.safetensors" --format c -o "$T/o/p.c"
mut masked 'a = json.loads(meta["rlhost.action_space"]); a["masked"] = True; meta["rlhost.action_space"] = json.dumps(a)'
refuse "an edited masked flag" "rlhost.action_space" "$T/masked.safetensors" --format onnx -o "$T/o/p.onnx"
refuse "an output that is a directory" "is a directory" "$R" --format onnx -o "$T/o"
mkfifo "$T/o/fifo.onnx"
refuse "an output that is a FIFO" "is not a regular file" "$R" --format onnx -o "$T/o/fifo.onnx"
ln -s "$T/elsewhere.onnx" "$T/o/link.onnx"
refuse "an output that is a symbolic link" "is a symbolic link" "$R" --format onnx -o "$T/o/link.onnx"
[ ! -e "$T/elsewhere.onnx" ]; ok $? "the link's target was not created"
ln -s "$T/elsewhere.h" "$T/o/l.h"
refuse "a C header that is a symbolic link" "l.h is a symbolic link" "$R" --format c -o "$T/o/l.c"
refuse "an opset too old" "opset 13 is too old: rlhost writes ONNX opset 17 or newer" "$R" --format onnx --opset 13 \
  -o "$T/o/p.onnx"
refuse "an unknown format" "invalid choice: 'tflite'" "$R" --format tflite -o "$T/o/p.onnx"
refuse "a C prefix that is no identifier" "is not a C identifier" "$R" --format c --name 9lives -o "$T/o/p.c"
refuse "an output in a missing directory" "does not exist" "$R" --format onnx -o "$T/nowhere/p.onnx"
cp "$R/checkpoint.safetensors" "$T/ckpt.before"
refuse "the run's own checkpoint as the output" "is a file of the run being exported" "$R" --format onnx \
  -o "$R/checkpoint.safetensors"
refuse "a file of the run as the output" "is a file of the run being exported" "$R" --format onnx \
  -o "$R/summary.json"
ln "$R/checkpoint.safetensors" "$T/o/hard.onnx"
refuse "a second name of the checkpoint" "is a file of the run being exported" "$R" --format onnx -o "$T/o/hard.onnx"
rm -f "$T/o/hard.onnx"
cmp -s "$R/checkpoint.safetensors" "$T/ckpt.before"; ok $? "the checkpoint is untouched"
# a good export replaces a regular file in one rename, and the default name is in the run directory
echo old > "$T/o/p.onnx"
expect_rc 0 "an export over an older file" -- "$RLX" export "$R" --format onnx -o "$T/o/p.onnx"
"$PY" -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]))" "$T/o/p.onnx"
ok $? "it is the new, complete model"
[ -z "$(find "$T/o" -name '.*.tmp')" ]; ok $? "no temporary file is left"
# an export killed mid-write leaves .NAME.PID.HEX.tmp: the next export to NAME sweeps those of dead PIDs
mkdir -p "$T/sw"
dead=$(sh -c 'echo $$')
touch "$T/sw/.p.onnx.$dead.0123456789abcdef.tmp" "$T/sw/.p.onnx.$$.0123456789abcdef.tmp" "$T/sw/.p.onnx.notes.tmp" \
  "$T/sw/.q.onnx.$dead.0123456789abcdef.tmp" "$T/sw/.p.onnx.99999999999999999999999.0123456789abcdef.tmp"
expect_rc 0 "an export where a killed one left temporaries" -- "$RLX" export "$R" --format onnx -o "$T/sw/p.onnx"
[ ! -e "$T/sw/.p.onnx.$dead.0123456789abcdef.tmp" ]; ok $? "the dead export's temporary is swept"
[ -e "$T/sw/.p.onnx.$$.0123456789abcdef.tmp" ] && [ -e "$T/sw/.p.onnx.notes.tmp" ] &&
  [ -e "$T/sw/.q.onnx.$dead.0123456789abcdef.tmp" ] && [ -e "$T/sw/.p.onnx.99999999999999999999999.0123456789abcdef.tmp" ]
ok $? "a live export's, files not of that form (no PID) and another output's stay"
expect_rc 0 "the default output" -- "$RLX" export "$R" --format c
[ -f "$R/cartpole_dqn.c" ] && [ -f "$R/cartpole_dqn.h" ]; ok $? "ENV_ALGO.c and .h in the run directory"
# the Python API: the same exporter, refusals as RlhostError
sanitizer_wrap "$LIB" "$PY" "$T/rlhost-py"
RLHOST_LIB_DIR=$(dirname "$(dirname "$RLHOST")") PYTHONPATH="$SRC/python" "$T/rlhost-py" - "$R" "$T/o" \
  > "$T/pyout" 2>&1 <<'EOF'
import sys
import rlhost
run, out = sys.argv[1:3]
print(rlhost.export(run, "c", out + "/py.c", name="cartpole"))
try:
    rlhost.export(run, "onnx", out + "/q.onnx", opset=12)
except rlhost.RlhostError as e:
    print("refused:", e)
EOF
ok $? "rlhost.export from Python"
contains "$T/pyout" "py.h']" "it returns the files it wrote"
contains "$T/pyout" "refused: opset 12 is too old" "it raises RlhostError with the sentence"
grep -q "int cartpole_act(cartpole_state \*s" "$T/o/py.h"; ok $? "name= sets the C prefix"
# NumPy alone: with Gymnasium, torch and onnx unimportable, a C export still
# writes, and none of them is imported on the way
RLHOST_LIB_DIR=$(dirname "$(dirname "$RLHOST")") PYTHONPATH="$SRC/python" "$T/rlhost-py" - "$R" "$T/o" \
  > "$T/pyout" 2>&1 <<'EOF'
import sys


class Unimportable:
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("gymnasium", "torch", "onnx", "onnxruntime"):
            raise ImportError(f"{name} is not installed here")


sys.meta_path.insert(0, Unimportable())
import rlhost

run, out = sys.argv[1:3]
print(rlhost.export(run, "c", out + "/bare.c"))
print("imported:", sorted(m for m in sys.modules if m.split(".")[0] in ("gymnasium", "torch", "onnx")))
EOF
ok $? "rlhost.export to C with NumPy alone"
contains "$T/pyout" "imported: []" "neither Gymnasium, torch nor onnx is imported"
echo "1..$n"
[ $failed = 0 ]
