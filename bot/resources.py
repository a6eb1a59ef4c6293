"""Files shipped inside the package (fonts, rules texts), found with importlib.resources.

Why: the bot must run from its wheel, where nothing outside the package exists; a path built
from ``__file__`` into the source tree breaks there. Everything the bot reads lives under
``bot/assets/`` (fonts, rules texts), ``bot/locales/`` or ``bot/store/migrations/``, and is
listed in pyproject's package data.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from functools import cache
from importlib import resources
from pathlib import Path

_files = ExitStack()
atexit.register(_files.close)


@cache
def package_path(name: str) -> Path:
    """A folder shipped in the ``bot`` package (``assets``, ``locales``) as a real directory
    (Pillow opens fonts by path; Babel reads catalogs from files)."""
    return Path(_files.enter_context(resources.as_file(resources.files("bot") / name)))


def asset(*parts: str) -> Path:
    """The path of one shipped file, e.g. ``asset("fonts", "DejaVuSans.ttf")``."""
    return package_path("assets").joinpath(*parts)
