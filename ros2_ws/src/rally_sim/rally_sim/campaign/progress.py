"""A progress bar on stderr: runs done, passed, failed, the estimated time left."""

import sys
import time
from typing import TextIO

WIDTH = 30


class Progress:
    """Counts finished runs; redraws one line on a terminal, prints a line per run elsewhere."""

    def __init__(self, total: int, passed: int = 0, failed: int = 0, stream: TextIO = None):
        """Start counting `total` runs; passed and failed: those finished before (a resume)."""
        self.total = total
        self.done = self.before = passed + failed
        self.passed, self.failed = passed, failed
        self.started = time.monotonic()
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()

    def add(self, passed: bool, run_id: str = '') -> None:
        """Count a finished run and show the state."""
        self.done += 1
        self.passed += bool(passed)
        self.failed += not passed
        self.stream.write(('\r' if self.live else '') + self.line(run_id)
                          + ('' if self.live else '\n'))
        self.stream.flush()

    def line(self, run_id: str = '') -> str:
        """Return the bar, the counts and the ETA."""
        share = self.done / self.total if self.total else 1.0
        bar = '#' * round(WIDTH * share) + '.' * (WIDTH - round(WIDTH * share))
        here = self.done - self.before
        elapsed = time.monotonic() - self.started
        left = (self.total - self.done) * elapsed / here if here else float('nan')
        eta = f'{left:.0f} s' if left == left else '-'
        last = f'  (run {run_id})' if run_id and not self.live else ''
        return (f'[{bar}] {self.done}/{self.total}  passed {self.passed}  failed '
                f'{self.failed}  ETA {eta}{last}')

    def close(self) -> None:
        """End the live line."""
        if self.live:
            self.stream.write('\n')
            self.stream.flush()
