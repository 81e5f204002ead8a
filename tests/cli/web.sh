#!/usr/bin/env bash
# The web page (examples/web/): a briefly trained snake DQN, gridworld
# CNN PPO and catch PPO (the SDK's env template, drawn as text) are each built into the page (the env plugin's own C and the
# policy exported to C, compiled to WebAssembly), served locally, and
# opened in Debian's headless Chromium, which plays episodes; the scores,
# returns and lengths the page reads back match `rlhost eval` of the same
# checkpoint on the same seeds, episode by episode.  The game page of a
# Connect Four AlphaZero run searches as rlhost searches the same run, and
# beats a naive person from both seats.  Then each page plays
# in real time and shows its frame rate and the policy's time per action,
# and a screenshot is kept in BUILD_ROOT/web/.  (TAP)
# Usage: web.sh RLHOST SOURCE_ROOT BUILD_ROOT
set -u
RLHOST=$1 SRC=$2 BUILD=$3
export BUILD # build.sh reads each plugin's sources from this build tree
T=$(mktemp -d)
SERVER=
trap '[ -n "$SERVER" ] && kill $SERVER 2>/dev/null; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
for tool in clang wasm-ld chromium; do
  command -v $tool >/dev/null && continue
  echo "not ok 1 - $tool is missing: run scripts/deps.sh test (scripts/test.sh does)"
  echo "1..1"
  exit 1
done
# rlhost export (build.sh) and the game page's check read with NumPy (.venv)
need_python "$SRC" numpy
K=12
# build.sh runs `rlhost export`, Python on librlhost: under ASan (CI) it needs the runtimes first
sanitizer_wrap "$(dirname "$(dirname "$RLHOST")")/core/runtime/librlhost.so" "$RLHOST" "$T/rlhost"
# a server on a free port (the port comes back in a file), serving $T/pages;
# /hold?ms=N answers after N ms, which keeps a page that asks for it loading
# that long, and /hold?report=1 once a page POSTed its results to report
# (at most 100 s)
mkdir -p "$T/pages"
python3 - "$T/pages" "$T/port" > "$T/http.log" 2>&1 <<'PY' &
import functools, http.server, sys, time, urllib.parse


import threading

reported = threading.Event()


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        if u.path != "/hold":
            return super().do_GET()
        q = urllib.parse.parse_qs(u.query)
        if "report" in q:
            reported.wait(100)
            reported.clear()
        else:
            time.sleep(int(q["ms"][0]) / 1000)
        self.send_response(204)
        self.end_headers()

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        reported.set()
        self.send_response(204)
        self.end_headers()


handler = functools.partial(Handler, directory=sys.argv[1])
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
SERVER=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
BASE="http://127.0.0.1:$(cat "$T/port")"
CHROME=(chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$T/profile")
mkdir -p "$BUILD/web"

# played DIR COPY QUERY JSON: a copy COPY of pages/DIR's page that stays
# loading until the page reported its results, so that Chromium dumps it
# once it played, opened headless at COPY?QUERY: its DOM in $T/dom.html,
# its results in JSON, what its error line says as comments; Chromium's
# exit status.  (A copy's name is its own: Chromium may cache another.)
played() {
  local dir=$1 copy=$2 query=$3 json=$4 rc
  sed 's|</body>|<img src="/hold?report=1" alt="" hidden></body>|' "$T/pages/$dir/index.html" > "$T/pages/$dir/$copy"
  timeout 150 "${CHROME[@]}" --dump-dom "$BASE/$dir/$copy?$query" > "$T/dom.html" 2>>"$T/chrome.err"
  rc=$?
  grep -o '<pre id="results">[^<]*' "$T/dom.html" | sed 's/<pre id="results">//' > "$json"
  if grep -q '<pre id="error">[^<]' "$T/dom.html"; then
    echo "# the page says:"
    grep -A3 'id="error"' "$T/dom.html" | sed 's/^/#   /'
  fi
  return $rc
}

page() { # NAME CONFIG ARGS...: train briefly, build the page, play it headless, compare with rlhost eval
  local name=$1 cfg=$2; shift 2
  expect_rc 0 "$name: train" -- "$RLHOST" run "$cfg" "$@" --set run.quiet=true --set run.eval_episodes=4 \
    --set run.eval_interval=0 --out "$T/$name"
  RLHOST="$T/rlhost" expect_rc 0 "$name: examples/web/build.sh builds the page" -- \
    "$SRC/examples/web/build.sh" "$T/$name" "$T/pages/$name"
  for f in index.html web.js config.js policy.wasm; do
    [ -s "$T/pages/$name/$f" ]; ok $? "$name: the page has $f"
  done
  played "$name" played.html "episodes=$K&fast&report" "$T/page.json"
  ok $? "$name: headless Chromium plays $K episodes"
  grep -q '"episodes"' "$T/page.json"; ok $? "$name: the page shows its results"
  expect_rc 0 "$name: rlhost eval of the same checkpoint" -- "$RLHOST" eval "$T/$name" --episodes $K --json \
    --trace "$T/eval.csv"
  cp "$T/out" "$T/eval.json"
  python3 - "$T/page.json" "$T/eval.json" "$T/eval.csv" > "$T/cmp" 2>&1 <<'PY'
import collections, csv, json, sys
page = json.load(open(sys.argv[1]))
ev = json.load(open(sys.argv[2]))
ep = collections.defaultdict(lambda: [0, 0.0])
for r in csv.DictReader(open(sys.argv[3])):
    e = ep[int(r["episode"])]
    e[0] += 1
    e[1] += float(r["reward"])
mine = [(p["length"], p["return"]) for p in page["episodes"]]
theirs = [(ep[k][0], ep[k][1]) for k in range(len(ep))]
bad = [(k, a, b) for k, (a, b) in enumerate(zip(mine, theirs)) if a[0] != b[0] or abs(a[1] - b[1]) > 1e-4]
score = ev.get("score_mean", ev["return_mean"])  # an env without a score of its own: the return
print(f"episodes: page {len(mine)}, eval {len(theirs)}; first difference: {bad[0] if bad else None};",
      f"mean {ev.get('score_name') or 'return'}: page {page['mean_score']:.6g}, eval {score:.6g}")
good = len(mine) == len(theirs) and not bad and abs(page["mean_score"] - score) < 1e-6
sys.exit(0 if good else 1)
PY
  ok $? "$name: every episode's length and return, and the mean score, match rlhost eval's ($(cat "$T/cmp"))"
  # real time: one step per animation frame, the frame rate and the policy's
  # speed on the page.  A copy of the page that also asks for /hold stays
  # loading for 5 s while it plays, and Chromium dumps it once it loaded.
  # A machine busy with other tests can take most of the 5 s to load the
  # page: then it plays 15 s once more before the page is read.
  local fps act hold live
  for hold in 5000 15000; do
    live=live$hold.html # a name of its own: Chromium may keep the first copy in its cache
    sed "s|</body>|<img src=\"/hold?ms=$hold\" alt=\"\" hidden></body>|" "$T/pages/$name/index.html" \
      > "$T/pages/$name/$live"
    timeout 60 "${CHROME[@]}" --window-size=960,560 --dump-dom "$BASE/$name/$live" > "$T/live.html" \
      2>>"$T/chrome.err"
    fps=$(sed -n 's/.*<td class="v" id="fps">\([0-9.]*\)<.*/\1/p' "$T/live.html")
    act=$(sed -n 's/.*<td class="v" id="act">\([0-9.]*\) µs<.*/\1/p' "$T/live.html")
    [ -n "$fps" ] && [ -n "$act" ] && break
  done
  awk -v f="${fps:-0}" 'BEGIN { exit !(f > 0) }'
  ok $? "$name: in real time the page shows its frame rate (${fps:-none} frames/s)"
  awk -v a="${act:-0}" 'BEGIN { exit !(a > 0) }'; ok $? "$name: and the policy's time per action (${act:-none} µs)"
  timeout 60 "${CHROME[@]}" --window-size=960,560 --screenshot="$BUILD/web/$name.png" "$BASE/$name/$live" \
    >/dev/null 2>>"$T/chrome.err"
  [ "$(wc -c < "$BUILD/web/$name.png" 2>/dev/null || echo 0)" -gt 10000 ]
  ok $? "$name: a screenshot is kept: $BUILD/web/$name.png"
}
page snake "$SRC/configs/snake_dqn.cfg" --set run.steps=20000
page gridworld "$SRC/configs/gridworld_cnn_ppo.cfg" --set run.steps=8192
page catch "$SRC/examples/env-template/catch.cfg" --set run.steps=5000 # an env that draws text only
# the game page: Connect Four against an AlphaZero network searched in the
# module by rlhost's own tree search; its moves against rlhost's search of
# the same run, and a whole game against a person who plays the first
# column it may, from each seat
expect_rc 0 "connect_four: train an AlphaZero network briefly" -- "$RLHOST" run "$SRC/configs/connect_four_alphazero.cfg" \
  --set run.steps=30000 --set env.num_envs=16 --set env.random_opening=0 --set search.simulations=32 \
  --set 'algo.hidden=[64, 64]' --set algo.learning_starts=1000 --set run.eval_episodes=0 --set run.eval_interval=0 \
  --set run.quiet=true --set run.tensorboard=false --out "$T/c4"
RLHOST="$T/rlhost" expect_rc 0 "connect_four: examples/web/build.sh builds the game page" -- \
  "$SRC/examples/web/build.sh" "$T/c4" "$T/pages/c4"
positions=$(grep -v '^#' "$SRC/tests/data/connect_four_positions.txt" | head -40 | awk '{ print $1 }' | paste -sd,)
played c4 played.html "positions=,$positions&simulations=100&report" "$T/c4.json"
ok $? "connect_four: headless Chromium searches the empty board and 40 positions on the page"
grep -q '"positions"' "$T/c4.json"; ok $? "connect_four: the page shows its searched moves"
(export RLHOST_LIB_DIR="$BUILD" PYTHONPATH="$SRC/python"
 unset RLHOST_PLUGIN_PATH
 sanitizer_env "$BUILD/core/runtime/librlhost.so"
 py_tap "connect_four: " "$PY" "$SRC/tests/python/web_versus.py" "$T/c4" "$T/c4.json"
 echo "$n $failed" > "$T/counts")
read -r n failed < "$T/counts"
for seat in 0 1; do
  played c4 "game$seat.html" "human=first&seat=$seat&simulations=100&report" "$T/game.json"
  python3 - "$T/game.json" > "$T/cmp" 2>&1 <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
print(f"moves {''.join(map(str, g['moves']))}, the person's reward {g['reward']}")
sys.exit(0 if g["over"] and g["reward"] == -1 else 1)
PY
  ok $? "connect_four: from seat $seat, the searched policy beats a person who plays the first column it may ($(cat "$T/cmp"))"
  grep -q 'game over' "$T/dom.html"; ok $? "connect_four: seat $seat: the page shows the game's last board"
done
timeout 60 "${CHROME[@]}" --window-size=960,560 --screenshot="$BUILD/web/connect_four.png" \
  "$BASE/c4/index.html?seat=1&simulations=100" >/dev/null 2>>"$T/chrome.err"
[ "$(wc -c < "$BUILD/web/connect_four.png" 2>/dev/null || echo 0)" -gt 10000 ]
ok $? "connect_four: a screenshot of a game the policy opened is kept: $BUILD/web/connect_four.png"
grep -q '"seats": 2,' "$T/c4/summary.json" && grep -q '"turn_based": true,' "$T/c4/summary.json"
ok $? "connect_four: summary.json says two seats taking turns"
# a game page needs a value head: a DQN's is refused before anything is
# compiled.  Its config has no seats group: the page is a game page for the
# env's own seats (summary.json's), not for the config's group
printf '%s\n' 'run: { steps = 1000; seed = 1; eval_episodes = 2; quiet = true; };' \
  'env: { plugin = "connect_four"; num_envs = 4; };' \
  'algo: { plugin = "dqn"; learning_starts = 500; buffer_size = 2000; };' > "$T/c4dqn.cfg"
expect_rc 0 "connect_four: a DQN run, its config without a seats group" -- "$RLHOST" run "$T/c4dqn.cfg" --out "$T/c4dqn"
RLHOST="$T/rlhost" expect_rc 1 "build.sh refuses its game page" -- "$SRC/examples/web/build.sh" "$T/c4dqn" "$T/pages/c4dqn"
contains "$T/err" "the game page searches with the policy's value head, and this policy has none" "saying why"
# an env whose plugin needs a C library is refused by name
expect_rc 0 "a cartpole run" -- "$RLHOST" run "$SRC/configs/cartpole_dqn.cfg" --set run.steps=1000 \
  --set run.quiet=true --out "$T/cartpole"
RLHOST="$T/rlhost" expect_rc 1 "build.sh refuses cartpole" -- "$SRC/examples/web/build.sh" "$T/cartpole" "$T/pages/cp"
contains "$T/err" "env 'cartpole': the page builds snake, gridworld, catch and connect_four" "saying which envs it builds"
grep -q '"seats": 0,' "$T/cartpole/summary.json"; ok $? "cartpole: summary.json says no seats"
# a run directory whose name closes a comment and starts a line of its own:
# nothing of it reaches the generated header
bad="$T/x*/"$'\n'"#error injected"$'\n'"/*"
mkdir -p "$bad" "$T/wo" && cp "$T/cartpole/config.cfg" "$T/cartpole/summary.json" "$bad/"
python3 "$SRC/examples/web/host/web_options.py" "$bad/config.cfg" "$T/wo" && ! grep -q "injected" "$T/wo/web_options.h" &&
  cc -std=c11 -Werror -fsyntax-only -include stdint.h -x c "$T/wo/web_options.h"
ok $? "web_options.h holds nothing of the run directory's name, and compiles"
# the evaluation seed is rlhost's, from the run's summary.json: a run without one is refused
grep -q "\"evalSeed\": \"$(sed -n 's/.*"eval_seed": "\([0-9a-f]*\)".*/\1/p' "$T/cartpole/summary.json")\"" "$T/wo/config.js"
ok $? "config.js plays from summary.json's eval_seed"
# a game's value scale reaches the generated header as a number or not at all
cp "$T/c4/config.cfg" "$T/c4/summary.json" "$bad/"
sed -i 's/^  value_scale = .*;$/  value_scale = 1e400;/' "$bad/config.cfg"
expect_rc 1 "web_options.py of a game run whose value_scale is not finite" -- python3 \
  "$SRC/examples/web/host/web_options.py" "$bad/config.cfg" "$T/wo"
contains "$T/err" "algo.value_scale '1e400' is not a positive number" "names the key and its value"
cp "$T/cartpole/config.cfg" "$T/cartpole/summary.json" "$bad/"
rm "$bad/summary.json"
expect_rc 1 "web_options.py of a run without summary.json" -- python3 "$SRC/examples/web/host/web_options.py" \
  "$bad/config.cfg" "$T/wo"
contains "$T/err" "gives no eval_seed" "says so"
cp "$T/cartpole/summary.json" "$bad/"
sed -i 's/"seats": 0,/"seats": "2",/' "$bad/summary.json"
expect_rc 1 "web_options.py of a summary.json whose seats is a string" -- python3 \
  "$SRC/examples/web/host/web_options.py" "$bad/config.cfg" "$T/wo"
contains "$T/err" "seats '2' is not a count of seats" "names the value"
expect_rc 1 "build.sh with a build tree that has no meson-info" -- env BUILD="$T/nowhere" RLHOST="$T/rlhost" \
  "$SRC/examples/web/build.sh" "$T/catch" "$T/pages/nowhere"
contains "$T/err" "meson-info/intro-targets.json" "names what it could not read"
echo "1..$n"
[ $failed = 0 ]
