#!/usr/bin/env bash
# The spaces of ABI 1.6 through the CLI: action masks, MultiDiscrete and
# (ABI 1.11) hybrid actions reach the algorithms, every mask a plugin writes and every action
# an algorithm picks is checked with a sentence, and masked runs evaluate,
# play and resume exactly.  (TAP)
# Usage: spaces.sh RLHOST SOURCE_ROOT FIXTURE_DIR
set -u
RLHOST=$1 SRC=$2 FIXTURES=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/plug" && cp "$FIXTURES/spaces.so" "$T/plug/"
P=(--plugin-path "$T/plug")
Q=(--set run.quiet=true --set run.eval_episodes=4)
cat > "$T/s.cfg" <<'EOF'
run: { steps = 2000; };
env: { plugin = "spaces_env"; num_envs = 4; nvec = [4, 3]; };
algo: { plugin = "spaces_algo"; };
EOF

# 1. What the host refuses, each with its sentence.
refuse() { # DESC SENTENCE ARGS...
  local desc=$1 want=$2; shift 2
  expect_rc 2 "$desc" -- "$RLHOST" check "$T/s.cfg" "${P[@]}" "$@"
  contains "$T/err" "$want" "$desc: says so"
}
refuse "an algorithm without masks on a masking env" \
  "algo 'nomask_algo' does not take action masks (it takes discrete actions), and env 'spaces_env' has action masks" \
  --set env.nvec=[4] --set 'algo.plugin="nomask_algo"'
refuse "an algorithm without MultiDiscrete" \
  "algo 'dqn' does not take MultiDiscrete actions (it takes discrete actions, action masks, composite observations), and env 'spaces_env' has 2 MultiDiscrete components" \
  --set 'algo.plugin="dqn"'
refuse "a box algorithm on MultiDiscrete" "algo 'sac' does not take discrete actions (it takes box actions, composite observations), and env 'spaces_env' has 2 MultiDiscrete components" \
  --set 'algo.plugin="sac"'
refuse "action_repeat with masks" "env 'spaces_env' masks its actions; env.optimizations.action_repeat must be 1" \
  --set env.optimizations.action_repeat=2
expect_rc 0 "info says what an algorithm takes" -- "$RLHOST" info ppo
contains "$T/out" "takes: discrete actions, box actions, MultiDiscrete actions, hybrid actions, action masks" "info ppo: its spaces"

# 2. What a plugin does wrong while running: one sentence naming the row.
run_fails() { # DESC SENTENCE ARGS...
  local desc=$1 want=$2; shift 2
  expect_rc 1 "$desc" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" --out "$T/bad" --force "$@"
  contains "$T/err" "$want" "$desc: says so"
}
run_fails "an action the mask forbids" "algo chose action 2 for env 0 (component 0), which its action mask forbids" \
  --set 'algo.pick="forbidden"'
run_fails "an action outside a component" "algo chose action 4 for env 0 (component 0), outside [0, 4)" \
  --set 'algo.pick="outside"'
run_fails "a mask allowing nothing" \
  "env 'spaces_env' wrote a mask allowing no action in component 0 for env 0 at step 5 of its episode" \
  --set env.bad_mask_at=5
run_fails "a first mask allowing nothing" "env 'spaces_env' wrote a mask allowing no action in component 0 for env 0 at step 0" \
  --set env.bad_mask_at=0
run_fails "a final mask allowing nothing" \
  "env 'spaces_env' wrote a final mask allowing no action in component 0 for env 0 at step 8 of its episode" \
  --set env.bad_final_mask=true
expect_rc 0 "allowed actions run" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" --out "$T/good"
contains "$T/good/summary.json" '"eval_return_mean"' "and evaluate"
grep -qF '{\"type\":\"multi_discrete\",\"nvec\":[4,3],\"masked\":true}' "$T/good/checkpoint.safetensors"
ok $? "the checkpoint says the space: MultiDiscrete [4, 3], masked"

# 3. The learners on masked and MultiDiscrete spaces: PPO learns the
#    targets (a random policy hits 1/3 of them on average over [4, 3] with
#    one choice forbidden); DQN and random keep to the masks.
expect_rc 0 "ppo on MultiDiscrete with masks" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" --set run.quiet=true \
  --set run.steps=60000 --set run.eval_episodes=20 --set 'algo.plugin="ppo"' --set env.num_envs=8 \
  --set algo.n_steps=64 --set algo.batch_size=128 --set algo.ent_coef=0.0 --set algo.lr=3e-3 --out "$T/ppo"
ret=$(json_num "$T/ppo/summary.json" eval_return_mean)
awk -v r="$ret" 'BEGIN { exit !(r >= 7.5) }'; ok $? "ppo hits the targets: eval return $ret >= 7.5 of 8"
expect_rc 0 "ppo on one masked Discrete" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" --set env.nvec=[5] \
  --set 'algo.plugin="ppo"' --set run.steps=4096 --out "$T/ppo1"
for algo in dqn double_dqn dueling_dqn per_dqn random; do
  expect_rc 0 "$algo keeps to the masks" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" --set env.nvec=[6] \
    --set env.invalid=4 --set "algo.plugin=\"$algo\"" --set run.steps=3000 --out "$T/$algo"
done
expect_rc 0 "recurrent ppo on MultiDiscrete with masks" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" \
  --set 'algo.plugin="recurrent_ppo"' --set run.steps=4096 --out "$T/rppo"

# 4. Composite observations: a layout that does not fit is refused at open,
#    a bad value in a row when it appears; every learner reads the parts (a
#    CNN of its own for an image part with encoder = "cnn").
PARTS=(--set env.parts=true)
refuse "parts that overlap" "env 'spaces_env' reported observation parts 'image' and 'noise' sharing bytes [40, 52)" \
  "${PARTS[@]}" --set 'env.part_fault="overlap"'
refuse "a part past the row" "observation part 2 'noise' of 12 bytes at offset 56: past the row's 64 bytes" \
  "${PARTS[@]}" --set 'env.part_fault="past_row"'
refuse "a misaligned part" "observation part 2 'noise' at offset 50, not a multiple of its dtype's 4 bytes" \
  "${PARTS[@]}" --set 'env.part_fault="misaligned"'
refuse "a part's name" "observation part 2 named 'no ise': a name is 1 to 31 letters, digits or _" \
  "${PARTS[@]}" --set 'env.part_fault="name"'
refuse "an algorithm without parts" "algo 'nomask_algo' does not take composite observations" \
  "${PARTS[@]}" --set env.nvec=[4] --set env.mask=false --set 'algo.plugin="nomask_algo"'
run_fails "NaN in a float part" "returned an observation holding nan in part 'noise', element 2, at env 0: observations must be finite" \
  "${PARTS[@]}" --set 'env.part_fault="nan"' --set 'algo.plugin="random"'
run_fails "a category out of range" "returned an observation holding 4 in discrete part 'goal', element 0, at env 0: outside [0, 4)" \
  "${PARTS[@]}" --set 'env.part_fault="category"' --set 'algo.plugin="random"'
PPO=(--set 'algo.plugin="ppo"' --set env.num_envs=8 --set algo.n_steps=64 --set algo.batch_size=128 --set algo.ent_coef=0.0
  --set algo.lr=3e-3)
expect_rc 0 "ppo on parts, masks and MultiDiscrete" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${PPO[@]}" \
  --set run.quiet=true --set run.steps=60000 --set run.eval_episodes=20 --out "$T/parts_ppo"
ret=$(json_num "$T/parts_ppo/summary.json" eval_return_mean)
awk -v r="$ret" 'BEGIN { exit !(r >= 7.0) }'; ok $? "ppo reads the goal part: eval return $ret >= 7.0 of 8"
grep -qF '\"parts\":[{\"name\":\"goal\",\"kind\":\"discrete\",\"dtype\":\"U8\",\"shape\":[2],\"offset\":0,\"nvec\":[4,3]}' \
  "$T/parts_ppo/checkpoint.safetensors"
ok $? "the checkpoint's observation names its parts"
expect_rc 0 "ppo with a CNN over the image part" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${PPO[@]}" \
  "${Q[@]}" --set 'algo.encoder="cnn"' --set algo.cnn_channels=[4,4] --set run.steps=2048 --out "$T/parts_cnn"
grep -qF '{\"op\":\"slice\",\"start\":7,\"len\":36},{\"op\":\"conv2d\",\"weight\":\"actor/parts/cnn1/conv0.weight\"' \
  "$T/parts_cnn/checkpoint.safetensors"
ok $? "its description: the image's slice through its own CNN"
need_numpy() { "$SRC/.venv/bin/python" -c "import numpy" 2>/dev/null; }
if need_numpy; then # a reader of the checkpoint alone picks the masked MultiDiscrete actions over the parts
  for run in parts_cnn parts_ppo; do
    expect_rc 0 "$run: eval --trace" -- "$RLHOST" eval "$T/$run" --plugin-path "$T/plug" --episodes 3 --trace "$T/$run.csv"
    py_tap "" "$SRC/.venv/bin/python" "$SRC/tests/python/policy_read.py" "$T/$run/checkpoint.safetensors" \
      "$T/$run.csv" "$run"
  done
else
  ok 1 "the NumPy reader: the suite's Python (scripts/pydeps.sh) is missing"
fi
expect_rc 0 "recurrent ppo on parts" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${Q[@]}" \
  --set 'algo.plugin="recurrent_ppo"' --set run.steps=4096 --out "$T/parts_rppo"
for algo in dqn dueling_dqn a2c; do
  expect_rc 0 "$algo on parts" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${Q[@]}" --set env.nvec=[5] \
    --set "algo.plugin=\"$algo\"" --set run.steps=3000 --out "$T/parts_$algo"
done
expect_rc 0 "dqn with a CNN over the image part" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${Q[@]}" \
  --set env.nvec=[5] --set 'algo.plugin="dqn"' --set 'algo.encoder="cnn"' --set algo.cnn_channels=[4,4] \
  --set run.steps=2000 --out "$T/parts_dqn_cnn"
for algo in sac td3; do
  expect_rc 0 "$algo on parts with box actions" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${PARTS[@]}" "${Q[@]}" \
    --set env.box=true --set env.mask=false --set "algo.plugin=\"$algo\"" --set algo.hidden=[32,32] \
    --set algo.learning_starts=200 --set run.steps=600 --out "$T/parts_$algo"
done

# 5. A masked run evaluates and plays as it trained, and resumes exactly.
SNAKE=(--set 'env.action_mask="deadly"')
expect_rc 0 "snake with masked deadly moves" -- "$RLHOST" run "$SRC/configs/snake_best.cfg" "${SNAKE[@]}" \
  --set run.steps=5000 --set run.quiet=true --out "$T/snake"
expect_rc 0 "eval of the masked run" -- "$RLHOST" eval "$T/snake" --episodes 5 --json
contains "$T/out" '"episodes": 5' "eval reports its episodes"
expect_rc 0 "play of the masked run" -- "$RLHOST" play "$T/snake" --episodes 1 --fps 1000
refuse_snake() { # DESC SENTENCE ARGS...
  expect_rc 2 "$1" -- "$RLHOST" check "$SRC/configs/snake_best.cfg" "${@:3}"
  contains "$T/err" "$2" "$1: says so"
}
refuse_snake "reverse masks with relative moves" 'action_mask = "reverse" needs actions = "absolute"' \
  --set 'env.action_mask="reverse"' --set 'env.actions="relative"'
refuse_snake "masks with several snakes" "action_mask needs snakes = 1 (there are 2 per board)" \
  --set 'env.action_mask="reverse"' --set env.snakes=2 --set env.observation=\"grid\"
exact snake_mask_ppo "$SRC/configs/snake_ppo.cfg" 8192 --set run.steps=30000 --set run.log_interval=4096 \
  --set run.eval_episodes=5 "${SNAKE[@]}"
exact snake_mask_dqn "$SRC/configs/snake_dqn.cfg" 4000 --set run.steps=20000 --set run.log_interval=2000 \
  --set run.eval_episodes=5 --set algo.save_replay=true "${SNAKE[@]}"

# Masked MultiDiscrete PPO on 2 replicas: coroutines learn what threads learn.
for mode in threads coroutines; do
  RLHOST_REPLICAS_MODE=$mode "$RLHOST" run "$SRC/configs/squad_ppo.cfg" --set run.replicas=2 --set run.steps=8192 \
    --set run.eval_episodes=2 --set run.quiet=true --out "$T/squad_$mode" >/dev/null 2>&1
done
data_of "$T/squad_threads/checkpoint.safetensors" > "$T/da"; data_of "$T/squad_coroutines/checkpoint.safetensors" > "$T/db"
[ -s "$T/da" ] && cmp -s "$T/da" "$T/db"; ok $? "squad, 2 replicas: coroutines and threads give the same checkpoint"

# 6. A checkpoint's masks are untrusted: a mask that allows nothing is refused.
python3 - "$T/snake/checkpoint.safetensors" <<'EOF'
import json, struct, sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
n = struct.unpack('<Q', b[:8])[0]
h = json.loads(b[8:8 + n])
lo, hi = h['host/train_mask']['data_offsets']
b[8 + n + lo:8 + n + lo + 4] = bytes(4)  # env 0's four moves: none allowed
open(p, 'wb').write(b)
EOF
cp "$T/snake/checkpoint.safetensors" "$T/unsigned.safetensors"
resign "$T/snake/checkpoint.safetensors"
expect_rc 1 "a resume from a mask that allows nothing" -- "$RLHOST" run --resume "$T/snake" --set run.steps=6000
contains "$T/err" "tensor 'host/train_mask' allows no action in row 0" "names the tensor and the row"
# Any change to a checkpoint after it was written (the mask above, not
# resigned) is found by the tensor's CRC-32.
cp "$T/unsigned.safetensors" "$T/snake/checkpoint.safetensors"
expect_rc 1 "a resume from a checkpoint changed after it was written" -- "$RLHOST" run --resume "$T/snake" --set run.steps=6000
contains "$T/err" "tensor 'host/train_mask' does not match its CRC-32: the file changed after it was written" \
  "names the tensor"

# 7. Hybrid actions (ABI 1.11): discrete components and a box in one action.
H=(--set 'env.hybrid="good"')
for fault in no_floats:"a hybrid action of 2 discrete components and 0 floats: it needs at least one of each" \
  no_components:"a hybrid action of 0 discrete components and 2 floats: it needs at least one of each" \
  infinite:"a hybrid action's box with dimension 0 in [-inf, 1]: bounds must be finite" \
  inverted:"a hybrid action's box with dimension 0 in [1, -1]: bounds must be finite with low <= high"; do
  refuse "a hybrid action with ${fault%%:*}" "env 'spaces_env' reported ${fault#*:}" --set "env.hybrid=\"${fault%%:*}\"" \
    --set 'algo.plugin="ppo"'
done
refuse "a discrete algorithm on a hybrid action" \
  "algo 'dqn' does not take hybrid actions (it takes discrete actions, action masks, composite observations), and env 'spaces_env' has a hybrid action (2 discrete, 2 float)" \
  "${H[@]}" --set 'algo.plugin="dqn"'
refuse "a box algorithm on a hybrid action" "algo 'sac' does not take hybrid actions" "${H[@]}" --set 'algo.plugin="sac"'
refuse "gSDE on a hybrid action" "use_sde needs a box action space; this env's actions are hybrid (discrete and box)" \
  "${H[@]}" --set 'algo.plugin="ppo"' --set algo.use_sde=true
contains_takes() { expect_rc 0 "info $1" -- "$RLHOST" info "$1"; contains "$T/out" "hybrid actions" "info $1: takes hybrid actions"; }
contains_takes ppo
contains_takes a2c
for algo in ppo a2c random; do
  for mask in true false; do
    expect_rc 0 "$algo on a hybrid action, mask = $mask" -- "$RLHOST" run "$T/s.cfg" "${P[@]}" "${Q[@]}" "${H[@]}" \
      --set "algo.plugin=\"$algo\"" --set env.mask=$mask --set run.steps=1024 --out "$T/hybrid_${algo}_$mask"
  done
done
grep -qF '{\"type\":\"hybrid\",\"nvec\":[4,3],\"dim\":2,\"low\":[-1,-1],\"high\":[1,1],\"masked\":true}' \
  "$T/hybrid_ppo_true/checkpoint.safetensors"
ok $? "the checkpoint's action space says hybrid: its components, its box and its masks"
expect_rc 0 "platform: a short run" -- "$RLHOST" run "$SRC/configs/platform_ppo.cfg" --set run.steps=4096 \
  --set run.quiet=true --set run.eval_episodes=2 --out "$T/platform"
expect_rc 0 "platform: eval --trace" -- "$RLHOST" eval "$T/platform" --episodes 3 --trace "$T/platform.csv"
python3 - "$T/platform.csv" > "$T/trace_check" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = rows and all(int(r["action_0"]) in (0, 1, 2) and all(-1 <= float(r[f"action_{k}"]) <= 1 for k in (1, 2, 3))
                  for r in rows)
print("good" if ok and "." in rows[0]["action_1"] + rows[0]["action_2"] + rows[0]["action_3"] else "bad")
EOF
contains "$T/trace_check" good "the trace has each step's move (an integer) and its three parameters in [-1, 1]"
exact platform_ppo "$SRC/configs/platform_ppo.cfg" 4096 --set run.steps=16384 --set run.eval_interval=8192 \
  --set run.eval_episodes=5
exact platform_a2c "$SRC/configs/platform_a2c.cfg" 2048 --set run.steps=8192 --set run.eval_interval=4096 \
  --set run.eval_episodes=5

echo "1..$n"
[ $failed = 0 ]
