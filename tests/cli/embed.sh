#!/usr/bin/env bash
# The embedding example (examples/embed/agent.c, docs/embedding.md's) acting through
# librlhost: the same episodes as `rlhost eval` for a feed-forward and a
# recurrent policy, from a run directory and from a bare checkpoint.  (TAP)
# Usage: embed.sh RLHOST AGENT SOURCE_ROOT
set -u
RL=$1 AGENT=$2 SRC=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$SRC/tests/lib.sh"

# eval's seed stream: the run's seed with the eval salt (see eval.c)
EVAL_SEED=$((1 ^ 0x5eed5eed5eed5eed))
same_as_eval() { # NAME RUN_DIR [AGENT_PATH]
  "$RL" eval "$2" --episodes 1 --json >"$T/eval.json" 2>"$T/err"; ok $? "$1: rlhost eval"
  local want got wlen glen
  want=$(sed -n 's/.*"return_mean": \([-0-9.e+]*\).*/\1/p' "$T/eval.json")
  wlen=$(sed -n 's/.*"length_mean": \([-0-9.e+]*\).*/\1/p' "$T/eval.json")
  "$AGENT" "${3:-$2}" 1 "$EVAL_SEED" >"$T/agent.out" 2>"$T/err"; ok $? "$1: the embedded agent plays"
  [ -s "$T/err" ] && sed 's/^/#   /' "$T/err" | head -3
  got=$(sed -n 's/^episode 1: return \([-0-9.e+]*\),.*/\1/p' "$T/agent.out")
  glen=$(sed -n 's/^episode 1: .*length \([0-9]*\)$/\1/p' "$T/agent.out")
  # eval prints 6 significant digits
  awk -v a="$got" -v b="$want" -v la="$glen" -v lb="$wlen" \
    'BEGIN { d = a - b; if (d < 0) d = -d; m = b < 0 ? -b : b; exit !(a != "" && d <= 5e-6 * (m > 1 ? m : 1) && la == lb) }'
  ok $? "$1: the same episode as rlhost eval (return $got, length $glen; eval $want, $wlen)"
}

"$RL" run "$SRC/configs/cartpole_ppo.cfg" --out "$T/ppo" --set run.steps=20000 --set run.quiet=true >/dev/null 2>"$T/err"
ok $? "train CartPole PPO (20k steps)"
same_as_eval "feed-forward PPO, run directory" "$T/ppo"
cp "$T/ppo/checkpoint.safetensors" "$T/lone.safetensors"
same_as_eval "feed-forward PPO, bare checkpoint" "$T/ppo" "$T/lone.safetensors"

"$RL" run "$SRC/configs/tmaze_rppo.cfg" --out "$T/rppo" --set run.steps=20000 --set run.quiet=true >/dev/null 2>"$T/err"
ok $? "train T-maze recurrent PPO (20k steps)"
same_as_eval "recurrent PPO (LSTM state per row, reset on episode_start)" "$T/rppo"

"$RL" run "$SRC/configs/snake_dqn.cfg" --out "$T/dqn" --set run.steps=5000 --set run.quiet=true >/dev/null 2>"$T/err"
ok $? "train snake DQN (5k steps)"
same_as_eval "DQN on snake" "$T/dqn"

# a damaged newest checkpoint: the agent falls back to the previous one, as eval does
"$AGENT" "$T/nowhere" 1 >/dev/null 2>"$T/err"; [ $? = 1 ]; ok $? "a missing run: exit 1"
contains "$T/err" "does not exist" "saying so"
printf 'garbage' > "$T/bad.safetensors"
"$AGENT" "$T/bad.safetensors" 1 >/dev/null 2>"$T/err"; [ $? = 1 ]; ok $? "a damaged checkpoint: exit 1"
contains "$T/err" "bad.safetensors" "naming the file"
# one resolver for run directories and checkpoints: a checkpoint whose
# metadata lost its config is refused by the agent and by eval alike
python3 - "$T/lone.safetensors" "$T/noconfig.safetensors" <<'EOP'
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n, = struct.unpack("<Q", b[:8])
h = json.loads(b[8:8 + n])
del h["__metadata__"]["rlhost.config"]
t = json.dumps(h).encode()
t += b" " * (-len(t) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(t)) + t + b[8 + n:])
EOP
"$AGENT" "$T/noconfig.safetensors" 1 >/dev/null 2>"$T/err"; [ $? = 1 ]; ok $? "a checkpoint without its config: exit 1"
"$RL" eval "$T/noconfig.safetensors" --episodes 1 >/dev/null 2>"$T/eerr"; ok $((! $?)) "eval refuses it too"
want="$T/noconfig.safetensors holds no rlhost config (metadata rlhost.config): open its run directory"
contains "$T/err" "$want" "the agent says what is missing and what to open"
contains "$T/eerr" "$want" "eval says the same sentence"
echo "1..$n"
[ $failed = 0 ]
