#!/usr/bin/env bash
# Input that used to hang, grow without bound or give a wrong answer: an
# @include structure that multiplies, includes of kernel files, @include in
# a checkpoint's config, wide integers in --set lists, a checkpoint where a
# config goes, paths in --json, very long paths in errors, infinite returns
# in plot.  (TAP)
# Usage: input_hostile.sh RLHOST SOURCE_ROOT
set -u
RLHOST=$1 SRC=$2
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
CFG="$SRC/configs/cartpole_dqn.cfg"
PY=python3; command -v python3 >/dev/null || PY="$SRC/.venv/bin/python"
base='run: { steps = 100; };\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "random"; };\n'

# Includes have a budget and read only plain files.
for k in $(seq 0 7); do printf '@include "m%d.cfg"\n@include "m%d.cfg"\n' $((k + 1)) $((k + 1)) > "$T/m$k.cfg"; done
printf '# the end\n' > "$T/m8.cfg"
printf "$base"'@include "m0.cfg"\n' > "$T/multiply.cfg"
expect_rc 2 "includes that multiply (2^8 files) are refused" -- timeout 20 "$RLHOST" check "$T/multiply.cfg"
contains "$T/err" "reads more than 64 files in all" "with the budget named"
printf "$base"'@include "self.cfg"\n' > "$T/self.cfg"
expect_rc 2 "a config that includes itself" -- timeout 20 "$RLHOST" check "$T/self.cfg"
contains "$T/err" "@include nested deeper than 10 files" "stops at the depth limit"
printf "$base"'@include "/proc/self/status"\n' > "$T/proc.cfg"
expect_rc 2 "an include of a /proc file" -- timeout 20 "$RLHOST" check "$T/proc.cfg"
contains "$T/err" 'proc.cfg:4: @include "/proc/self/status": a kernel interface file, not a config' "is refused"
expect_rc 2 "a /proc file as the config" -- timeout 20 "$RLHOST" check /proc/self/status
contains "$T/err" "/proc/self/status: a kernel interface file, not a config" "is refused"
printf 'algo: { plugin = "random"; };\n' > "$T/part.cfg"
printf 'run: { steps = 100; };\n@include "part.cfg"\nenv: { plugin = "cartpole";\n  colour = 3; };\n' > "$T/lines.cfg"
expect_rc 2 "an unknown key after an include" -- "$RLHOST" check "$T/lines.cfg"
contains "$T/err" "lines.cfg:4: env.colour: unknown key" "is named at its own file's line"
printf 'algo: { plugin = "random";\n  bogus = 1; };\n' > "$T/part.cfg"
printf 'run: { steps = 100; };\nenv: { plugin = "cartpole"; };\n@include "part.cfg"\n' > "$T/lines.cfg"
expect_rc 2 "an unknown key inside an include" -- "$RLHOST" check "$T/lines.cfg"
contains "$T/err" "part.cfg:2: algo.bogus: unknown key" "is named at the included file's line"
printf "$base"'@include "part.cfg"\n' > "$T/ok.cfg"; printf '# nothing\n' > "$T/part.cfg"
expect_rc 0 "a plain include still works" -- "$RLHOST" check "$T/ok.cfg"

# --set lists get the wide-integer check a file's lists get.
expect_rc 2 "--set of a list with a 64-bit integer" -- "$RLHOST" check "$CFG" --set 'algo.hidden=[64, 10000000000]'
contains "$T/err" "integer 10000000000 does not fit in 32 bits" "is refused, not truncated"

# A checkpoint where a config goes.
D="$T/run"
expect_rc 0 "a run" -- "$RLHOST" run "$CFG" --set run.quiet=true --set run.steps=1000 --set run.log_interval=200 --out "$D"
expect_rc 0 "eval of a bare checkpoint uses the config it holds" -- "$RLHOST" eval "$D/checkpoint.safetensors" --episodes 2
contains "$T/out" "dqn on cartpole, checkpoint $D/checkpoint.safetensors (step 1000)" "and evaluates that checkpoint"
expect_rc 2 "run of a checkpoint" -- "$RLHOST" run "$D/checkpoint.safetensors"
contains "$T/err" "is a checkpoint, not a config: 'rlhost run --resume OUT_DIR' continues its run" "points at --resume and eval"
"$PY" - "$D/checkpoint.safetensors" "$T/include.safetensors" <<'PYEOF'
import json, struct, sys
raw = open(sys.argv[1], 'rb').read()
n = struct.unpack('<Q', raw[:8])[0]
head = json.loads(raw[8:8 + n])
head['__metadata__']['rlhost.config'] = '@include "/etc/hostname"\n' + head['__metadata__']['rlhost.config']
h = json.dumps(head).encode()
h += b' ' * (-len(h) % 8)
open(sys.argv[2], 'wb').write(struct.pack('<Q', len(h)) + h + raw[8 + n:])
PYEOF
expect_rc 2 "a checkpoint whose config has an @include" -- "$RLHOST" eval "$T/include.safetensors"
contains "$T/err" "not followed in a config that does not come from a file" "the include is not followed"

# Paths in --json are escaped.
J="$T/we\"ird\\dir"
expect_rc 0 "a run in a directory named with a quote and a backslash" -- "$RLHOST" run "$CFG" --set run.quiet=true \
  --set run.steps=500 --out "$J"
expect_rc 0 "eval --json" -- "$RLHOST" eval "$J" --episodes 1 --json
"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["checkpoint"] == sys.argv[2], d' "$T/out" \
  "$J/checkpoint.safetensors"
ok $? "its output is JSON and holds the path as it is"

# A very long path keeps the reason in the message.
L="$T"; for _ in $(seq 18); do L="$L/$(printf 'x%.0s' $(seq 200))"; done
mkdir -p "$L" && touch "$L/file"
expect_rc 1 "a run directory under a file, at a 3,800-byte path" -- "$RLHOST" run "$CFG" --set run.quiet=true \
  --set run.steps=100 --out "$L/file/run"
contains "$T/err" "/file/run: Not a directory" "the message ends with the reason"

# plot of infinite or huge returns draws gaps, not NaN coordinates.
"$PY" - "$D/metrics.csv" <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
i = rows[0].index('return_mean')
for r, v in zip(rows[1:], ['inf', '-1e308', 'nan', '1e308']):
    r[i] = v
csv.writer(open(sys.argv[1], 'w')).writerows(rows)
PYEOF
expect_rc 0 "plot of a run with infinite and huge returns" -- "$RLHOST" plot "$D" "$J" -o "$T/curve.svg"
grep -qi 'nan\|inf' "$T/curve.svg"; [ $? != 0 ]; ok $? "no NaN or infinite coordinate in the SVG"

# strings go into every checkpoint's JSON header, which must be UTF-8: a
# byte that breaks UTF-8 is refused at check, naming the key (the config
# fuzzer found a run whose checkpoint its own reader then refused)
printf 'run: { steps = 100; out_dir = "r\xffx"; };\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "random"; };\n' \
  > "$T/utf8.cfg"
expect_rc 2 "a config string that is not UTF-8" -- "$RLHOST" check "$T/utf8.cfg"
contains "$T/err" "run.out_dir: the string is not UTF-8 text" "naming the key"
expect_rc 2 "the same through --set" -- "$RLHOST" check "$T/ok.cfg" --set "run.out_dir=\"a$(printf '\xc3')\""
printf 'run: { steps = 100; out_dir = "%s"; };\nenv: { plugin = "cartpole"; };\nalgo: { plugin = "random"; };\n' \
  "$T/r\xc3\xa9sum\xc3\xa9" > "$T/utf8ok.cfg"
expect_rc 0 "UTF-8 text (an accented directory name) trains" -- "$RLHOST" run "$T/utf8ok.cfg"
expect_rc 0 "and its checkpoint reads back" -- "$RLHOST" eval "$T/résumé" --episodes 1

echo "1..$n"
[ $failed = 0 ]
