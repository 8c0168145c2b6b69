"""
ROS domain IDs for parallel runs: each held by one process at a time, on this machine.

A run's processes talk only within their domain (and only on loopback,
ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST), so runs in different domains
cannot hear each other even with identical topic names. A domain is taken by
an exclusive lock on a file of its own (flock): two campaigns, or a campaign
and a test run, on one machine never share one, and a process that dies
lets its domain go with it. The range avoids 0 (every ROS user's default),
1-100 (`./rally test` draws from there) and the user's own ROS_DOMAIN_ID.
"""

import fcntl
import os
import tempfile
from typing import Optional

DOMAINS = range(101, 233)
"""Fast DDS's default port mapping allows domain IDs up to 232."""


def lock_folder() -> str:
    """Return the folder of the domains' lock files (per user)."""
    return os.path.join(tempfile.gettempdir(), f'rally_sim-domains-{os.getuid()}')


class DomainLease:
    """A ROS domain ID this process holds until release() (or its end)."""

    def __init__(self, domain: int, fd: int):
        """Hold `domain` by the locked file descriptor `fd`."""
        self.domain = domain
        self._fd: Optional[int] = fd

    def release(self) -> None:
        """Let the domain go."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> 'DomainLease':
        """Hold the domain for a with-block."""
        return self

    def __exit__(self, *_) -> None:
        """Let the domain go at the block's end."""
        self.release()


def lease() -> DomainLease:
    """Return a free domain of DOMAINS, not the user's own (RuntimeError: none free)."""
    own = os.environ.get('ROS_DOMAIN_ID', '').strip()
    folder = lock_folder()
    os.makedirs(folder, exist_ok=True)
    for domain in DOMAINS:
        if str(domain) == own:
            continue
        fd = os.open(os.path.join(folder, f'{domain}.lock'), os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        return DomainLease(domain, fd)
    raise RuntimeError(f'no free ROS domain ID in {DOMAINS.start}-{DOMAINS.stop - 1}: '
                       'every one is held by a run on this machine')
