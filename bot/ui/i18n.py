"""Russian and English through standard gettext catalogs (``bot/locales/<lang>/LC_MESSAGES/messages.po``).

The .po files are read with Babel at start, so there is no compile step to forget; msgids are
the English texts, and a missing translation falls back to English.
"""

from __future__ import annotations

from functools import cache

from babel.messages.pofile import read_po

from bot.resources import package_path

LANGS = ("en", "ru")
LOCALES = package_path("locales")


@cache
def catalog(lang: str) -> dict[str, str]:
    path = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if not path.exists():
        return {}
    with path.open("rb") as fh:
        cat = read_po(fh, locale=lang)
    return {str(m.id): str(m.string) for m in cat if m.id and m.string and not m.fuzzy}


def t(lang: str, msgid: str, /, **values: object) -> str:
    """The text of ``msgid`` in ``lang``, with ``{name}`` placeholders filled in."""
    text = catalog(lang).get(msgid, msgid) if lang != "en" else msgid
    return text.format(**values) if values else text


def lang_of(language_code: str | None) -> str:
    """Telegram's language_code → one of LANGS (Russian for ru, uk and be speakers; else English)."""
    code = (language_code or "").lower()
    return "ru" if code.startswith(("ru", "uk", "be")) else "en"
