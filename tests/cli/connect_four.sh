#!/usr/bin/env bash
# Seats (ABI 1.7) through Connect Four: the exact solver against the
# shipped positions, the scripted alpha-beta player against random play and
# shallower search, self-play runs with their pool (evaluated per opponent
# and seat, resumed exactly), and every bad seat or opponent refused with a
# sentence.  (TAP)
# Usage: connect_four.sh RLHOST SOURCE_ROOT C4_SOLVE FIXTURE_DIR
set -u
RLHOST=$1 SRC=$2 SOLVE=$3 FIXTURES=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
POS="$SRC/tests/data/connect_four_positions.txt"

# 1. The solver scores the shipped positions (the later ones: each takes
#    milliseconds) exactly as they were recorded.
grep -v '^#' "$POS" | awk 'length($1) >= 17' | head -60 > "$T/want"
cut -d' ' -f1 "$T/want" | "$SOLVE" -m > "$T/got"
[ "$(wc -l < "$T/want")" -ge 40 ] && cmp -s "$T/want" "$T/got"; ok $? "the solver scores 40+ shipped positions as recorded"
STRONG="$SRC/tests/data/connect_four_strong_positions.txt"
grep -v '^#' "$STRONG" | awk 'length($1) >= 19' | head -40 > "$T/want"
cut -d' ' -f1 "$T/want" | "$SOLVE" -m > "$T/got"
[ "$(wc -l < "$T/want")" -ge 30 ] && cmp -s "$T/want" "$T/got"; ok $? "and 30+ of the positions from strong play"
"$SOLVE" -g 1000 12 20 2026 6 0.15 | cmp -s - <(grep -v '^#' "$STRONG" | cut -d' ' -f1)
ok $? "c4_solve -g with a depth makes the strong positions again, as their header says"
"$SOLVE" -g 1000 12 20 2026 | cmp -s - <(grep -v '^#' "$POS" | cut -d' ' -f1)
ok $? "and without one the random-play positions"
printf '4444444\n' | "$SOLVE" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q "line 1: '4444444' is not a position" "$T/err"; ok $? "a full column is no position"

# Against perfect play, alpha-beta 2 picks a best column in most positions (measured 0.854).
"$SOLVE" -q 2 < "$POS" > "$T/q2"
rate=$(sed -n 's/.* in \([0-9.]*\) of 1000 positions$/\1/p' "$T/q2")
awk -v r="${rate:-0}" 'BEGIN { exit !(r >= 0.8) }'; ok $? "alpha-beta 2 plays one of the solver's best columns in 80%+ of the positions ($rate)"
kept=$(sed -n 's/.*keeps the value.* in \([0-9.]*\) of \([0-9]*\) positions$/\1 \2/p' "$T/q2")
awk -v r="${kept%% *}" -v n="${kept##* }" 'BEGIN { exit !(r >= 0.85 && r > 0 && n > 500 && n < 1000) }'
ok $? "and keeps the value of 85%+ of those not lost (kept, positions: $kept)"

# 2. The scripted player: depth 4 beats random play and depth 1 from both seats.
cat > "$T/ab.cfg" <<'EOF2'
run: { seed = 3; };
env: { plugin = "connect_four"; random_opening = 2; };
algo: { plugin = "connect_four_alphabeta"; depth = 4; };
EOF2
won() { sed -n "s/.*learner at seat $1: won \([0-9]*\),.*/\1/p" "$T/out"; }
expect_rc 0 "alpha-beta 4 against random play" -- "$RLHOST" eval "$T/ab.cfg" --opponent random --episodes 100
[ "$(won 0)" -ge 95 ] && [ "$(won 1)" -ge 95 ]; ok $? "wins 95+ of 100 from each seat (won $(won 0), $(won 1))"
expect_rc 0 "alpha-beta 4 against alpha-beta 1" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=1)' --episodes 100
[ "$(won 0)" -ge 60 ] && [ "$(won 1)" -ge 60 ]; ok $? "wins 60+ of 100 from each seat (won $(won 0), $(won 1))"
contains "$T/out" "rating " "and rates the learner"
cp "$T/out" "$T/ab1"
expect_rc 0 "the same with epsilon = 0 given" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=1, epsilon=0)' --episodes 100
games() { sed 's/^ *vs .*), learner/learner/' "$1"; }
[ "$(games "$T/out")" = "$(games "$T/ab1")" ]; ok $? "plays the very same games (epsilon 0 draws nothing)"
# exact_from: perfect play from 18 stones on (the solver's best columns)
# beats the same player without it, from each seat.
expect_rc 0 "alpha-beta 4 against itself" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=4)' --episodes 100
mirror="$(won 0) $(won 1)"
expect_rc 0 "alpha-beta 4, exact from 18 stones, against alpha-beta 4" -- "$RLHOST" eval "$T/ab.cfg" --set algo.exact_from=18 \
  --opponent 'connect_four_alphabeta(depth=4)' --episodes 100
[ "$(won 0)" -ge 55 ] && [ "$(won 1)" -ge 55 ] && [ "$(won 0)" -gt $((${mirror% *} + 10)) ] && [ "$(won 1)" -gt $((${mirror#* } + 10)) ]
ok $? "the solver's moves win 55+ of 100 from each seat, 10+ more than without ($(won 0), $(won 1); without: $mirror)"
expect_rc 0 "alpha-beta 4 against alpha-beta 4 with epsilon = 1" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=4, epsilon=1)' --episodes 100
[ "$(won 0)" -ge 95 ] && [ "$(won 1)" -ge 95 ]; ok $? "which plays random columns: wins 95+ of 100 from each seat (won $(won 0), $(won 1))"
expect_rc 0 "alpha-beta 4 against alpha-beta 4 with epsilon = 0.3" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=4, epsilon=0.3)' --episodes 100
w3=$(( $(won 0) + $(won 1) ))
expect_rc 0 "alpha-beta 4 against alpha-beta 4" -- "$RLHOST" eval "$T/ab.cfg" --opponent 'connect_four_alphabeta(depth=4)' --episodes 100
w0=$(( $(won 0) + $(won 1) ))
[ "$w3" -ge $(( w0 + 30 )) ]; ok $? "a blunder in three moves loses 30+ more of 200 games ($w3 won against it, $w0 against depth 4 itself)"

# 3. Self-play: snapshots into the pool, evaluations per opponent and seat.
Q=(--set run.quiet=true --set run.steps=12000 --set seats.snapshot_interval=4000 --set run.eval_interval=6000
   --set run.eval_episodes=6 --set env.num_envs=16)
expect_rc 0 "a self-play run" -- "$RLHOST" run "$SRC/configs/connect_four_selfplay.cfg" "${Q[@]}" --out "$T/sp"
npool=$(ls "$T/sp/pool" | grep -c '^step-.*\.safetensors$')
[ "$npool" -ge 4 ]; ok $? "the pool holds the first learner and a snapshot every 4000 steps ($npool)"
head -1 "$T/sp/evals.csv" | grep -q "vs_connect_four_alphabeta_depth_6_seat1_loss,elo$"; ok $? "evals.csv: rates per opponent and seat, and the rating"
[ "$(grep -c . "$T/sp/evals.csv")" = 4 ]; ok $? "two periodic evaluations and the final one"
mkdir -p "$T/onlypool" && cp -r "$T/sp/pool" "$T/onlypool/"
expect_rc 2 "a new run where an old run's pool is" -- "$RLHOST" run "$SRC/configs/connect_four_selfplay.cfg" "${Q[@]}" \
  --out "$T/onlypool"
contains "$T/err" "holds another run (pool/, a self-play pool)" "says so"
cp -r "$T/sp" "$T/sp_forced" && touch "$T/sp_forced/pool/notes.txt"
expect_rc 0 "--force over a run with a pool" -- "$RLHOST" run "$SRC/configs/connect_four_selfplay.cfg" "${Q[@]}" \
  --set run.steps=3000 --out "$T/sp_forced" --force
[ "$(ls "$T/sp_forced/pool" | grep -c '^step-')" = 1 ] && [ -e "$T/sp_forced/pool/notes.txt" ]
ok $? "the old run's snapshots go, the rest of pool/ stays"
expect_rc 0 "eval of the run against random play" -- "$RLHOST" eval "$T/sp" --opponent random --episodes 10
contains "$T/out" "learner at seat 1: won" "eval plays each seat"
cp "$T/out" "$T/sp_text"
expect_rc 0 "the same with --json" -- "$RLHOST" eval "$T/sp" --opponent random --episodes 10 --json
python3 - "$T/out" "$T/sp_text" > "$T/cmp" 2>&1 <<'PY'
import json, re, sys
j, text = json.loads(open(sys.argv[1]).read()), open(sys.argv[2]).read()
games = re.findall(r"learner at seat (\d): won (\d+), drew (\d+), lost (\d+) of (\d+)", text)
assert len(games) == 2, text
for seat, w, d, l, n in games:
    for kind, k in zip(("win", "draw", "loss"), (w, d, l)):
        assert abs(j[f"vs_random_seat{seat}_{kind}"] - int(k) / int(n)) < 1e-9, (seat, kind, j)
assert round(j["elo"]) == int(re.search(r"rating (-?\d+)", text).group(1)), j
PY
ok $? "its JSON has the text's games per seat and its rating, named as evals.csv's columns $(cat "$T/cmp")"
expect_rc 0 "a snapshot of the pool as an opponent" -- "$RLHOST" eval "$T/sp" --opponent "$T/sp/pool/step-000000000000000.safetensors" --episodes 4
# A snapshot of another algorithm plays as its own config builds it.
printf 'run: { steps = 2048; eval_episodes = 2; quiet = true; };\nenv: { plugin = "connect_four"; num_envs = 8; };\nalgo: { plugin = "a2c"; };\nseats: { opponent = "random"; };\n' > "$T/a2c.cfg"
expect_rc 0 "an A2C run of Connect Four" -- "$RLHOST" run "$T/a2c.cfg" --out "$T/a2c"
expect_rc 0 "PPO evaluated against the A2C run" -- "$RLHOST" eval "$T/sp" --opponent "$T/a2c" --episodes 4
contains "$T/out" "vs $T/a2c, learner at seat 0" "plays the other algorithm's policy"
expect_rc 0 "play of the run" -- "$RLHOST" play "$T/sp" --episodes 1 --fps 1000
contains "$T/out" "the learner plays seat" "play shows the learner's seat"
grep -A1 '^game over, [0-9]* stones$' "$T/out" | grep -q '^episode 1: return'
ok $? "and the board the game ended on before its result"
# A person plays the run (the CLI's play asks; librlhost reads no terminal):
# moves typed on stdin, refused with the reason until the mask allows them.
yes $'9\n1\n2\n3\n4\n5\n6\n7' | head -400 > "$T/moves"
expect_rc 0 "play --human" -- sh -c "\"$RLHOST\" play \"$T/sp\" --human --episodes 2 --fps 1000 < \"$T/moves\""
contains "$T/out" "your move (1-7, where allowed)" "asks the person for each move"
contains "$T/out" "9 is no move: from 1 to 7, please" "and again after a move that is no column, saying the range"
[ "$(grep -c '^game [12]: \(you won\|you lost\|a draw\)$' "$T/out")" = 2 ]; ok $? "tells the person who won each game"
[ "$(grep -B1 '^game [12]: ' "$T/out" | grep -c '^game over, [0-9]* stones$')" = 2 ]
ok $? "and draws the board each game ended on, its last move in it, just before"
{ printf '44\n3.5\n1e3\n'; head -c 200 /dev/zero | tr '\0' 4; printf '\n'; yes 4 | head -40; } > "$T/moves2"
expect_rc 0 "play --human, one game" -- sh -c "\"$RLHOST\" play \"$T/sp\" --human --episodes 1 --fps 1000 < \"$T/moves2\""
[ "$(grep -c 'one number from 1 to 7, please' "$T/out")" = 3 ] && grep -q "44 is no move" "$T/out"
ok $? "3.5, 1e3 and a 200-byte line are no moves, and 44 is out of range"
[ "$(grep -c '^game [0-9]' "$T/out")" = 1 ] && [ "$(tail -c 200 "$T/out" | grep -c 'your move')" = 0 ]
ok $? "one game asked for: its result last, no move asked in a next one"
printf '4\n' > "$T/moves3"
expect_rc 0 "end of input at the prompt quits" -- sh -c "\"$RLHOST\" play \"$T/sp\" --human --episodes 3 --fps 1000 < \"$T/moves3\""
exact c4_selfplay "$SRC/configs/connect_four_selfplay.cfg" 3000 "${Q[@]}" --set run.steps=15000 --set seats.draw=\"pfsp\"
exact c4_scripted "$SRC/configs/connect_four_selfplay.cfg" 3000 "${Q[@]}" \
  --set 'seats.opponent="connect_four_alphabeta(depth=1)"' --set env.random_opening=0
# openings of every length and a player that blunders draw from RNGs the resume restores
exact c4_ranges "$SRC/configs/connect_four_selfplay.cfg" 3000 "${Q[@]}" --set run.steps=15000 --set env.random_opening_max=12 \
  --set 'seats.pool_opponents=["connect_four_alphabeta(depth=2, epsilon=0.3)"]'

expect_rc 0 "info seats documents the group" -- "$RLHOST" info seats
contains "$T/out" "pool_opponents = []" "every option of it"

# 4. Bad seats and opponents: a sentence each, nothing written half; and
#    `rlhost check` refuses each as the run does (it seats the env, opens
#    the opponents and the self-play pool as the run would).
for cfg in connect_four_selfplay connect_four_alphazero; do
  expect_rc 0 "check $cfg.cfg" -- "$RLHOST" check "$SRC/configs/$cfg.cfg"
  contains "$T/out" "seats: {" "check $cfg.cfg: prints the resolved config"
done
refuse() { # DESC SENTENCE ARGS...
  local desc=$1 want=$2; shift 2
  expect_rc 2 "$desc" -- "$RLHOST" run "$SRC/configs/connect_four_selfplay.cfg" "${Q[@]}" --out "$T/bad" --force "$@"
  contains "$T/err" "$want" "$desc: says so"
  expect_rc 2 "check: $desc" -- "$RLHOST" check "$SRC/configs/connect_four_selfplay.cfg" "$@"
  contains "$T/err" "$want" "check: $desc: says so"
}
refuse "an opponent nobody knows" "opponent 'nosuch' is neither an algorithm plugin nor a checkpoint or run directory" \
  --set 'seats.opponent="nosuch"'
refuse "a pool opponent nobody knows" "opponent 'nosuch' is neither an algorithm plugin" \
  --set 'seats.pool_opponents=["nosuch"]'
refuse "an evaluation opponent nobody knows" "opponent 'nosuch' is neither an algorithm plugin" \
  --set 'seats.eval_opponents=["nosuch"]'
refuse "an evaluation opponent's option out of range" "depth = 0: expected an integer in [1, 12]" \
  --set 'seats.eval_opponents=["connect_four_alphabeta(depth=0)"]'
refuse "a learner seat the env lacks" "seat 5: env 'connect_four' has seats 0 to 1" --set seats.learner_seat=5
refuse "an opponent that sets a key twice" "opponent 'connect_four_alphabeta(depth=2, depth=3)' sets 'depth' twice" \
  --set 'seats.opponent="connect_four_alphabeta(depth=2, depth=3)"'
refuse "the same evaluation opponent twice" "'random' and 'random' would share the columns vs_random_* of evals.csv" \
  --set 'seats.eval_opponents=["random", "random"]'
expect_rc 2 "eval against the same opponent twice" -- "$RLHOST" eval "$T/sp" --opponent random --opponent random --episodes 2
contains "$T/err" "would share the columns" "says so"
refuse "self-play with no one to evaluate against" "seats.eval_opponents is empty and the learner plays itself" \
  --set 'seats.eval_opponents=[]'
"$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.steps=512 --set run.quiet=true --set run.eval_episodes=1 --out "$T/cp" >/dev/null 2>&1
refuse "a snapshot of another env" "was trained on env 'cartpole', not 'connect_four'" --set "seats.opponent=\"$T/cp\""
expect_rc 1 "a command that cannot seat players" -- "$RLHOST" bench env connect_four --steps 1000 --repeat 1
contains "$T/err" "env 'connect_four' seats 2 players; this command cannot seat them" "bench env says so"
# Opponents are checked as learners are: an algorithm that does not take
# the env's masks is refused before anything runs, as run opponent and in eval.
refuse "an opponent that does not take masks" \
  "opponent 'mini_dqn': algo 'mini_dqn' does not take action masks (it takes discrete actions), and env 'connect_four' has action masks" \
  --set 'seats.opponent="mini_dqn"'
expect_rc 2 "eval against an opponent that does not take masks" -- "$RLHOST" eval "$T/sp" --opponent mini_dqn --episodes 2
contains "$T/err" "algo 'mini_dqn' does not take action masks" "says why"
refuse "a pool member that does not take masks" "opponent 'mini_dqn': algo 'mini_dqn' does not take action masks" \
  --set 'seats.pool_opponents=["mini_dqn"]'
# A DQN run as the opponent (an instance made to act): the learner's
# checkpoints hold its acting state, and the run resumes exactly.
printf 'run: { steps = 3000; eval_episodes = 2; quiet = true; };\nenv: { plugin = "connect_four"; num_envs = 8; };\nalgo: { plugin = "dqn"; learning_starts = 500; exploration_final_eps = 0.1; eval_epsilon = 0.2; };\nseats: { opponent = "random"; };\n' > "$T/dqn.cfg"
expect_rc 0 "a DQN run of Connect Four" -- "$RLHOST" run "$T/dqn.cfg" --out "$T/dqn"
exact c4_dqn_opponent "$SRC/configs/connect_four_selfplay.cfg" 3000 "${Q[@]}" --set "seats.opponent=\"$T/dqn\""

# The pool is the run's: a snapshot edited away before a resume is refused by name.
cp -r "$T/sp" "$T/sp2" && rm "$T/sp2/pool/step-000000000004000.safetensors" 2>/dev/null || rm "$T/sp2/pool/"step-*4*.safetensors
rm -f "$T/sp2/summary.json"
expect_rc 1 "a resume whose pool lost a snapshot" -- "$RLHOST" run --resume "$T/sp2" --set run.steps=20000
contains "$T/err" "the self-play pool lost" "names the missing snapshot"

expect_rc 0 "a seats group on an env without seats" -- "$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.steps=256 \
  --set run.eval_episodes=0 --set run.quiet=true --set 'seats.opponent="random"' --out "$T/cp_seats"
contains "$T/err" "env 'cartpole' seats no players: the seats group is not used" "is warned about"

# 5. Envs and opponents that break the seats' contract (tests/fixtures/seats.c).
mkdir -p "$T/plug" && cp "$FIXTURES/seats.so" "$T/plug/"
printf 'run: { steps = 2000; eval_episodes = 4; quiet = true; };\nenv: { plugin = "seats_env"; num_envs = 4; };\nalgo: { plugin = "ppo"; n_steps = 16; batch_size = 32; };\nseats: { opponent = "random"; eval_opponents = ["random"]; };\n' > "$T/race.cfg"
expect_rc 0 "a turn-based race against random play" -- "$RLHOST" run "$T/race.cfg" --plugin-path "$T/plug" --out "$T/race"
contains "$T/race/evals.csv" "vs_random_seat1_win" "evaluated from both seats"
bad_env() { # FAULT RC SENTENCE
  expect_rc "$2" "seats_env fault $1" -- "$RLHOST" run "$T/race.cfg" --plugin-path "$T/plug" --out "$T/race_$1" --set "env.fault=\"$1\""
  contains "$T/err" "$3" "seats_env fault $1: says so"
}
bad_env no_mover 1 "env 'seats_env': it is turn-based, but no agent of env 1 is to move"
bad_env split_end 1 "env 'seats_env': it ended the episode of 1 of env 1's 2 agents; an env with seats ends them together"
bad_env seat_range 2 "env 'seats_env' seats agent 1 at seat 5 of 2"
bad_env no_seats 2 "env 'seats_env' says it is turn-based but seats no players"
bad_env uneven 2 "env 'seats_env' seats 2 agents at seat 0 and 1 at seat 1; every seat needs as many"
expect_rc 1 "an opponent that picks an action past the last" -- "$RLHOST" run "$T/race.cfg" --plugin-path "$T/plug" --out "$T/race_il" --set 'seats.opponent="seats_illegal"'
contains "$T/err" "opponent 'seats_illegal'" "names the opponent"

echo "1..$n"
[ $failed = 0 ]
