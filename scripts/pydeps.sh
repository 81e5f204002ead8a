#!/usr/bin/env bash
# The Python packages the test suite reads rlhost's outputs with (TensorBoard's
# own event reader), in a virtual environment of the project's: .venv/.
# Installs only what is missing; the suite's Python tests run .venv/bin/python.
set -euo pipefail
cd "$(dirname "$0")/.."
pkgs=(tensorboard numpy gymnasium moviepy)
[ -x .venv/bin/python ] || python3 -m venv .venv
missing=()
for p in "${pkgs[@]}"; do .venv/bin/python -c "import $p" 2>/dev/null || missing+=("$p"); done
[ ${#missing[@]} = 0 ] && exit 0
echo "rlhost: installing Python packages ${missing[*]} into .venv" >&2
.venv/bin/python -m pip install -q --disable-pip-version-check "${missing[@]}"
