#!/usr/bin/env python3
"""Prints the C sources of the env plugin NAME, one a line, as the meson
build tree BUILD compiles them (meson-info/intro-targets.json, which meson
writes at setup): the page compiles the same files the plugin is made of.
Usage: plugin_sources.py BUILD NAME"""

import json
import os
import sys

build, name = sys.argv[1:3]
info = os.path.join(build, "meson-info", "intro-targets.json")
try:
    with open(info) as f:
        targets = json.load(f)
except (OSError, ValueError) as e:
    sys.exit(f"plugin_sources.py: {info}: {e} (build rlhost first: meson setup build)")
found = [t for t in targets if t.get("name") == name and t.get("type") == "shared module"]
if len(found) != 1:
    sys.exit(f"plugin_sources.py: the build tree {build} has no one plugin '{name}' ({len(found)} targets)")
sources = [s for ts in found[0].get("target_sources", []) for s in ts.get("sources", []) if s.endswith(".c")]
if not sources:
    sys.exit(f"plugin_sources.py: plugin '{name}' has no C sources in {info}")
print("\n".join(sources))
