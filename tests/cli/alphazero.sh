#!/usr/bin/env bash
# AlphaZero (docs/search.md, "AlphaZero") on the tic-tac-toe fixture, in
# runs of seconds: a short run trains and its network is searched at play
# time and exported; it resumes exactly after SIGINT and after SIGKILL at
# random moments (the window of positions and the games in progress
# included), and repeats exactly on any count of search threads; trains
# on the game's symmetries, on its searches' root values and on their
# improved policies, and with a residual tower whose exports act as it does; hostile
# bytes in the window or a game in progress are refused by name; every config that cannot train on search is refused with a
# sentence before anything runs.  (TAP; the learning test is
# tests/learning/tictactoe_alphazero.sh)
# Usage: alphazero.sh RLHOST SOURCE_ROOT FIXTURE_DIR
set -u
RLHOST=$1 SRC=$2 FIXTURES=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
PP=(--plugin-path "$FIXTURES")

cat > "$T/az.cfg" <<'EOF'
run: { steps = 4000; seed = 5; eval_interval = 2000; eval_episodes = 8; log_interval = 500; };
env: { plugin = "tictactoe"; num_envs = 8; };
algo: { plugin = "alphazero"; hidden = [32, 32]; batch_size = 32; learning_starts = 64; replay_positions = 1500; };
search: { simulations = 16; temperature_moves = 4; };
seats: { eval_opponents = ["tictactoe_minimax", "random"]; };
EOF

# 1. It trains: every move searched, both seats the learner's; evaluations
#    against the seats' opponents with a rating.
expect_rc 0 "alphazero trains on tic-tac-toe" -- "$RLHOST" run "$T/az.cfg" "${PP[@]}" --out "$T/run"
contains "$T/err" "Search: every training move searched, 16 simulations with the learner's network, the learner at every seat" \
  "the banner says how its moves are chosen"
head -1 "$T/run/evals.csv" | grep -q "vs_tictactoe_minimax_seat1_loss.*,elo"; ok $? "evals.csv has the opponents' columns and elo"
grep -q "policy_loss" "$T/run/metrics.csv" && grep -q "value_loss" "$T/run/metrics.csv"
ok $? "metrics.csv has the policy and value losses"
[ -s "$T/run/replay.safetensors" ] && header "$T/run/replay.safetensors" | grep -q '"replay/pi"'
ok $? "the window of positions is saved beside the checkpoint"
header "$T/run/checkpoint.safetensors" | grep -q '"state/game_pi"'; ok $? "and the games in progress in it"

# 2. Its network searches at play time, and exports.
expect_rc 0 "eval --search with its network" -- "$RLHOST" eval "$T/run" "${PP[@]}" --search 32 --episodes 8 \
  --opponent tictactoe_minimax
contains "$T/out" "vs tictactoe_minimax, learner at seat 1" "plays both seats"
# `rlhost export` runs Python on librlhost: under ASan (CI) it needs the runtimes first
sanitizer_wrap "$(dirname "$(dirname "$RLHOST")")/core/runtime/librlhost.so" "$RLHOST" "$T/rlhost"
expect_rc 0 "export to C" -- "$T/rlhost" export "$T/run" --format c -o "$T/policy.c" "${PP[@]}"
grep -q "int policy_act(policy_state \*s, const unsigned char \*obs, const unsigned char \*mask, int \*action)" \
  "$T/policy.h"; ok $? "its header declares the masked act"
grep -q "float policy_value(const policy_state \*s);" "$T/policy.h"; ok $? "and the value a search of one's own needs"

# 3. Exact resume: after SIGINT at its first checkpoint, and after SIGKILL
#    at random moments.
exact az "$T/az.cfg" 1000 "${PP[@]}"
for f in az-a az-b; do data_of "$T/$f/replay.safetensors" > "$T/$f.replay"; done
cmp -s "$T/az-a.replay" "$T/az-b.replay"; ok $? "and the window of positions identical"
args=("${PP[@]}" --set run.quiet=true --set run.checkpoint_interval=500)
t0=$(date +%s%N)
"$RLHOST" run "$T/az.cfg" "${args[@]}" --out "$T/whole" >/dev/null 2>&1
whole_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
K=$T/kill
kill_loop "$K" "$whole_ms" 14 10 "$T/az.cfg" "${args[@]}" -- "${PP[@]}" # the last 4 rounds run on
grep -q '"status": "done"' "$K/summary.json"; ok $? "the killed run completes by resuming" || grep -v warning "$T/kerr"
[ "$kills" -ge 2 ]; ok $? "at least 2 kills landed ($kills)"
same_run "killed, against never killed" "$T/whole" "$K"

# 3b. Each of the search's threads evaluates its own trees' leaves on its
#     own worker of the network (RL_DESC_ACT_WORKERS): on 1 thread, and on
#     3 (more than this machine may have), a run repeats exactly.  Where
#     librlcore's own kernel takes every product (AVX2 with FMA; AVX-512
#     leaves narrow heads and batches under 4 rows to OpenBLAS), a leaf's
#     values do not depend on the leaves beside it, so the thread count
#     does not change the run either.
for th in 1 3; do
  for k in a b; do
    "$RLHOST" run "$T/az.cfg" "${PP[@]}" --set run.quiet=true --set run.steps=1200 --set search.threads=$th \
      --out "$T/th$th$k" >/dev/null 2>"$T/therr"
    ok $? "search.threads=$th trains (run $k)" || sed 's/^/#   /' "$T/therr"
  done
  same_run "search.threads=$th, twice" "$T/th${th}a" "$T/th${th}b"
done
if ! grep -qw avx512f /proc/cpuinfo && grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  same_run "search.threads=1 and 3 (librlcore's kernel)" "$T/th1a" "$T/th3a"
fi

# 3c. The square's symmetries (the fixture declares 7): each minibatch row is
#     seen through one at random; symmetries = false trains on the
#     positions as played, and so learns another network.
"$RLHOST" run "$T/az.cfg" "${PP[@]}" --set run.quiet=true --set run.steps=1200 --set algo.symmetries=false \
  --out "$T/nosym" >/dev/null 2>"$T/therr"
ok $? "symmetries = false trains" || sed 's/^/#   /' "$T/therr"
! cmp -s <(data_of "$T/nosym/checkpoint.safetensors") <(data_of "$T/th1a/checkpoint.safetensors")
ok $? "and its network differs from the one trained on the symmetries"

# 3d. root_value_weight mixes the search's value at each move's root into its
#     value target: the games in progress keep their roots' values, and the
#     run resumes exactly.
exact azroot "$T/az.cfg" 1000 "${PP[@]}" --set algo.root_value_weight=0.5
header "$T/azroot-a/checkpoint.safetensors" | grep -q '"state/game_root"'; ok $? "the roots' values are saved"
! header "$T/az-a/checkpoint.safetensors" | grep -q '"state/game_root"'; ok $? "and only where they are used"
! cmp -s <(data_of "$T/azroot-a/checkpoint.safetensors") <(data_of "$T/az-a/checkpoint.safetensors")
ok $? "the network learned from them differs"

# 3e. network = "resnet": a residual tower of 3x3 convs over the board before
#     the trunk.  It trains and resumes exactly, and its exports (ONNX and
#     C, with each block's residual op) act as rlhost's own policy does.
exact azres "$T/az.cfg" 1000 "${PP[@]}" --set algo.network=resnet --set algo.channels=6 --set algo.blocks=2 \
  --set 'algo.hidden=[16]'
header "$T/azres-a/checkpoint.safetensors" | grep -q '"net/res/block1/conv2.weight"'
ok $? "the tower's tensors are in the checkpoint"
header "$T/azres-a/checkpoint.safetensors" | grep -q 'residual'
ok $? "and its policy description has the blocks' residual ops"
cat > "$T/azres.cfg" <<'EOF'
env: { plugin = "tictactoe"; num_envs = 8; };
algo: { plugin = "alphazero"; network = "resnet"; channels = 6; blocks = 2; hidden = [16]; batch_size = 32;
        learning_starts = 32; };
search: { simulations = 8; temperature_moves = 4; };
EOF
if "$SRC/.venv/bin/python" -c "import onnxruntime" 2>/dev/null; then
  sanitizer_wrap "$(dirname "$(dirname "$RLHOST")")/core/runtime/librlhost.so" "$SRC/.venv/bin/python" "$T/py"
  RLHOST_LIB_DIR=$(dirname "$(dirname "$RLHOST")") PYTHONPATH="$SRC/python" RLHOST_PLUGIN_PATH="$FIXTURES" \
    py_tap "resnet: " "$T/py" "$SRC/tests/python/export_configs.py" "$RLHOST" "$SRC" "$T/azres.cfg"
else
  ok 1 "resnet exports: onnxruntime is missing from .venv: run scripts/pydeps.sh (scripts/test.sh does)"
fi
expect_rc 2 "a resnet over a vector observation" -- "$RLHOST" check "$T/az.cfg" "${PP[@]}" \
  --set algo.network=resnet --set env.flat=true
contains "$T/err" 'network = "resnet" needs an image observation' "a resnet over a vector: says so"
expect_rc 2 "a resnet of too many blocks" -- "$RLHOST" check "$T/az.cfg" "${PP[@]}" --set algo.network=resnet \
  --set algo.blocks=9
contains "$T/err" "algo.blocks" "too many blocks: names the key"
expect_rc 2 "a tower past the machine's memory" -- "$RLHOST" check "$SRC/configs/connect_four_alphazero.cfg" \
  --set algo.network=resnet --set algo.channels=1024 --set algo.blocks=8 --set algo.batch_size=65536
contains "$T/err" "the residual tower needs" "a tower past the machine's memory: refused with its estimate"

# 3f. Options alphazero gained after its first checkpoints are flagged
#     RL_OPT_ADDED (ABI 1.14), their defaults doing what it did before: a
#     checkpoint whose config lacks them resumes as written with those
#     defaults.  Lacking any other option, it is refused as another config.
copy_run() { # SRC DST: a stopped run to resume, its newest checkpoint the only one
  rm -rf "$2" && cp -r "$1" "$2" && rm -f "$2/summary.json" "$2/checkpoint.prev.safetensors" \
    "$2/replay.prev.safetensors"
}
old_run() { # KEY...: $T/old, the whole run with those keys gone from its checkpoint's config
  local keys
  keys=$(printf "'%s'," "$@")
  copy_run "$T/whole" "$T/old"
  edit_meta "$T/whole/checkpoint.safetensors" "$T/old/checkpoint.safetensors" \
    "c = meta['rlhost.config'].split('\n')
meta['rlhost.config'] = '\n'.join(l for l in c if l.strip().split(' = ')[0] not in ($keys))"
}
old_run root_value_weight network channels blocks
expect_rc 0 "a checkpoint from before root_value_weight and the resnet resumes" -- "$RLHOST" run --resume "$T/old" \
  "${PP[@]}" --set run.steps=4500
! grep -q "another config" "$T/err"; ok $? "and nothing is said of its config"
old_run l2
expect_rc 1 "a checkpoint without l2 in its config" -- "$RLHOST" run --resume "$T/old" "${PP[@]}" --set run.steps=4500
contains "$T/err" "algo.l2: unset in the checkpoint, 0.0001 now" "is refused as written with another config"

# 3g. search.policy_target = "improved": the policy learns each move's
#     improved policy (Gumbel AlphaZero's target) instead of its visits;
#     the run resumes exactly, and learns another network.
exact azimp "$T/az.cfg" 1000 "${PP[@]}" --set search.policy_target=improved
! cmp -s <(data_of "$T/azimp-a/checkpoint.safetensors") <(data_of "$T/az-a/checkpoint.safetensors")
ok $? "the network learned from the improved policies differs"
expect_rc 2 "an unknown policy target" -- "$RLHOST" check "$T/az.cfg" "${PP[@]}" --set search.policy_target=best

# 4. Hostile bytes, each crafted to pass the CRC-32s: refused by name.
poke() { # FILE TENSOR PYTHON-STRUCT-FORMAT VALUE
  python3 - "$@" <<'EOP'
import json, struct, sys
p, name, fmt, val = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
val = val if fmt[-1] in "fd" else int(val)
raw = bytearray(open(p, "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
a, _ = json.loads(raw[8:8 + n])[name]["data_offsets"]
raw[8 + n + a:8 + n + a + struct.calcsize(fmt)] = struct.pack(fmt, val)
open(p, "wb").write(raw)
EOP
  resign "$1"
}
hostile() { # DESC FILE TENSOR FORMAT VALUE SENTENCE [RUN]
  copy_run "${7:-$T/whole}" "$T/h"
  poke "$T/h/$2" "$3" "$4" "$5"
  expect_rc 1 "a resume from $1" -- "$RLHOST" run --resume "$T/h" "${PP[@]}" --set run.steps=4500
  contains "$T/err" "$6" "$1: named"
}
hostile "a value target of 5" replay.safetensors replay/z "<f" 5 "tensor 'replay': position 0's value target 5 is out of range"
hostile "a search weight that is NaN" replay.safetensors replay/pi "<f" nan "tensor 'replay': position 0's move 0"
hostile "a mask byte of 7" replay.safetensors replay/mask "<B" 7 "position 0's move 0 has mask 7"
hostile "a game past max_game_moves" checkpoint.safetensors state/game_moves "<I" 5000 "state/game_moves"
hostile "a root value that is NaN" checkpoint.safetensors state/game_root "<f" nan "state/game_root" "$T/azroot-a"

# 5. What cannot train on search: a sentence each, exit 2, nothing run.
refuse() { # DESC SENTENCE ARGS...
  local desc=$1 want=$2; shift 2
  expect_rc 2 "$desc" -- "$RLHOST" run "$@" --out "$T/refused"
  contains "$T/err" "$want" "$desc: says so"
  [ ! -e "$T/refused/config.cfg" ]; ok $? "$desc: no run directory written"
}
printf 'env: { plugin = "tictactoe"; };\nalgo: { plugin = "ppo"; };\nsearch: { simulations = 8; };\n' > "$T/ppo.cfg"
refuse "a search group for ppo" "the search group sets the training search of an algorithm that trains on search" \
  "$T/ppo.cfg" "${PP[@]}"
refuse "an opponent for alphazero" "algo 'alphazero' plays every seat of its training games itself" \
  "$T/az.cfg" "${PP[@]}" --set 'seats.opponent="random"'
printf 'env: { plugin = "cartpole"; };\nalgo: { plugin = "alphazero"; };\n' > "$T/cartpole.cfg"
refuse "an env that is not searchable" "env 'cartpole' cannot be searched" "$T/cartpole.cfg"
refuse "a tree past the memory cap" "past the cap of 1.0 MiB" \
  "$T/az.cfg" "${PP[@]}" --set search.simulations=100000 --set search.max_mib=1
expect_rc 2 "search.simulations 0" -- "$RLHOST" check "$T/az.cfg" "${PP[@]}" --set search.simulations=0
contains "$T/err" "search.simulations" "names the key"
expect_rc 2 "an unknown key of the search group" -- "$RLHOST" check "$T/az.cfg" "${PP[@]}" --set search.simulation=5
contains "$T/err" "did you mean 'search.simulations'" "suggests the nearest"
refuse "an env whose symmetry is not one" "env 'tictactoe' reported symmetry 6 mapping two moves to move" \
  "$T/az.cfg" "${PP[@]}" --set 'env.fault="bad_symmetry"'
expect_rc 1 "a game longer than max_game_moves" -- "$RLHOST" run "$T/az.cfg" "${PP[@]}" --set algo.max_game_moves=3 \
  --out "$T/short"
contains "$T/err" "ran past max_game_moves (3) without ending: raise it" "says which option"
echo "1..$n"
[ "$failed" = 0 ]
