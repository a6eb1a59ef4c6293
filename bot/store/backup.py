"""``python -m bot backup PATH``: a consistent copy of the live database with SQLite's online backup API.

Why not ``cp``: in WAL mode the latest commits live in ``-wal`` until a checkpoint, so copying the
``.sqlite3`` file alone can give an old or empty database. The backup API copies pages under a
read transaction: safe while the bot runs (it never blocks the bot's writes for long, since it
copies in steps), and the result is one self-contained file (journal_mode DELETE), checked
with ``PRAGMA integrity_check`` before it is moved into place.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path


class BackupError(RuntimeError):
    pass


def backup(source: Path, target: Path, pages_per_step: int = 256) -> int:
    """Copy ``source`` into ``target`` (written to a temporary name, then renamed); returns its size."""
    if not source.exists():
        raise BackupError(f"no database at {source}")
    if target.is_dir():
        target = target / source.name
    if target.resolve() == source.resolve():
        raise BackupError("the backup would overwrite the live database; choose another path")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    src = sqlite3.connect(source, timeout=30.0)
    try:
        dst = sqlite3.connect(partial, isolation_level=None)
        try:
            src.backup(dst, pages=pages_per_step, sleep=0.005)
            dst.execute("PRAGMA journal_mode=DELETE")
            status = dst.execute("PRAGMA integrity_check").fetchone()[0]
            if status != "ok":
                raise BackupError(f"the copy failed its integrity check: {status}")
        finally:
            dst.close()
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    finally:
        src.close()
    os.replace(partial, target)
    return target.stat().st_size
