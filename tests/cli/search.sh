#!/usr/bin/env bash
# Search (docs/search.md) through the tic-tac-toe fixture, where minimax
# knows every position's value, and Connect Four: random-rollout MCTS as an
# opponent never loses to perfect play; a policy with a value head searches
# at play time (eval, play); the searcher's streams resume exactly; every
# env, spec, network and cap that cannot be searched is refused with a
# sentence.  (TAP)
# Usage: search.sh RLHOST SOURCE_ROOT FIXTURE_DIR
set -u
RLHOST=$1 SRC=$2 FIXTURES=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
PP=(--plugin-path "$FIXTURES")
won() { sed -n "s/.*vs $1, learner at seat $2: won \([0-9]*\), drew \([0-9]*\), lost \([0-9]*\) .*/\\$3/p" "$T/out"; }

cat > "$T/minimax.cfg" <<'EOF'
run: { seed = 4; eval_episodes = 100; };
env: { plugin = "tictactoe"; num_envs = 8; };
algo: { plugin = "tictactoe_minimax"; };
seats: { opponent = "random"; };
EOF
# 1. UCT with random rollouts against perfect play: it never loses from
#    either seat; with few simulations it does.
expect_rc 0 "perfect play against mcts(simulations=2000)" -- "$RLHOST" eval "$T/minimax.cfg" "${PP[@]}" \
  --opponent 'mcts(simulations=2000)' --opponent 'mcts(simulations=100)' --episodes 100
w0=$(won 'mcts(simulations=2000)' 0 1) w1=$(won 'mcts(simulations=2000)' 1 1)
[ "$w0" = 0 ] && [ "$w1" = 0 ]; ok $? "mcts(simulations=2000) loses none of 200 games to minimax (minimax won $w0, $w1)"
w0=$(won 'mcts(simulations=100)' 0 1) w1=$(won 'mcts(simulations=100)' 1 1)
[ $((w0 + w1)) -gt 0 ]; ok $? "mcts(simulations=100) does lose some ($w0, $w1): the threshold can fail"

# 2. A network that knows the values (the minimax player's): searching with
#    it keeps perfect play perfect.
expect_rc 0 "eval --search with a perfect network" -- "$RLHOST" eval "$T/minimax.cfg" "${PP[@]}" \
  --opponent tictactoe_minimax --opponent random --search 30 --episodes 50
[ "$(won tictactoe_minimax 0 3)" = 0 ] && [ "$(won tictactoe_minimax 1 3)" = 0 ]
ok $? "it never loses to minimax"
[ "$(won random 0 3)" = 0 ] && [ "$(won random 1 3)" = 0 ] && [ "$(won random 0 1)" -ge 45 ]
ok $? "nor to random play, winning 45+ of 50 as first player ($(won random 0 1))"

# 3. An untrained PPO policy, searched: the search alone makes it strong
#    against random play (the policy alone wins about half).
cat > "$T/ppo.cfg" <<'EOF'
run: { seed = 2; eval_episodes = 100; };
env: { plugin = "tictactoe"; num_envs = 8; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 64; hidden = [16]; };
seats: { opponent = "random"; };
EOF
expect_rc 0 "an untrained policy against random play" -- "$RLHOST" eval "$T/ppo.cfg" "${PP[@]}" --episodes 100
raw=$(( $(won random 0 1) + $(won random 1 1) ))
expect_rc 0 "the same, searched with 200 simulations" -- "$RLHOST" eval "$T/ppo.cfg" "${PP[@]}" --episodes 100 --search 200
w0=$(won random 0 1) w1=$(won random 1 1)
[ "$w0" -ge 90 ] && [ "$w1" -ge 60 ] && [ $((w0 + w1)) -gt $((raw + 40)) ]
ok $? "searched, it wins 90+ as first and 60+ as second player (won $w0, $w1; unsearched $raw of 200)"
expect_rc 0 "the same search again" -- "$RLHOST" eval "$T/ppo.cfg" "${PP[@]}" --episodes 100 --search 200 --json
cp "$T/out" "$T/j1"
expect_rc 0 "and on one thread" -- "$RLHOST" eval "$T/ppo.cfg" "${PP[@]}" --episodes 100 --search simulations=200,threads=1 --json
cmp -s "$T/j1" "$T/out"; ok $? "a search repeats exactly, whatever its threads"

# 4. A run against a searching opponent resumes bit-identical: the
#    opponent's count of searches is in the checkpoint.
cat > "$T/vs_mcts.cfg" <<'EOF'
run: { steps = 6000; seed = 3; eval_episodes = 8; log_interval = 1000; };
env: { plugin = "tictactoe"; num_envs = 8; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 64; hidden = [16]; };
seats: { opponent = "mcts(simulations=20)"; eval_opponents = ["mcts(simulations=50)"]; };
EOF
exact vs_mcts "$T/vs_mcts.cfg" 2048 "${PP[@]}"

# 5. Connect Four: play --search shows the searched policy's games.
printf 'run: { seed = 1; };\nenv: { plugin = "connect_four"; };\nalgo: { plugin = "ppo"; hidden = [16]; };\nseats: { opponent = "mcts(simulations=30)"; };\n' > "$T/c4.cfg"
expect_rc 0 "play --search on Connect Four" -- "$RLHOST" play "$T/c4.cfg" --search 50 --episodes 1 --fps 1000
contains "$T/out" "the learner plays seat" "shows the game"

# 6. What cannot be searched: a sentence each, exit 2 where nothing ran.
refuse() { # RC DESC SENTENCE ARGS...
  local rc=$1 desc=$2 want=$3; shift 3
  expect_rc "$rc" "$desc" -- "$RLHOST" "$@"
  contains "$T/err" "$want" "$desc: says so"
}
refuse 2 "--search 0" "search simulations '0' is not a whole number from 1 to 1000000" eval "$T/ppo.cfg" "${PP[@]}" --search 0
refuse 2 "--search 10^9" "search simulations '1000000000' is not a whole number" eval "$T/ppo.cfg" "${PP[@]}" --search 1000000000
refuse 2 "a key the search lacks" "the search has no key 'depth'" eval "$T/ppo.cfg" "${PP[@]}" --search depth=3
refuse 2 "a tree past the memory cap" "past the cap of 1.0 MiB" eval "$T/ppo.cfg" "${PP[@]}" --search simulations=100000,max_mib=1
printf 'run: { steps = 512; seed = 1; eval_episodes = 2; quiet = true; };\nenv: { plugin = "tictactoe"; };\nalgo: { plugin = "a2c"; };\nseats: { opponent = "random"; };\n' > "$T/a2c.cfg"
"$RLHOST" run "$T/a2c.cfg" "${PP[@]}" --out "$T/a2c" >/dev/null 2>&1
refuse 2 "a network without values" "algo 'a2c' gives the search no probabilities and values" \
  eval "$T/a2c" "${PP[@]}" --search 10
refuse 2 "an env that is not searchable" "env 'cartpole' cannot be searched: it does not declare itself searchable" \
  eval "$SRC/configs/cartpole_ppo.cfg" --search 10
refuse 2 "an mcts opponent on an env that is not searchable" \
  "opponent 'mcts(simulations=5)': env 'seats_env' cannot be searched" \
  eval "$T/ppo.cfg" "${PP[@]}" --set 'env.plugin="seats_env"'  --opponent 'mcts(simulations=5)'
refuse 2 "a bad key of mcts" "opponent 'mcts(depth=2)': the search has no key 'depth'" \
  eval "$T/ppo.cfg" "${PP[@]}" --opponent 'mcts(depth=2)'
refuse 2 "a snapshot's search without N" "needs search=N" \
  eval "$T/ppo.cfg" "${PP[@]}" --opponent "$T/vs_mcts-a(c_puct=2)"
refuse 2 "a snapshot whose network has no values" "algo 'a2c' gives the search no probabilities and values" \
  eval "$T/ppo.cfg" "${PP[@]}" --opponent "$T/a2c(search=10)"
"$RLHOST" run "$SRC/configs/cartpole_ppo.cfg" --set run.steps=512 --set run.quiet=true --set run.eval_episodes=1 \
  --out "$T/cp" >/dev/null 2>&1
refuse 2 "a snapshot of another game as the search's network" "was trained on env 'cartpole', not 'tictactoe'" \
  eval "$T/ppo.cfg" "${PP[@]}" --opponent "$T/cp(search=10)"
refuse 1 "an env whose state is not one slice per env" "is not searchable as it declares (RL_DESC_SEARCHABLE)" \
  eval "$T/minimax.cfg" "${PP[@]}" --set 'env.fault="shared_state"'  --opponent 'mcts(simulations=5)' --episodes 2
refuse 2 "an env that declares itself searchable but saves nothing" "declares itself searchable but saves no state" \
  eval "$T/minimax.cfg" "${PP[@]}" --set 'env.fault="no_state"'  --search 5 --episodes 2

# 7. A snapshot that searches plays as an opponent, from a run directory.
expect_rc 0 "a run's snapshot with search=N as the opponent" -- "$RLHOST" eval "$T/ppo.cfg" "${PP[@]}" \
  --opponent "$T/vs_mcts-a(search=40)" --episodes 10
contains "$T/out" "vs $T/vs_mcts-a(search=40), learner at seat 1" "it plays both seats"
echo "1..$n"
[ "$failed" = 0 ]
