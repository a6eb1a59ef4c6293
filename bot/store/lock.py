"""One bot process per database: an exclusive lock on ``<database>.lock``, held for the process's life.

Why: two processes on one database both poll Telegram (endless 409 Conflicts) and both send every
group message. ``flock`` is released by the kernel when the process dies, even by SIGKILL, so a
crash never leaves a stale lock behind; the file keeps the holder's pid for the error message.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class AlreadyRunning(RuntimeError):
    """Another process holds the database."""


class ProcessLock:
    def __init__(self, database: Path) -> None:
        self.path = database.with_name(database.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise AlreadyRunning(f"another Kozyr process (pid {holder}) is already running on this database "
                                 f"({self.path.with_suffix('')}); stop it first, or give this one another "
                                 "DATABASE_URL") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def probe(self) -> None:
        """Fail fast (before the slow imports) if another process holds the lock; holds nothing."""
        self.acquire()
        self.release()
