"""The table app's own words (English msgids; their Russian is in bot/locales, found by tools/i18n.py)."""

from __future__ import annotations

from bot.ui.i18n import t

PAGE_WORDS = {
    "your_turn": "Your turn",
    "waiting": "Waiting for {name}",
    "spectator": "You are watching this table.",
    "hand": "Your hand",
    "table": "Table",
    "scores": "Scores",
    "new_meld": "New meld",
    "confirm": "Lay down",
    "reset": "Clear",
    "propose": "Propose",
    "over": "The game is over.",
    "offline": "Reconnecting…",
    "hint_tap": "Tap a card to play it.",
    "hint_lay": "Drag cards from your hand onto a meld or onto New meld, then Lay down.",
    "choose": "Which move?",
}

REFUSALS = {  # what the page says when a request is refused, by the refusal's reason
    "missing": "Open this page from Telegram.",
    "forged": "Open this page from Telegram.",
    "expired": "This page is too old: open it again from Telegram.",
    "replayed": "This page is too old: open it again from Telegram.",
    "no session": "This page is too old: open it again from Telegram.",
    "no table": "This table does not exist.",
    "too many": "This table is open in too many windows: close one.",
}


def page_words(lang: str) -> dict[str, str]:
    return {key: t(lang, text) for key, text in PAGE_WORDS.items()}


def refusal(reason: str, lang: str) -> str:
    return t(lang, REFUSALS.get(reason, REFUSALS["missing"]))
