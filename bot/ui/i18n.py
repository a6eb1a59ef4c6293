"""Russian and English through standard gettext catalogs: the bot's (``bot/locales/<lang>/LC_MESSAGES/
messages.po``) and each game's own (``games/<id>/locale/<lang>.po``, the words only that game uses, so a
game is one folder). ``GameWords(game).t`` looks in the game's catalog, then in the bot's.

The .po files are read with Babel at start, so there is no compile step to forget; msgids are
the English texts, and a missing translation falls back to English.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable
from functools import cache
from importlib import resources

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from bot.resources import package_path

LANGS = ("en", "ru")
LOCALES = package_path("locales")


@cache
def _po(lang: str, domain: str = "") -> Catalog | None:
    """The bot's catalog for ``lang``, or the game ``domain``'s (``games/<domain>/locale/<lang>.po``)."""
    if domain:
        found = resources.files(f"games.{domain}") / "locale" / f"{lang}.po"
        if not found.is_file():
            return None
        with found.open("rb") as fh:
            return read_po(fh, locale=lang)
    path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return None
    with path.open("rb") as fh:
        return read_po(fh, locale=lang)


@cache
def catalog(lang: str, domain: str = "") -> dict[str, str]:
    cat = _po(lang, domain)
    if cat is None:
        return {}
    return {str(m.id): str(m.string) for m in cat
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


@cache
def plural_catalog(lang: str, domain: str = "") -> tuple[dict[str, tuple[str, ...]], Callable[[int], int]]:
    """Plural entries (``msgid`` → every form) and the language's rule from its Plural-Forms header."""
    cat = _po(lang, domain)
    if cat is None:
        return {}, lambda n: int(n != 1)
    forms = {str(m.id[0]): tuple(str(s) for s in m.string) for m in cat
             if isinstance(m.id, tuple | list) and isinstance(m.string, tuple | list) and all(m.string)
             and not m.fuzzy}
    return forms, gettext.c2py(cat.plural_expr)


def t(lang: str, msgid: str, /, **values: object) -> str:
    """The text of ``msgid`` in ``lang``, with ``{name}`` placeholders filled in."""
    text = catalog(lang).get(msgid, msgid) if lang != "en" else msgid
    return text.format(**values) if values else text


def nt(lang: str, singular: str, plural: str, n: int, /, **values: object) -> str:
    """gettext's ngettext: the form of ``singular``/``plural`` for the number ``n`` ("1 card", "5 карт");
    ``{n}`` and the other placeholders are filled in."""
    forms, rule = plural_catalog(lang) if lang != "en" else ({}, None)
    found = forms.get(singular)
    if found and rule is not None:
        text = found[min(rule(n), len(found) - 1)]
    else:
        text = singular if n == 1 else plural
    return text.format(n=n, **values)


class GameWords:
    """``t``/``nt`` for one game's words: its own catalog first, then the bot's. A game's present.py
    binds them once (``t, nt = GameWords(GAME).pair()``) so the extractor finds its msgids."""

    def __init__(self, game: str) -> None:
        self.game = game

    def t(self, lang: str, msgid: str, /, **values: object) -> str:
        if lang == "en":
            text = msgid
        else:
            text = catalog(lang, self.game).get(msgid) or catalog(lang).get(msgid, msgid)
        return text.format(**values) if values else text

    def nt(self, lang: str, singular: str, plural: str, n: int, /, **values: object) -> str:
        if lang != "en":
            forms, rule = plural_catalog(lang, self.game)
            found = forms.get(singular)
            if found:
                return found[min(rule(n), len(found) - 1)].format(n=n, **values)
        return nt(lang, singular, plural, n, **values)

    def pair(self) -> tuple[Callable[..., str], Callable[..., str]]:
        return self.t, self.nt


def lang_of(language_code: str | None) -> str:
    """Telegram's language_code → one of LANGS (Russian for ru, uk and be speakers; else English)."""
    code = (language_code or "").lower()
    return "ru" if code.startswith(("ru", "uk", "be")) else "en"
