#!/usr/bin/env bash
# Serves a built page (build.sh OUT_DIR) on http://127.0.0.1:PORT/ with
# Python's http.server (the browser fetches the .wasm, which file:// URLs
# do not allow).  Usage: examples/web/serve.sh OUT_DIR [PORT]   (default 8000)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: examples/web/serve.sh OUT_DIR [PORT]" >&2; exit 2; }
echo "serve.sh: open http://127.0.0.1:${2:-8000}/" >&2
exec python3 -m http.server --bind 127.0.0.1 --directory "$1" "${2:-8000}"
