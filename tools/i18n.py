"""Keep the gettext catalogs in step with the code: ``python tools/i18n.py`` rewrites
bot/locales/<lang>/LC_MESSAGES/messages.po with every msgid the bot uses, and each registered game's
games/<id>/locale/ru.po with every msgid its package uses, keeping translations.

Msgids are found with Babel's extractor (calls ``t(lang, "...")``) plus the words the code
translates through variables (``extra_msgids``; for a game: its declaration's title and option
descriptions). A new game's catalog starts from the translations of the words it shares with the bot or other games.
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
    from bot.render.words import PICTURE_WORDS
    from bot.ui.words import PLACEMENT, VERBS
    from bot.webapp.words import PAGE_WORDS, REFUSALS

    return [*PLACEMENT, "even", *VERBS.values(), *(desc for _, desc in COMMANDS), *PICTURE_WORDS.values(),
            *PAGE_WORDS.values(), *REFUSALS.values()]


KEYWORDS = {"t": (2,), "nt": (2, 3)}  # t(lang, msgid, ...), nt(lang, singular, plural, n, ...)


def game_extra_msgids(game: str) -> list[str]:
    """The words of a game's declaration: its title and what each house rule does."""
    import games

    declared = games.declaration(game)
    return [declared.title, *(option.description for option in declared.options)]


def _extracted(folder: Path) -> list[str | tuple[str, str]]:
    return [message for _file, _line, message, _comments, _context in extract_from_dir(
        folder, method_map=[("**.py", "python")], keywords=KEYWORDS)]


def _folders(game: str) -> list[Path]:
    """Where the msgids of a catalog are used: a game's package, or for the bot's catalog the bot and the
    family packages (``games/rummies``: words several games share, translated in the bot's catalog)."""
    if game:
        return [ROOT / "games" / game]
    import games

    families = sorted(p.parent for p in (ROOT / "games").glob("*/__init__.py") if p.parent.name not in games.REGISTERED)
    return [ROOT / "bot", *families]


def msgids(game: str = "") -> list[str]:
    """The msgids of the bot (``game`` empty) or of one game's package."""
    found: dict[str, None] = {}
    for message in (m for folder in _folders(game) for m in _extracted(folder)):
        if isinstance(message, str) and message:
            found[message] = None
    for message in game_extra_msgids(game) if game else extra_msgids():
        found[message] = None
    return list(found)


def plural_msgids(game: str = "") -> list[tuple[str, str]]:
    """(singular, plural) of every ``nt(...)`` call."""
    found: dict[tuple[str, str], None] = {}
    for message in (m for folder in _folders(game) for m in _extracted(folder)):
        if isinstance(message, tuple) and len(message) == 2 and all(message):
            found[(str(message[0]), str(message[1]))] = None
    return list(found)


def catalog_path(lang: str, game: str = "") -> Path:
    if game:
        return ROOT / "games" / game / "locale" / f"{lang}.po"
    return ROOT / "bot" / "locales" / lang / "LC_MESSAGES" / "messages.po"


def read_translations(path: Path) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """(msgid → translation, singular → plural forms) of a catalog ({} when there is none)."""
    old: dict[str, str] = {}
    old_plurals: dict[str, tuple[str, ...]] = {}
    if path.exists():
        with path.open("rb") as fh:
            for m in read_po(fh):
                if isinstance(m.id, tuple | list):
                    old_plurals[str(m.id[0])] = tuple(str(s) for s in m.string)
                elif m.id:
                    old[str(m.id)] = str(m.string)
    return old, old_plurals


def update(lang: str, seed: dict[str, str] | None = None, game: str = "") -> list[str]:
    """Rewrite one catalog (the bot's, or ``game``'s); return the msgids that still lack a translation."""
    path = catalog_path(lang, game)
    old: dict[str, str] = {}
    old_plurals: dict[str, tuple[str, ...]] = {}
    if game:  # a game's words start from the translations of the same words by the bot and the other games
        import games

        for source in [catalog_path(lang), *(catalog_path(lang, other) for other in games.REGISTERED if other != game)]:
            shared, shared_plurals = read_translations(source)
            old.update({k: v for k, v in shared.items() if v})
            old_plurals.update({k: v for k, v in shared_plurals.items() if all(v)})
    mine, mine_plurals = read_translations(path)
    old.update({k: v for k, v in mine.items() if v})
    old_plurals.update({k: v for k, v in mine_plurals.items() if all(v)})
    old.update(seed or {})
    catalog = Catalog(locale=lang, project=f"kozyr-{game}" if game else "kozyr", charset="utf-8")
    missing = []
    for msgid in msgids(game):
        string = msgid if lang == "en" else old.get(msgid, "")
        if not string:
            missing.append(msgid)
        catalog.add(msgid, string)
    for singular, plural in plural_msgids(game):
        forms = (singular, plural) if lang == "en" else old_plurals.get(singular, ("",) * catalog.num_plurals)
        if not all(forms):
            missing.append(singular)
        catalog.add((singular, plural), forms)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        write_po(fh, catalog, width=120, omit_header=False, sort_output=False)
    return missing


def update_all() -> dict[str, list[str]]:
    """Every catalog: the bot's in each language, then each registered game's Russian one (its English
    words are its msgids). Returns the missing translations per catalog."""
    import games

    gaps: dict[str, list[str]] = {}
    for game in games.REGISTERED:  # first: they take over the bot's translations of their words
        gaps[f"{game}/ru"] = update("ru", game=game)
    for language in ("en", "ru"):
        gaps[language] = update(language)
    return gaps


if __name__ == "__main__":
    for where, missing in update_all().items():
        print(f"{where}: {len(missing)} missing", *missing, sep="\n  ")
