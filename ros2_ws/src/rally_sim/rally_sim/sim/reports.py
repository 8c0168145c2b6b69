"""What the simulator tells its user: counted events and rate-limited warnings."""

import math
import time
from typing import Dict

WARN_PERIOD_S = 2.0
"""A warning of one kind is logged at most this often [wall s]; the count keeps every one."""
COUNTERS = ('non_finite', 'clamped', 'overrun_steps', 'wrong_stamp', 'sync_timeouts', 'refused',
            'unknown_space')


def non_finite(fields: dict) -> str:
    """Return the fields (name: number or sequence) that are not finite, as 'name = value'."""
    found = []
    for name, value in fields.items():
        if isinstance(value, (int, float)):
            if not math.isfinite(value):
                found.append(f'{name} = {float(value)!r}')
        else:
            found += [f'{name}[{i}] = {float(v)!r}' for i, v in enumerate(value)
                      if not math.isfinite(v)]
    return ', '.join(found)


class Reports:
    """A logger with counters of what went wrong and warnings at most every 2 s."""

    def __init__(self, logger):
        """Report through `logger` (a logging.Logger or an rclpy logger: warning, info)."""
        self.logger = logger
        self.counters: Dict[str, int] = dict.fromkeys(COUNTERS, 0)
        self._last_warn: Dict[str, float] = {}
        self._dropped: Dict[str, int] = {}

    def warn(self, key: str, text: str) -> None:
        """Log a warning at most once per WARN_PERIOD_S for each key."""
        now = time.monotonic()
        if now - self._last_warn.get(key, -math.inf) >= WARN_PERIOD_S:
            self._last_warn[key] = now
            self.logger.warning(text)

    def count(self, key: str, by: int = 1) -> int:
        """Add to a counter; return its new value."""
        self.counters[key] += by
        return self.counters[key]

    def drop(self, topic: str, fields: dict) -> None:
        """
        Count and report a message dropped for a non-finite field.

        Warned per topic: a bad command on one topic does not hide, for
        WARN_PERIOD_S, the first bad command on another (topics are taken in
        no fixed order between them).
        """
        self.count('non_finite')
        dropped = self._dropped[topic] = self._dropped.get(topic, 0) + 1
        self.warn(f'non_finite {topic}', f'dropped a message on {topic} with a non-finite '
                  f'value ({dropped} dropped so far): {non_finite(fields)}')


class CarReports(Reports):
    """
    One car's reports in a session of named cars: the session's counters, warnings naming it.

    Each warning starts "car 'NAME': " and is rate-limited for this car
    alone, so one car's warnings never hide another's.
    """

    def __init__(self, shared: Reports, name: str):
        """Report as `shared` does, for the car called `name`."""
        super().__init__(_Named(shared.logger, f"car '{name}': "))
        self.counters = shared.counters


class _Named:
    """A logger whose messages start with a prefix."""

    def __init__(self, logger, prefix: str):
        self._logger, self._prefix = logger, prefix

    def warning(self, text: str) -> None:
        """Log a warning, prefixed."""
        self._logger.warning(self._prefix + text)

    def info(self, text: str) -> None:
        """Log information, prefixed."""
        self._logger.info(self._prefix + text)
