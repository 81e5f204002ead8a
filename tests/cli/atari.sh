#!/usr/bin/env bash
# The atari env through rlhost: the version line, every way a ROM can be
# wrong (one sentence and exit 2), training with the training options and
# an evaluation of whole games at raw scores, an exact resume (ALE's state
# with its RNG in the checkpoint), damaged or edited env state refused, and
# `play` drawing the game.  ROMs come from the ale-py package of .venv
# (scripts/pydeps.sh).  (TAP)
# Usage: atari.sh RLHOST SOURCE_ROOT
set -u
RL=$(realpath "$1") SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" ale_py
cd "$T"
unset ALE_ROM_DIR VIRTUAL_ENV
"$RL" --version >"$T/v"; contains "$T/v" "ALE: 0.12.1" "rlhost --version names ALE's version"
cat >"$T/b.cfg" <<'EOC'
run: { steps = 1024; seed = 3; out_dir = "run"; eval_episodes = 2; checkpoint_interval = 512; log_interval = 512;
       quiet = true; };
env: { plugin = "atari"; game = "breakout"; num_envs = 2; max_frames = 4000;
       episodic_life = true; reward_clip = true; fire_reset = true; };
algo: { plugin = "ppo"; encoder = "cnn"; cnn_channels = [8, 8]; cnn_kernels = [8, 4]; cnn_strides = [4, 2];
        cnn_padding = [0, 0]; hidden = [32]; shared = true; n_steps = 64; batch_size = 64; n_epochs = 1; };
EOC
# ROMs that cannot be
expect_rc 2 "an unknown game" -- "$RL" check "$T/b.cfg" --set 'env.game="braekout"'
contains "$T/err" "unknown game 'braekout'" "naming it"
contains "$T/err" "the nearest: breakout" "with the nearest names"
expect_rc 2 "a game name that is no name" -- "$RL" check "$T/b.cfg" --set 'env.game="../pong"'
contains "$T/err" "is not a game name" "saying so"
expect_rc 2 "a missing ROM file" -- "$RL" check "$T/b.cfg" --set 'env.rom="/nonexistent/pong.bin"'
contains "$T/err" "env.rom '/nonexistent/pong.bin': No such file or directory" "naming the option and the file"
mkfifo "$T/fifo.bin"
expect_rc 2 "a FIFO as the ROM" -- timeout 20 "$RL" check "$T/b.cfg" --set "env.rom=\"$T/fifo.bin\""
contains "$T/err" "is not a regular file" "saying what it is"
head -c 4096 /dev/urandom >"$T/noise.bin"
expect_rc 2 "a file that is no ROM ALE knows" -- "$RL" check "$T/b.cfg" --set "env.rom=\"$T/noise.bin\""
contains "$T/err" "is not a ROM that ALE 0.12.1 supports" "saying so"
head -c 2000000 /dev/zero >"$T/huge.bin"
expect_rc 2 "a 2 MB file as the ROM" -- "$RL" check "$T/b.cfg" --set "env.rom=\"$T/huge.bin\""
contains "$T/err" "an Atari 2600 ROM holds 1 to" "saying what a ROM holds"
ROMS=$(ls -d "$SRC"/.venv/lib/python3*/site-packages/ale_py/roms | head -1)
mkdir "$T/roms" && cp "$ROMS/breakout.bin" "$T/roms/"
ALE_ROM_DIR="$T/roms" "$RL" check "$T/b.cfg" >"$T/out" 2>"$T/err"; ok $? "ALE_ROM_DIR is where the ROM is found first"
expect_rc 0 "env.rom names a ROM file" -- "$RL" check "$T/b.cfg" --set "env.rom=\"$T/roms/breakout.bin\""
# training with clipped rewards and lives; the evaluation plays whole games at raw scores
expect_rc 0 "PPO trains on Breakout" -- "$RL" run "$T/b.cfg" --out "$T/full"
python3 - "$T/full/summary.json" >"$T/sum" <<'EOP'
import json, sys
s = json.load(open(sys.argv[1]))
print(s["eval_return_mean"], s.get("eval_score_mean"))
sys.exit(0 if s["eval_return_mean"] == s.get("eval_score_mean") else 1)
EOP
ok $? "the evaluation's return is the game's score: no clipping, whole games ($(cat "$T/sum"))"
# the same run, stopped at 512 steps and resumed: the same checkpoint bytes
expect_rc 0 "a run to 512 steps" -- "$RL" run "$T/b.cfg" --out "$T/part" --set run.steps=512
expect_rc 0 "resumed to 1024" -- "$RL" run --resume "$T/part" --set run.steps=1024
same_run "resumed at 512 steps" "$T/full" "$T/part"
# damaged env state: refused with a sentence.  edit TENSOR STATEMENT: a copy
# of the run at 512 steps (no previous checkpoint to fall back on) whose
# checkpoint has STATEMENT applied to raw[at:end], TENSOR's bytes
edit() {
  rm -rf "$T/bad" && cp -r "$T/part" "$T/bad" && rm -f "$T/bad/checkpoint.prev.safetensors"
  python3 - "$T/bad/checkpoint.safetensors" "$1" "$2" <<'EOP'
import json, struct, sys
p, name, statement = sys.argv[1:]
raw = bytearray(open(p, "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
a, b = json.loads(raw[8:8 + n])[name]["data_offsets"]
at, end = 8 + n + a, 8 + n + b
exec(statement)
open(p, "wb").write(raw)
EOP
  resign "$T/bad/checkpoint.safetensors" # crafted to pass the CRC-32s: the env's own checks refuse it
}
# env 0's slot: a 72-byte header, two 210x160 screens, 4 frames of 84x84, then ALE's bytes
edit env/atari/state 'raw[at + 72 + 2 * 33600 + 4 * 7056 + 1000] ^= 0x40'
expect_rc 1 "an edited ALE state" -- "$RL" run --resume "$T/bad" --set run.steps=2048
contains "$T/err" "has an ALE state that does not match its hash" "is refused before ALE reads it"
edit env/atari/ale_cap 'raw[at:end] = struct.pack("<Q", 1 << 40)'
expect_rc 1 "an impossible ALE state size" -- "$RL" run --resume "$T/bad" --set run.steps=2048
contains "$T/err" "is no ALE state's size" "is refused"
# play draws the game and its score
expect_rc 0 "play shows a game" -- "$RL" play "$T/full" --episodes 1
contains "$T/out" "breakout  score" "as text with the score line"
# a config too large is refused by its estimate before 100,000 games load
expect_rc 2 "check of 100,000 envs" -- timeout 60 "$RL" check "$T/b.cfg" --set env.num_envs=100000
contains "$T/err" "the rollout needs" "is refused by the rollout's size, at once"
# a mode or difficulty the game lacks, said as such
expect_rc 2 "a mode the game lacks" -- "$RL" check "$T/b.cfg" --set env.mode=255
contains "$T/err" "env.mode 255 is not one of this game's (0" "names the modes it has"
expect_rc 2 "a difficulty the game lacks" -- "$RL" check "$T/b.cfg" --set env.difficulty=200
contains "$T/err" "env.difficulty 200 is not one of this game's" "names the difficulties it has"
expect_rc 2 "both answers to a lost life" -- "$RL" check "$T/b.cfg" --set env.terminal_on_life_loss=true
contains "$T/err" "choose one" "are refused together"
# another game's state is never handed to ALE: pong and space_invaders
# have six actions each, so only the env's state tells them apart
expect_rc 0 "a short pong run" -- "$RL" run "$T/b.cfg" --set 'env.game="pong"' --set env.episodic_life=false --out pong
expect_rc 2 "resumed as space_invaders" -- "$RL" run --resume pong --set run.steps=2048 --set 'env.game="space_invaders"'
contains "$T/err" "the checkpoint's envs play 'pong' and this config plays 'space_invaders'" "names both games"
expect_rc 0 "resumed as itself it goes on" -- "$RL" run --resume pong --set run.steps=2048
echo "1..$n"
[ $failed = 0 ]
