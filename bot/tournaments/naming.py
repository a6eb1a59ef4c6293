"""Which entrant a command names: the author of the message it replies to or a text mention (Telegram
gives their id: certain), an @username the bot has seen, or the name the standings show (any case; a
name two entrants share names nobody, so a reply is asked for)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.league.queries import USERNAME
from bot.store.contract import StoreTx as Tx
from bot.store.rows import EntrantRow
from bot.ui import words
from bot.ui.i18n import t


@dataclass(frozen=True)
class Named:
    """Who a command names: a user id (a reply, a text mention), else what was typed."""

    user_id: int | None = None
    text: str = ""  # an @username or a name, as typed
    shown: str = ""  # the replied-to user's name as Telegram gives it (said if they are no entrant)


async def entrant_named(tx: Tx, entrants: list[EntrantRow], named: Named,
                        lang: str) -> tuple[EntrantRow | None, str | None]:
    """The still-playing entrant ``named`` means, or why there is none (a refusal to say, HTML)."""
    text = " ".join(named.text.split())
    user_id = named.user_id
    if user_id is None and text.startswith("@") and USERNAME.fullmatch(text[1:]):
        found = await tx.user_by_username(text[1:])
        user_id = found[0] if found is not None else None
    if user_id is not None:
        matches = [e for e in entrants if e.user_id == user_id]
    elif text and not text.startswith("@"):
        wanted = text.casefold()  # SQLite's lower() knows only ASCII: compared here (Cyrillic too)
        matches = [e for e in entrants if " ".join(e.name.split()).casefold() == wanted]
    elif not text:
        return None, t(lang, "Whom? Send /tournament withdraw as a reply to a message of the player, or name "
                             "them: /tournament withdraw @username (or their name as the standings show it).")
    else:
        matches = []
    if len(matches) > 1:
        return None, t(lang, "Several players are called {who}: reply to a message of the one you mean.",
                       who=words.typed(text))
    if not matches:
        who = words.typed(named.shown or text)
        return None, t(lang, "{who} is not playing in this tournament.", who=who)
    entrant = matches[0]
    if entrant.withdrawn is not None:
        return None, t(lang, "{who} has already withdrawn from the tournament.", who=words.name(entrant.name))
    return entrant, None
