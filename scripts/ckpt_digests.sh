#!/usr/bin/env bash
# Runs every shipped config for a short budget with the rlhost of BUILD and
# prints, per config, the digest of each checkpoint tensor
# (scripts/ckpt_digest.py).  Run it before and after a change that must
# not change results, with two builds, and diff the outputs:
#   scripts/ckpt_digests.sh /tmp/before/build > before.txt
#   scripts/ckpt_digests.sh build > after.txt && diff before.txt after.txt
# Usage: scripts/ckpt_digests.sh BUILD [STEPS] [EXTRA --set ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "$1" && pwd); shift
steps=${1:-20000}; shift || true
py=python3; [ -x .venv/bin/python ] && py=.venv/bin/python
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for cfg in configs/*.cfg; do
  name=$(basename "$cfg" .cfg)
  echo "== $name"
  if RLHOST_PLUGIN_PATH= "$build/core/rlhost" run "$cfg" --out "$tmp/$name" --set run.steps="$steps" \
       --set run.eval_episodes=2 "$@" >"$tmp/$name.log" 2>&1; then
    "$py" scripts/ckpt_digest.py "$tmp/$name/checkpoint.safetensors"
  else
    echo "failed: $(tail -n 1 "$tmp/$name.log")"
  fi
done
