#!/usr/bin/env bash
# The web page (examples/web/): a briefly trained snake DQN is built into
# the page (its policy exported to C, the snake rules and the policy
# compiled to WebAssembly), served locally, and opened in Debian's headless
# Chromium, which plays episodes; the scores, returns and lengths the page
# reads back match `rlhost eval` of the same checkpoint on the same seeds,
# episode by episode.  Then the page plays in real time and shows its frame
# rate and the policy's time per action, and a screenshot is kept in
# BUILD_ROOT/web/.  (TAP)
# Usage: web.sh RLHOST SOURCE_ROOT BUILD_ROOT
set -u
RLHOST=$1 SRC=$2 BUILD=$3
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
K=12
expect_rc 0 "train a snake DQN" -- "$RLHOST" run "$SRC/configs/snake_dqn.cfg" --set run.steps=20000 \
  --set run.quiet=true --set run.eval_episodes=4 --set run.eval_interval=0 --out "$T/run"
RLHOST="$RLHOST" expect_rc 0 "examples/web/build.sh builds the page" -- "$SRC/examples/web/build.sh" "$T/run" "$T/page"
for f in index.html snake.js config.js snake.wasm; do
  [ -s "$T/page/$f" ]; ok $? "the page has $f"
done
# a server on a free port (the port comes back in a file); /hold?ms=N
# answers after N ms, which keeps a page that asks for it loading that long
python3 - "$T/page" "$T/port" > "$T/http.log" 2>&1 <<'PY' &
import functools, http.server, sys, time, urllib.parse


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        if u.path != "/hold":
            return super().do_GET()
        time.sleep(int(urllib.parse.parse_qs(u.query)["ms"][0]) / 1000)
        self.send_response(204)
        self.end_headers()


handler = functools.partial(Handler, directory=sys.argv[1])
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2], "w").write(str(srv.server_address[1]))
srv.serve_forever()
PY
SERVER=$!
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$T/port")/index.html"
CHROME=(chromium --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$T/profile")
# virtual time: the page's timers run as fast as the machine allows
timeout 120 "${CHROME[@]}" --virtual-time-budget=600000 --dump-dom "$URL?episodes=$K&fast" > "$T/dom.html" 2>"$T/chrome.err"
ok $? "headless Chromium plays $K episodes"
grep -o '<pre id="results">[^<]*' "$T/dom.html" | sed 's/<pre id="results">//' > "$T/page.json"
[ -s "$T/page.json" ]; ok $? "the page wrote its results"
if grep -q '<pre id="error">[^<]' "$T/dom.html"; then
  echo "# the page says:"
  grep -A3 'id="error"' "$T/dom.html" | sed 's/^/#   /'
fi
expect_rc 0 "rlhost eval of the same checkpoint" -- "$RLHOST" eval "$T/run" --episodes $K --json --trace "$T/eval.csv"
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
print(f"episodes: page {len(mine)}, eval {len(theirs)}; first difference: {bad[0] if bad else None};",
      f"mean score: page {page['mean_score']}, eval {ev['score_mean']}")
good = len(mine) == len(theirs) and not bad and abs(page["mean_score"] - ev["score_mean"]) < 1e-9
sys.exit(0 if good else 1)
PY
ok $? "every episode's length and return, and the mean score, match rlhost eval's ($(cat "$T/cmp"))"
# real time: one step per animation frame, the frame rate and the policy's
# speed on the page.  A copy of the page that also asks for /hold stays
# loading for 5 s while it plays, and Chromium dumps it once it loaded.
sed 's|</body>|<img src="hold?ms=5000" alt="" hidden></body>|' "$T/page/index.html" > "$T/page/live.html"
LIVE="${URL%index.html}live.html"
timeout 60 "${CHROME[@]}" --window-size=960,600 --dump-dom "$LIVE" > "$T/live.html" 2>>"$T/chrome.err"
fps=$(sed -n 's/.*<td class="v" id="fps">\([0-9.]*\)<.*/\1/p' "$T/live.html")
act=$(sed -n 's/.*<td class="v" id="act">\([0-9.]*\) µs<.*/\1/p' "$T/live.html")
awk -v f="${fps:-0}" 'BEGIN { exit !(f > 0) }'; ok $? "in real time the page shows its frame rate (${fps:-none} frames/s)"
awk -v a="${act:-0}" 'BEGIN { exit !(a > 0) }'; ok $? "and the policy's time per action (${act:-none} µs)"
mkdir -p "$BUILD/web"
timeout 60 "${CHROME[@]}" --window-size=960,600 --screenshot="$BUILD/web/snake.png" "$LIVE" \
  >/dev/null 2>>"$T/chrome.err"
[ "$(wc -c < "$BUILD/web/snake.png" 2>/dev/null || echo 0)" -gt 10000 ]
ok $? "a screenshot is kept: $BUILD/web/snake.png"
echo "1..$n"
[ $failed = 0 ]
