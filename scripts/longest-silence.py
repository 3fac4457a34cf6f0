#!/usr/bin/env python3
"""Copies stdin to stdout line by line and fails (exit 1) when any two lines,
from the first one on, came more than LIMIT seconds apart (default 10).

.ci/run pipes bench's output through it, so a run that goes silent in a log
(a pipe, not a terminal) fails CI: `bench ... 2>&1 | scripts/longest-silence.py 10`.
"""
import sys
import time

limit = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
last = None
longest = 0.0
for line in sys.stdin:
    now = time.monotonic()
    if last is not None:
        longest = max(longest, now - last)
    last = now
    sys.stdout.write(line)
    sys.stdout.flush()
print(f"longest silence between two lines: {longest:.1f} s (limit {limit:.0f} s)")
sys.exit(1 if longest > limit else 0)
