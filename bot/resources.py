"""Files shipped inside the packages (fonts, catalogs), found with importlib.resources.

Why: the bot must run from its wheel, where nothing outside the packages exists; a path built
from ``__file__`` into the source tree breaks there. Everything the bot reads lives under the
top-level ``assets/`` package (fonts), ``bot/locales/`` or ``bot/store/migrations/``, and is
listed in pyproject's package data.
"""

from __future__ import annotations

import atexit
from contextlib import ExitStack
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

_files = ExitStack()
atexit.register(_files.close)


def _as_path(folder: Traversable) -> Path:
    """A shipped folder as a real directory, kept until exit (Pillow opens fonts by path; Babel reads
    catalogs from files), even when the package is imported from a zip."""
    return Path(_files.enter_context(resources.as_file(folder)))


@cache
def package_path(name: str) -> Path:
    """A folder shipped in the ``bot`` package (``locales``) as a real directory."""
    return _as_path(resources.files("bot") / name)


@cache
def assets_path() -> Path:
    """The top-level ``assets`` package (fonts and art) as a real directory."""
    return _as_path(resources.files("assets"))


def asset(*parts: str) -> Path:
    """The path of one shipped asset, e.g. ``asset("fonts", "DejaVuSans.ttf")``."""
    return assets_path().joinpath(*parts)
