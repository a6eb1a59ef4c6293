"""Keep the gettext catalogs in step with the code: ``python tools/i18n.py`` rewrites
bot/locales/<lang>/LC_MESSAGES/messages.po with every msgid the code uses, keeping translations.

Msgids are found with Babel's extractor (calls ``t(lang, "...")``) plus the words the code
translates through variables (``EXTRA_MSGIDS``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def extra_msgids() -> list[str]:
    from bot.handlers.help import COMMANDS
    from bot.ui.words import PLACEMENT, VERBS

    return [*PLACEMENT, "even", *VERBS.values(), *(desc for _, desc in COMMANDS)]


KEYWORDS = {"t": (2,), "nt": (2, 3)}  # t(lang, msgid, ...), nt(lang, singular, plural, n, ...)


def _extracted() -> list[str | tuple[str, str]]:
    return [message for _file, _line, message, _comments, _context in extract_from_dir(
        ROOT / "bot", method_map=[("**.py", "python")], keywords=KEYWORDS)]


def msgids() -> list[str]:
    found: dict[str, None] = {}
    for message in _extracted():
        if isinstance(message, str) and message:
            found[message] = None
    for message in extra_msgids():
        found[message] = None
    return list(found)


def plural_msgids() -> list[tuple[str, str]]:
    """(singular, plural) of every ``nt(...)`` call."""
    found: dict[tuple[str, str], None] = {}
    for message in _extracted():
        if isinstance(message, tuple) and len(message) == 2 and all(message):
            found[(str(message[0]), str(message[1]))] = None
    return list(found)


def update(lang: str, seed: dict[str, str] | None = None) -> list[str]:
    """Rewrite one catalog; return the msgids that still lack a translation."""
    path = ROOT / "bot" / "locales" / lang / "LC_MESSAGES" / "messages.po"
    old: dict[str, str] = {}
    old_plurals: dict[str, tuple[str, ...]] = {}
    if path.exists():
        with path.open("rb") as fh:
            for m in read_po(fh):
                if isinstance(m.id, tuple | list):
                    old_plurals[str(m.id[0])] = tuple(str(s) for s in m.string)
                elif m.id:
                    old[str(m.id)] = str(m.string)
    old.update(seed or {})
    catalog = Catalog(locale=lang, project="kozyr", charset="utf-8")
    missing = []
    for msgid in msgids():
        string = msgid if lang == "en" else old.get(msgid, "")
        if not string:
            missing.append(msgid)
        catalog.add(msgid, string)
    for singular, plural in plural_msgids():
        forms = (singular, plural) if lang == "en" else old_plurals.get(singular, ("",) * catalog.num_plurals)
        if not all(forms):
            missing.append(singular)
        catalog.add((singular, plural), forms)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, width=120, omit_header=False, sort_output=False)
    return missing


if __name__ == "__main__":
    for language in ("en", "ru"):
        gaps = update(language)
        print(f"{language}: {len(gaps)} missing", *gaps, sep="\n  ")
