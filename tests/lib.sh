# Shared by the shell tests (sourced after T, the scratch directory, is set):
# TAP output and the small readers of run outputs they all use.
n=0 failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
# expect_rc WANT DESC -- CMD...: runs CMD, keeps stdout/stderr in $T/out $T/err
expect_rc() {
  local want=$1 desc=$2; shift 3
  "$@" >"$T/out" 2>"$T/err"; local rc=$?
  [ "$rc" = "$want" ]; ok $? "$desc (exit $rc, want $want)"
  [ "$rc" = "$want" ] || sed 's/^/#   /' "$T/err" | head -5
}
contains() { grep -qF -- "$2" "$1"; ok $? "$3"; grep -qF -- "$2" "$1" || { echo "#   '$2' not in:"; sed 's/^/#   /' "$1" | head -5; }; }
# The learning columns of a metrics.csv: everything but the timings.
learn_cols() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) keep[i] = $i !~ /^(wall_s|sps|cpu_util|env_frac|act_frac|update_frac)$/ }
           { out = ""; for (i = 1; i <= NF; i++) if (keep[i]) out = out "," $i; print out }' "$1"
}
json_num() { sed -n "s/^ *\"$2\": \\([-0-9.e+]*\\).*/\\1/p" "$1"; }
# A safetensors file's JSON header and its data, read with od, dd and tail.
header() { local len; len=$(od -An -t u8 -N 8 "$1" | tr -d ' '); dd if="$1" bs=1 skip=8 count="$len" 2>/dev/null; }
data_of() { local len; len=$(od -An -t u8 -N 8 "$1" | tr -d ' '); tail -c +$((9 + len)) "$1"; }
# resign FILE: a checkpoint edited on purpose passes its CRC-32 check again
# (tests/resign.py), so what refuses it is the readers' other checks.
resign() { python3 "$(dirname "${BASH_SOURCE[0]}")/resign.py" "$1"; }
# edit_meta SRC DST PYTHON: DST is checkpoint SRC with its metadata strings
# (the dict `meta`) changed by the Python statements PYTHON, the header
# rewritten and padded around them; the tensors' bytes are SRC's.
edit_meta() {
  python3 - "$@" <<'EOP'
import json, struct, sys
raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
h = json.loads(raw[8:8 + n])
meta = h["__metadata__"]
exec(sys.argv[3])
hb = json.dumps(h).encode()
hb += b" " * (-len(hb) % 8)
open(sys.argv[2], "wb").write(struct.pack("<Q", len(hb)) + hb + raw[8 + n:])
EOP
}
# same_run NAME A B: the runs in A and B learned the same (metrics and
# episodes but the timings, final evaluation, every tensor of the final checkpoint).
same_run() {
  learn_cols "$2/metrics.csv" > "$T/ma"; learn_cols "$3/metrics.csv" > "$T/mb"
  cmp -s "$T/ma" "$T/mb"; ok $? "$1: metrics identical"
  if [ -e "$2/evals.csv" ] || [ -e "$3/evals.csv" ]; then
    learn_cols "$2/evals.csv" > "$T/ea" 2>/dev/null; learn_cols "$3/evals.csv" > "$T/eb" 2>/dev/null
    cmp -s "$T/ea" "$T/eb"; ok $? "$1: evals.csv identical"
  fi
  if [ -e "$2/episodes.csv" ] || [ -e "$3/episodes.csv" ]; then
    learn_cols "$2/episodes.csv" > "$T/pa" 2>/dev/null; learn_cols "$3/episodes.csv" > "$T/pb" 2>/dev/null
    cmp -s "$T/pa" "$T/pb"; ok $? "$1: episodes.csv identical"
  fi
  grep '"eval_' "$2/summary.json" > "$T/sa"; grep '"eval_' "$3/summary.json" > "$T/sb"
  cmp -s "$T/sa" "$T/sb"; ok $? "$1: final evaluation identical"
  data_of "$2/checkpoint.safetensors" > "$T/da"; data_of "$3/checkpoint.safetensors" > "$T/db"
  cmp -s "$T/da" "$T/db"; ok $? "$1: final checkpoint tensors identical"
}
# The suite's Python (.venv, made by scripts/pydeps.sh) with MODULE, or a
# failing plan saying how to get it.
need_python() { # SRC MODULE
  PY="$1/.venv/bin/python"
  "$PY" -c "import $2" 2>/dev/null && return 0
  echo "not ok 1 - Python module $2 is missing: run scripts/pydeps.sh (scripts/test.sh does)"
  echo "1..1"
  exit 1
}
# py_tap PREFIX CMD...: runs a Python TAP check, its lines renumbered into ours;
# a script that exits non-zero (a traceback half-way) is a failure of its own.
py_tap() {
  local prefix=$1 line rc; shift
  "$@" > "$T/pytap" 2>&1
  rc=$?
  while read -r line; do
    case "$line" in
      "ok "*) ok 0 "$prefix${line#* - }" ;;
      "not ok "*) ok 1 "$prefix${line#* - }" ;;
      "1.."*) ;;
      *) echo "# $line" ;;
    esac
  done < "$T/pytap"
  [ $rc = 0 ] || [ "$(grep -c '^not ok' "$T/pytap")" != 0 ] || ok 1 "$prefix$(basename "${2:-$1}") ran to its end (exit $rc)"
}
meta_step() { header "$1" | grep -o '"rlhost.step":"[0-9]*"' | grep -o '[0-9]*'; }
# sanitizer_env LIB: when LIB (librlhost) is built with ASan, exports what a
# Python that loads it needs: Python itself is not instrumented, so the
# runtimes go first and leaks (Python's own, at exit) are not reported.  A
# small quarantine: gym_lifecycle.py bounds the memory of 300 envs made and
# dropped, which ASan's default 256 MB of held-back frees would hide.
sanitizer_env() {
  local asan ubsan
  asan=$(ldd "$1" 2>/dev/null | awk '/libasan/ { print $3 }') ubsan=$(ldd "$1" 2>/dev/null | awk '/libubsan/ { print $3 }')
  if [ -n "$asan" ]; then
    export LD_PRELOAD="$asan${ubsan:+ $ubsan}"
    export ASAN_OPTIONS="detect_leaks=0:quarantine_size_mb=4${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  fi
}

# sanitizer_wrap LIB EXE OUT: writes OUT, a script that runs EXE with what
# a Python loading LIB needs when LIB is built with ASan (as sanitizer_env
# does for a whole script), or plain EXE otherwise.  For `rlhost export`
# in a test whose other programs (cc, a browser) should run without them.
sanitizer_wrap() {
  {
    echo '#!/bin/sh'
    (unset LD_PRELOAD; sanitizer_env "$1"
     [ -z "${LD_PRELOAD:-}" ] || echo "export LD_PRELOAD='$LD_PRELOAD' ASAN_OPTIONS='$ASAN_OPTIONS'")
    echo "exec '$2' \"\$@\""
  } > "$3"
  chmod +x "$3"
}

# exact NAME CONFIG CHECKPOINT_INTERVAL ARGS...: a run interrupted at an
# arbitrary step and resumed ends bit-identical to the uninterrupted run
# (learning columns of the CSVs, the evaluation, and every tensor of the
# final checkpoint): scripts/resume-check.sh, the check the SDK installs for
# plugin authors, its runs kept as $T/NAME-a and $T/NAME-b.  Needs RLHOST,
# SRC and T.
exact() {
  local name=$1 cfg=$2 every=$3; shift 3
  py_tap "$name: " "$SRC/scripts/resume-check.sh" --rlhost "$RLHOST" --every "$every" --keep "$T/$name" "$cfg" "$@"
}

# kill_loop DIR WHOLE_MS ROUNDS KILLED FRESH_ARGS... -- RESUME_ARGS...: a
# run in DIR killed with SIGKILL at random moments until it is done.  Each
# round (ROUNDS at most) resumes it where a checkpoint is (rlhost run
# --resume DIR RESUME_ARGS...) or starts it afresh (rlhost run FRESH_ARGS...
# --out DIR --force); the first KILLED rounds are killed after a twentieth
# of WHOLE_MS (the uninterrupted run's time) plus up to a fifth of it, the
# rest run on, and a last resume ends a run still unfinished.  Sets kills
# and resumes; a round's errors become TAP comments.  Needs RLHOST and T.
kill_loop() {
  local dir=$1 whole_ms=$2 rounds=$3 killed=$4 fresh=() resume=() i pid ms; shift 4
  while [ $# -gt 0 ] && [ "$1" != -- ]; do fresh+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  resume=("$@")
  kills=0 resumes=0
  for i in $(seq "$rounds"); do
    grep -q '"status": "done"' "$dir/summary.json" 2>/dev/null && break
    if [ -e "$dir/checkpoint.safetensors" ] || [ -e "$dir/checkpoint.prev.safetensors" ]; then
      "$RLHOST" run --resume "$dir" "${resume[@]}" >/dev/null 2>"$T/kerr" & resumes=$((resumes + 1))
    else
      "$RLHOST" run "${fresh[@]}" --out "$dir" --force >/dev/null 2>"$T/kerr" &
    fi
    pid=$!
    ms=$(( whole_ms / 20 + RANDOM % (whole_ms / 5 + 1) ))
    sleep "$((ms / 1000)).$(printf %03d $((ms % 1000)))"
    [ "$i" -gt "$killed" ] || { kill -9 $pid 2>/dev/null && kills=$((kills + 1)); }
    wait $pid 2>/dev/null
    if grep -q "error" "$T/kerr"; then sed 's/^/#   /' "$T/kerr"; fi
  done
  echo "# $kills kills, $resumes resumes"
  grep -q '"status": "done"' "$dir/summary.json" 2>/dev/null || "$RLHOST" run --resume "$dir" "${resume[@]}" >/dev/null 2>"$T/kerr"
}
