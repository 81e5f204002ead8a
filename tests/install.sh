#!/usr/bin/env bash
# meson install into a fresh prefix: the installed rlhost finds the installed
# plugins with no environment variables, and a plugin built out of tree with
# `pkg-config rlhost-plugin` loads and runs.  (TAP)
# Usage: install.sh SOURCE_ROOT
set -u
SRC=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0; failed=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed + 1)); fi; }
unset RLHOST_PLUGIN_PATH

meson setup "$T/build" "$SRC" --prefix="$T/prefix" >"$T/log" 2>&1 && ninja -C "$T/build" install >>"$T/log" 2>&1
ok $? "meson install into a fresh prefix" || { tail -20 "$T/log" | sed 's/^/#   /'; echo "1..$n"; exit 1; }
RL="$T/prefix/bin/rlhost"
pc=$(dirname "$(find "$T/prefix" -name rlhost-plugin.pc | head -1)")
[ -n "$pc" ]; ok $? "rlhost-plugin.pc installed"
export PKG_CONFIG_PATH="$pc"
plugindir=$(pkg-config --variable=plugindir rlhost-plugin)
[ -f "$plugindir/cartpole.so" ] && [ -f "$plugindir/random.so" ]; ok $? "plugins installed in plugindir ($plugindir)"
[ -f "$T/prefix/include/rlhost/plugin.h" ]; ok $? "plugin.h installed"
(cd / && "$RL" list) >"$T/list" 2>&1
grep -q "$plugindir/cartpole.so" "$T/list"; ok $? "installed rlhost finds installed plugins without env vars"
(cd "$T" && "$RL" run "$SRC/configs/cartpole_random.cfg" --out "$T/run" --set run.steps=2000 >/dev/null 2>&1)
ok $? "installed rlhost runs a config"

# Out of tree: copy the template, rename the plugin, build with pkg-config.
mkdir -p "$T/mine"
sed 's/"random", "1.0.0"/"my_random", "0.0.1"/' "$SRC/plugins/template/random.c" > "$T/mine/my_random.c"
cc -std=c11 -Wall -Wextra -shared -fPIC -fvisibility=hidden $(pkg-config --cflags rlhost-plugin) \
  "$T/mine/my_random.c" -o "$T/mine/my_random.so" $(pkg-config --libs rlhost-plugin) 2>"$T/cc"
ok $? "template builds out of tree with pkg-config rlhost-plugin" || sed 's/^/#   /' "$T/cc"
"$RL" info my_random --plugin-path "$T/mine" >"$T/info" 2>&1
grep -q "sticky" "$T/info"; ok $? "out-of-tree plugin documented by rlhost info"
"$RL" run "$SRC/configs/cartpole_random.cfg" --plugin-path "$T/mine" --set algo.plugin=my_random \
  --out "$T/run2" --set run.steps=2000 >/dev/null 2>&1
ok $? "out-of-tree plugin trains"
grep -q '"algo": "my_random"' "$T/run2/summary.json"; ok $? "summary names the out-of-tree plugin"
echo "1..$n"
[ $failed = 0 ]
