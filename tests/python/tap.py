"""TAP for the Python test scripts: numbered test lines, skips with their
reason, and at the end the plan and the exit status."""

import sys

_n = _failed = 0


def ok(cond, what):
    global _n, _failed
    _n += 1
    print(f"{'ok' if cond else 'not ok'} {_n} - {what}", flush=True)
    _failed += not cond
    return cond


def skip(why):
    global _n
    _n += 1
    print(f"ok {_n} - # SKIP {why}", flush=True)


def done():
    print(f"1..{_n}")
    sys.exit(1 if _failed else 0)
