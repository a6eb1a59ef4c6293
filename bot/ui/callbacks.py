"""Callback data factories. Every play button carries the table and its version, so a stale or
forged press is refused; actions travel as an index into the legal list of that version."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData


class Move(CallbackData, prefix="mv"):
    t: int  # table id
    v: int  # table version the keyboard was made for
    i: int  # index into state.legal_actions() at that version


class Menu(CallbackData, prefix="mn"):
    t: int
    v: int
    g: int  # group index; -1 goes back to the top level


class Lobby(CallbackData, prefix="lb"):
    t: int
    op: str  # join | leave | ai | start | cancel | opts | opt | back
    k: str = ""  # option name for op=opt; AI level for op=ai ("": the bot's default level)


class Lang(CallbackData, prefix="lg"):
    scope: str  # "u" the user, "c" the chat
    lang: str


class Pick(CallbackData, prefix="pk"):
    """Choosing several cards for one action (a 1–4 card discard): the selection travels in the data."""

    t: int
    v: int
    w: str  # the verb, e.g. "discard"
    m: int  # bit i set: candidate card i is selected
    go: int = 0  # 1: submit the selection


class Cap(CallbackData, prefix="cp"):
    """Building a capture card by card (the declaration's ``hand="capture"``): the hand card and the
    table cards chosen so far travel in the data (bit j: the j-th card the capture may add, in table order)."""

    t: int
    v: int
    c: str  # the hand card, e.g. "J15"
    m: int = 0  # the chosen cards
    go: int = 0  # 1: submit the capture


class Toggle(CallbackData, prefix="rm"):
    """A press on a toggle hand (the declaration's ``hand="toggle"``): ``on``/``off`` card ``a``; ``lay``
    (ask the solver); ``ok`` confirm proposal ``a``; ``back``; ``hint``; ``undo`` (clear the selection);
    ``jk`` joker meaning choice ``a``; ``pg`` hand page ``a``; ``do`` the presentation's verb number ``a``.
    The selection itself lives on the server (``bot/services/hands/selection.py``): a button carries one
    card index or choice, well inside 64 bytes whatever the hand's size."""

    t: int  # table id
    v: int  # table version the keyboard was made for
    op: str
    a: int = 0


TOGGLE_OPS = frozenset({"on", "off", "lay", "ok", "back", "hint", "undo", "jk", "pg", "do"})


class TakeSeat(CallbackData, prefix="ts"):
    """Taking over a seat an absent player lost (the clock's ``absent=replace``)."""

    t: int
    s: int  # the seat


class Hand(CallbackData, prefix="hd"):
    """/mytables: send my hand at this table again."""

    t: int


class Clk(CallbackData, prefix="ck"):
    """A lobby clock setting to step: pm per move, bk bank, st strikes, ab after the strikes; open/back."""

    t: int
    k: str
