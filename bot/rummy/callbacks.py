"""The rummy hand's callback data. The selection itself lives on the server (``selection.py``): a
button carries the table, its version and one card index or choice, well inside 64 bytes whatever
the hand's size, and a press is refused unless it fits the current version and hand."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData

OPS = frozenset({"on", "off", "lay", "ok", "back", "hint", "undo", "jk", "pg", "do"})


class Rum(CallbackData, prefix="rm"):
    """``on``/``off`` card ``a``; ``lay`` (ask the solver); ``ok`` confirm proposal ``a``; ``back``;
    ``hint``; ``undo`` (clear the selection); ``jk`` joker meaning choice ``a``; ``pg`` hand page
    ``a``; ``do`` verb number ``a`` (draw, pass, knock, end, abandon)."""

    t: int  # table id
    v: int  # table version the keyboard was made for
    op: str
    a: int = 0
