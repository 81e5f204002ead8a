#!/usr/bin/env bash
# rlhost tune's search space as a hostile user writes it: every bound and
# choice checked against the schemas before the first trial, each refusal
# one line with file:line; the plugins' declared spaces hold for every
# shipped config.  Only the C side runs here (--print-space).  (TAP)
# Usage: tune_space.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
PPO="$SRC/configs/cartpole_ppo.cfg"

space() { printf 'tune: {\n algo: {\n%s\n };\n};\n' "$1" > "$T/space.cfg"; }
refused() { # DESC SPACE_BODY EXPECTED_TEXT
  space "$2"
  expect_rc 2 "$1: refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space
  contains "$T/err" "$T/space.cfg:${4:-3}: tune.algo.$3" "$1: file:line, the key and why"
  [ "$(wc -l < "$T/err")" = 1 ]; ok $? "$1: one line"
}
refused "an unknown key" '  lrr = { log_uniform = [1e-5, 1e-2]; };' "lrr: unknown key 'lrr' (did you mean 'algo.lr'?)"
refused "a bound above the schema's" '  lr = { log_uniform = [1e-5, 3.0]; };' "lr: HIGH 3 is refused: expected a number in [0, 1], got 3"
refused "bounds the wrong way round" '  lr = { uniform = [1e-2, 1e-5]; };' "lr: uniform = [0.01, 1e-05]: LOW must be below HIGH"
refused "a log scale from 0" '  lr = { log_uniform = [0.0, 1e-2]; };' "lr: a log scale needs LOW > 0"
refused "floats for an integer option" '  n_steps = { uniform = [8.0, 64.0]; };' "n_steps: uniform samples floats, and algo.n_steps takes integers"
refused "non-integer int bounds" '  n_steps = { int = [8.5, 64.0]; };' "n_steps: int = [8.5, 64]: the bounds must be integers"
refused "a choice of the wrong type" '  hidden = { choice = ([64, 64], "wide"); };' "hidden: choice \"wide\" is refused"
refused "a choice out of range" '  n_epochs = { choice = [1, 0]; };' "n_epochs: choice 0 is refused"
refused "a bad enum choice" '  activation = { choice = ["tanh", "gelu"]; };' "activation: choice \"gelu\" is refused"
refused "an empty choice" '  n_epochs = { choice = []; };' "n_epochs: choice = [A, B, ...]"
refused "no distribution" '  lr = { log = true; };' "lr: no distribution"
refused "two distributions" '  lr = { uniform = [0.1, 0.2]; choice = [0.1]; };' "lr: both uniform and choice"
refused "an unknown member" '  lr = { uniform = [0.1, 0.2]; step = 0.1; };' "lr: unknown member 'step'"
refused "a bare value" '  lr = 0.001;' "lr: expected a group such as"
refused "three bounds" '  lr = { uniform = [0.1, 0.2, 0.3]; };' "lr: uniform = [LOW, HIGH]: two finite numbers"
refused "log with a float distribution" '  lr = { uniform = [0.1, 0.2]; log = true; };' "lr: log = true goes with int"
refused "a condition on a key not in the space" '  lr = { uniform = [0.1, 0.2]; when = ("algo.gamma", 0.99); };' "lr: when names 'algo.gamma'"
refused "a condition value the parent cannot take" "$(printf '  n_epochs = { choice = [1, 5]; };\n  lr = { uniform = [0.1, 0.2]; when = (\"algo.n_epochs\", -3); };')" "lr: when value -3 is refused: expected an integer in [1, 10000], got -3" 4
refused "an integer bound beyond the schema, quoted as written" '  n_steps = { int = [8L, 9223372036854775807L]; };' "n_steps: HIGH 9223372036854775807 is refused"
refused "at_most naming no option" '  batch_size = { choice = [64, 128]; at_most = ("algo.n_stepz"); };' "batch_size: at_most: 'algo.n_stepz' is not an integer option"
refused "at_most on a float" '  lr = { uniform = [0.1, 0.2]; at_most = ("algo.n_steps"); };' "lr: at_most caps an integer option"
for k in 'env: { plugin = { choice = ["cartpole"]; }; }' 'algo: { plugin = { choice = ["ppo"]; }; }' 'run: { out_dir = { choice = ["a", "b"]; }; }'; do
  printf 'tune: { %s; };\n' "$k" > "$T/space.cfg"
  expect_rc 2 "$k: refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space
  grep -q "is not tuned" "$T/err" && ! grep -q "unknown env plugin" "$T/err"; ok $? "$k: says it is not tuned ($(cat "$T/err"))"
done
printf 'tune: { algo: {\n  lr = { uniform = [0.1, 0.2]; };\n}; model: { x = 1; }; };\n' > "$T/space.cfg"
expect_rc 2 "an unknown group is refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space
contains "$T/err" "$T/space.cfg:3: tune.model: unknown group (the space has run, env and algo)" "the group is named with its line"
printf 'tune: { algo: { lr = { uniform = [0.1, 0.2]; };\n' > "$T/space.cfg"
expect_rc 2 "a syntax error is refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space
contains "$T/err" "$T/space.cfg:2: syntax error" "with its line"
printf 'run: { steps = 100; };\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "ppo"; };\ntune = 3;\n' > "$T/t3.cfg"
expect_rc 2 "a tune that is not a group is refused" -- "$RLHOST" tune "$T/t3.cfg" --print-space
contains "$T/err" "$T/t3.cfg:4: tune: expected a group" "with its line"
printf 'tune: { };\n' > "$T/space.cfg"
expect_rc 2 "an empty space is refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space
contains "$T/err" "the search space is empty" "and says so"
for opt in "--space-fd 0" "--space-f 0" "--space-fd=0"; do
  # shellcheck disable=SC2086
  expect_rc 2 "$opt: the driver's own hand-over is not an option" -- "$RLHOST" tune "$PPO" $opt --print-space
done
mkfifo "$T/fifo"
expect_rc 2 "a FIFO as the space file is refused, not waited on" -- timeout 10 "$RLHOST" tune "$PPO" --space "$T/fifo" --print-space
expect_rc 2 "a missing space file" -- "$RLHOST" tune "$PPO" --space "$T/nope.cfg" --print-space
contains "$T/err" "nope.cfg" "names the file"
big=$(for i in $(seq 200); do printf '  lr = { uniform = [0.1, 0.2]; };\n'; done)
space "$big"
expect_rc 2 "a space of 200 keys is refused" -- "$RLHOST" tune "$PPO" --space "$T/space.cfg" --print-space

# A good space, in the config's own tune group; the config still runs.
cat > "$T/tuned.cfg" <<'CFG'
run: { steps = 2000; eval_episodes = 2; };
env: { plugin = "cartpole"; num_envs = 4; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 64; lr = 1e-3; };
tune: {
  algo: {
    lr = { log_uniform = [1e-4, 3e-3]; };
    n_steps = { int = [16, 128]; log = true; };
    hidden = { choice = ([64, 64], [32]); };
    clip_range = { uniform = [0.1, 0.3]; when = ("algo.hidden", [32]); };
    optimizations = { batch_inference = { choice = [true, false]; }; };
  };
  env: { num_envs = { choice = [4, 8]; }; };
};
CFG
expect_rc 0 "a config's tune group" -- "$RLHOST" tune "$T/tuned.cfg" --print-space
"$SRC/.venv/bin/python" - "$T/out" <<'PY' > "$T/py" 2>&1
import json, sys
s = json.load(open(sys.argv[1]))
keys = [k["key"] for k in s["keys"]]
assert keys == ["algo.lr", "algo.n_steps", "algo.hidden", "algo.clip_range", "algo.optimizations.batch_inference", "env.num_envs"], keys
k = {e["key"]: e for e in s["keys"]}
assert k["algo.lr"]["log"] and k["algo.lr"]["low"] == 1e-4 and k["algo.lr"]["base"] == "0.001", k["algo.lr"]
assert k["algo.n_steps"]["kind"] == "int" and k["algo.n_steps"]["log"], k["algo.n_steps"]
assert k["algo.hidden"]["choices"] == ["[64, 64]", "[32]"], k["algo.hidden"]
assert k["algo.clip_range"]["when"] == {"key": "algo.hidden", "in": ["[32]"]}, k["algo.clip_range"]
assert k["env.num_envs"]["where"].endswith("tuned.cfg:12"), k["env.num_envs"]
assert s["steps"] == 2000 and s["eval_episodes"] == 2
print("fine")
PY
contains "$T/py" "fine" "every key, kind, bound, base value, condition and line as written"
expect_rc 0 "the config with a tune group still runs" -- "$RLHOST" run "$T/tuned.cfg" --set run.quiet=true --out "$T/r"
expect_rc 0 "and checks" -- "$RLHOST" check "$T/tuned.cfg"

# Every shipped config of an algorithm with a declared space: that space
# holds against the config's plugins.
for c in "$SRC"/configs/*.cfg; do
  case "$(basename "$c")" in *random*) continue ;; esac
  grep -q 'plugin = "mujoco"' "$c" && ! "$RLHOST" list 2>/dev/null | grep -q "^env *mujoco" && continue
  grep -q 'plugin = "atari"' "$c" && ! "$RLHOST" list 2>/dev/null | grep -q "^env *atari" && continue
  expect_rc 0 "$(basename "$c"): the plugins' default space holds" -- "$RLHOST" tune "$c" --print-space
done
# Every shipped space file names the config it is searched with on a
# '# config: configs/X.cfg' line, and holds against that config.
for s in "$SRC"/configs/spaces/*.cfg; do
  rel=$(sed -n 's/^# config: //p' "$s" | head -n 1)
  c="$SRC/$rel"
  [ -n "$rel" ] && [ -f "$c" ]; ok $? "spaces/$(basename "$s") names a shipped config (${rel:-none})"
  [ -f "$c" ] || continue
  grep -q 'plugin = "mujoco"' "$c" && ! "$RLHOST" list 2>/dev/null | grep -q "^env *mujoco" && continue
  grep -q 'plugin = "atari"' "$c" && ! "$RLHOST" list 2>/dev/null | grep -q "^env *atari" && continue
  expect_rc 0 "spaces/$(basename "$s") holds against its config" -- "$RLHOST" tune "$c" --space "$s" --print-space
done
expect_rc 2 "a pair without any space says so" -- "$RLHOST" tune "$SRC/configs/cartpole_random.cfg" --print-space
contains "$T/err" "neither 'cartpole' nor 'random' declares a default space: write one (docs/tune.md)" "and what to do"
expect_rc 2 "tune without a config" -- "$RLHOST" tune --trials 3
contains "$T/err" "usage: rlhost tune CONFIG" "the usage"
expect_rc 2 "a refused config" -- "$RLHOST" tune "$PPO" --set algo.lr=7 --print-space
contains "$T/err" "algo.lr" "names the key"

# A Python without the driver's modules, or none at all: one sentence each.
# (The driver's Python loads librlhost: under ASan its runtime goes first.)
sanitizer_env "$(dirname "$(dirname "$RLHOST")")/core/runtime/librlhost.so"
python3 -m venv --without-pip "$T/bare" 2>/dev/null
expect_rc 1 "tune with a Python that lacks NumPy" -- env RLHOST_PYTHON="$T/bare/bin/python" "$RLHOST" tune "$PPO" --trials 1 --out "$T/t"
contains "$T/err" "rlhost: tune needs Python with the rlhost package, NumPy, Gymnasium and Optuna (No module named" "says what is missing and how to get it"
[ "$(wc -l < "$T/err")" = 1 ]; ok $? "in one line"
expect_rc 1 "study with a Python that lacks NumPy" -- env RLHOST_PYTHON="$T/bare/bin/python" "$RLHOST" study "$PPO" --seeds 1 --out "$T/s"
contains "$T/err" "rlhost: study needs Python with the rlhost package" "says so"
expect_rc 1 "tune with no Python there" -- env RLHOST_PYTHON="$T/nope/python" "$RLHOST" tune "$PPO" --trials 1 --out "$T/t"
contains "$T/err" "RLHOST_PYTHON" "names the variable"

echo "1..$n"
[ $failed = 0 ]
