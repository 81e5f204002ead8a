#!/usr/bin/env python3
"""The ABI's history agrees with itself (TAP): the headers' per-field
"ABI 1.N" notes name no minor past RL_ABI_MINOR, docs/abi.md's table has a
row for every minor up to it and says the host speaks it, and a frozen
header fixture exists for every minor before it.
Usage: abi_history.py SOURCE_ROOT"""

import pathlib
import re
import sys

src = pathlib.Path(sys.argv[1])
n_test = n_failed = 0


def ok(cond, what):
    global n_test, n_failed
    n_test += 1
    n_failed += not cond
    print(f"{'ok' if cond else 'not ok'} {n_test} - {what}")


plugin_h = (src / "include/rlhost/plugin.h").read_text()
major = int(re.search(r"^#define RL_ABI_MAJOR (\d+)$", plugin_h, re.M).group(1))
minor = int(re.search(r"^#define RL_ABI_MINOR (\d+)$", plugin_h, re.M).group(1))
headers = [src / "include/rlhost" / h for h in ("plugin.h", "env.h", "algo.h")]
noted = {int(m) for h in headers for m in re.findall(rf"ABI {major}\.(\d+)", h.read_text())}
ok(noted and max(noted) == minor, f"the headers' notes go up to ABI {major}.{minor} and no further ({sorted(noted)})")
abi_md = (src / "docs/abi.md").read_text()
rows = {int(m) for m in re.findall(rf"^\| {major}\.(\d+) \|", abi_md, re.M)}
ok(rows == set(range(minor + 1)), f"docs/abi.md's table has one row per minor 0..{minor} ({sorted(rows)})")
ok(f"The host speaks {major}.{minor};" in abi_md, f"docs/abi.md says the host speaks {major}.{minor}")
frozen = {int(p.name.split("_")[-1]) for p in (src / "tests/fixtures").glob(f"abi_{major}_*")}
ok(frozen == set(range(minor)), f"a frozen header for every minor before {minor} ({sorted(frozen)})")
print(f"1..{n_test}")
sys.exit(1 if n_failed else 0)
