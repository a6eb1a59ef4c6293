"""A CPU sampling profiler for the bot's process: SIGPROF every millisecond of the process's CPU time
records the main thread's Python stack. cProfile's cost is per call and inflates call-heavy code (pydantic,
aiohttp) several times over; a sample costs the same wherever it lands, so the shares are honest.

Output: "collapsed stacks" (one line per distinct stack, frames outermost first, ``;``-separated, then the
count), the input of flame graph tools; ``python bench/sampler.py FILE`` prints the top functions.
"""

from __future__ import annotations

import signal
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any


class Sampler:
    def __init__(self, interval: float = 0.001) -> None:
        self.interval = interval
        self.stacks: Counter[tuple[str, ...]] = Counter()

    def _sample(self, signum: int, frame: FrameType | None) -> None:
        names: list[str] = []
        while frame is not None:
            code = frame.f_code
            names.append(f"{_short(code.co_filename)}:{code.co_name}")
            frame = frame.f_back
        self.stacks[tuple(reversed(names))] += 1

    def start(self) -> None:
        signal.signal(signal.SIGPROF, self._sample)
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)

    def stop(self, path: str | Path) -> None:
        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)
        with open(path, "w") as f:
            for stack, n in self.stacks.most_common():
                f.write(f"{';'.join(stack)} {n}\n")


def _short(filename: str) -> str:
    for marker in ("site-packages/", "python3.11/", "/bot14/", "/kozyr/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def top(path: str, n: int = 60) -> None:
    """Inclusive (anywhere in the stack) and leaf (where the CPU was) shares per function."""
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    total = 0
    for line in Path(path).read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        k = int(count)
        frames = stack.split(";")
        total += k
        leaf[frames[-1]] += k
        for name in set(frames):
            inclusive[name] += k
    print(f"{total} samples")
    for title, counter in (("inclusive", inclusive), ("leaf", leaf)):
        print(f"-- {title}")
        for name, k in counter.most_common(n):
            print(f"{100 * k / total:6.1f}%  {name}")


if __name__ == "__main__":
    args: Any = sys.argv[1:]
    top(args[0], int(args[1]) if len(args) > 1 else 60)
