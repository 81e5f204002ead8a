#!/usr/bin/env bash
# Two rlhost tune workers on one study in a real PostgreSQL server, which
# this test starts itself (Debian's postgresql; scripts/deps.sh test): every
# trial is recorded once, each one run by exactly one worker, and the study
# stops at its trial budget.  (TAP)
# Usage: tune_postgres.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
trap 'kill $(jobs -p) 2>/dev/null; [ -n "$PGBIN" ] && as_pg "$PGBIN/pg_ctl" -D "$T/pg/data" -m immediate stop >/dev/null 2>&1; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" psycopg2
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "not ok 1 - PostgreSQL is not installed: run scripts/deps.sh test (scripts/test.sh does)"; echo "1..1"; exit 1
fi

# A private server: its own data directory, a Unix socket in $T, no TCP.
mkdir -p "$T/pg" && chmod 755 "$T"
[ "$(id -u)" = 0 ] && chown postgres "$T/pg"
port=$((40000 + RANDOM % 20000))
expect_rc 0 "initdb" -- as_pg "$PGBIN/initdb" -D "$T/pg/data" -A trust -U rlhost
expect_rc 0 "the server starts" -- as_pg "$PGBIN/pg_ctl" -D "$T/pg/data" -l "$T/pg/log" -w \
  -o "-k $T/pg -p $port -c listen_addresses=''" start
expect_rc 0 "a database for the study" -- as_pg "$PGBIN/createdb" -h "$T/pg" -p "$port" -U rlhost optuna
URL="postgresql+psycopg2://rlhost@/optuna?host=$T/pg&port=$port"

cat > "$T/cp.cfg" <<'CFG'
run: { steps = 20000; seed = 1; eval_episodes = 5; eval_interval = 4000; };
env: { plugin = "cartpole"; num_envs = 8; };
algo: { plugin = "ppo"; n_steps = 32; batch_size = 256; lr = 1e-3; };
tune: { algo: { lr = { log_uniform = [1e-4, 3e-3]; }; n_epochs = { choice = [4, 10]; }; }; };
CFG
# Two workers, as on two machines: each its own directory, one storage.
"$RLHOST" tune "$T/cp.cfg" --storage "$URL" --study-name two --trials 10 --out "$T/w1" --seed 1 >"$T/o1" 2>&1 &
p1=$!
"$RLHOST" tune "$T/cp.cfg" --storage "$URL" --study-name two --trials 10 --out "$T/w2" --seed 2 >"$T/o2" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
[ $r1 = 0 ] && [ $r2 = 0 ]; ok $? "both workers finish (exit $r1 and $r2)"
[ $r1 = 0 ] || sed 's/^/#   /' "$T/o1" | tail -8
[ $r2 = 0 ] || sed 's/^/#   /' "$T/o2" | tail -8
"$SRC/.venv/bin/python" - "$URL" "$T/w1" "$T/w2" <<'PY' > "$T/py" 2>&1
import os, sys, optuna
s = optuna.load_study(study_name="two", storage=sys.argv[1])
t = s.get_trials(deepcopy=False)
nums = [x.number for x in t]
assert sorted(nums) == list(range(len(t))), nums
assert 10 <= len(t) <= 11, f"{len(t)} trials for a budget of 10 (one more is the race two workers may run)"
assert all(x.state.name in ("COMPLETE", "PRUNED", "FAIL") for x in t), [x.state.name for x in t]
dirs = {w: {int(d) for d in os.listdir(os.path.join(w, "trials"))} for w in sys.argv[2:]}
a, b = dirs[sys.argv[2]], dirs[sys.argv[3]]
assert not (a & b), f"trials run by both workers: {a & b}"
assert a | b == set(nums), (a | b, nums)
assert a and b, f"one worker ran nothing: {a} {b}"
print(f"fine: {len(t)} trials, {len(a)} and {len(b)} per worker, best {s.best_value}")
PY
contains "$T/py" "fine" "every trial recorded once, each run by one worker, both workers busy"
grep '^#\|fine' "$T/py" | sed 's/^/# /'
for w in w1 w2; do [ -s "$T/$w/trials.csv" ] && [ -s "$T/$w/best.cfg" ]; ok $? "$w writes the whole study's trials.csv and best.cfg"; done

# A password in the URL (the server trusts the socket, so any password
# serves) reaches no output: not the refusal of another space, not a file.
PWURL="postgresql+psycopg2://rlhost:Sup3rSecretPw@/optuna?host=$T/pg&port=$port"
printf 'tune: { algo: { n_epochs = { choice = [2, 4]; }; }; };\n' > "$T/other.cfg"
expect_rc 2 "a worker with another space" -- "$RLHOST" tune "$T/cp.cfg" --storage "$PWURL" --study-name two --space "$T/other.cfg" --trials 10 --out "$T/w3"
contains "$T/err" "was made with another search space" "is refused"
expect_rc 0 "a worker with the password in its URL" -- "$RLHOST" tune "$T/cp.cfg" --storage "$PWURL" --study-name pw --trials 2 --out "$T/w4" --set run.steps=4000
"$RLHOST" tune "$T/cp.cfg" --storage "$PWURL" --study-name pw2 --trials 2 --out "$T/w5" --set run.steps=5000000 >/dev/null 2>"$T/w5err" &
pid=$!
for _ in $(seq 300); do [ -e "$T/w5/trials/00000/config.cfg" ] && break; sleep 0.1; done
kill -INT $pid; wait $pid
cat "$T/err" "$T/w5err" > "$T/allerr"
contains "$T/w5err" "rlhost:***@" "the resume hint shows the URL with its password masked"
! grep -rq Sup3rSecretPw "$T/allerr" "$T/w3" "$T/w4" "$T/w5"; ok $? "no stderr, log, CSV, best.cfg or record holds the password"
echo "1..$n"
[ $failed = 0 ]
