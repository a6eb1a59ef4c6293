"""Callback data factories. Every play button carries the table and its version, so a stale or
forged press is refused; actions travel as an index into the legal list of that version. Every field is
bounded (bot/ui/bounds.py): data out of range does not unpack, so no handler takes it and the catch-all
(bot/handlers/help.py ``unknown_button``) answers it as an invalid button; the store never sees it."""

from __future__ import annotations

from typing import Annotated

from aiogram.filters.callback_data import CallbackData
from pydantic import Field

from bot.ui.bounds import INT64_MAX, Id, Key, Signed, Word


class Move(CallbackData, prefix="mv"):
    t: Id  # table id
    v: Id  # table version the keyboard was made for
    i: Id  # index into state.legal_actions() at that version


class Menu(CallbackData, prefix="mn"):
    t: Id
    v: Id
    g: Annotated[int, Field(ge=-1, le=INT64_MAX)]  # group index; -1 goes back to the top level


class Lobby(CallbackData, prefix="lb"):
    t: Id
    op: Word  # join | leave | ai | start | cancel | opts | opt | back
    k: Key = ""  # option name for op=opt; AI level for op=ai ("": the bot's default level)


class Tour(CallbackData, prefix="tn"):
    """A tournament's registration message: join | leave | start | cancel; a withdrawal's prompt: wd | stay."""

    t: Id  # tournament id
    op: Word


class TourOut(CallbackData, prefix="tw"):
    """The organizer's prompt to withdraw a player: wd (yes) | stay (no); ``u`` the player."""

    t: Id  # tournament id
    u: Id  # the player's user id
    op: Word


class Here(CallbackData, prefix="th"):
    """One of a chat's several tables, chosen for a command: sc (/score) | rc (/record) | pa (/pause) |
    re (/resume) | ex (/extend) | ca (/cancel); the round's tables carry ``sc`` under their group message."""

    t: Id  # table id
    op: Word


class Lang(CallbackData, prefix="lg"):
    scope: Word  # "u" the user, "c" the chat
    lang: Word


class Pick(CallbackData, prefix="pk"):
    """Choosing several cards for one action (a 1–4 card discard): the selection travels in the data."""

    t: Id
    v: Id
    w: Word  # the verb, e.g. "discard"
    m: Id  # bit i set: candidate card i is selected
    go: Id = 0  # 1: submit the selection


class Cap(CallbackData, prefix="cp"):
    """Building a capture card by card (the declaration's ``hand="capture"``): the hand card and the
    table cards chosen so far travel in the data (bit j: the j-th card the capture may add, in table order)."""

    t: Id
    v: Id
    c: Word  # the hand card, e.g. "J15"
    m: Id = 0  # the chosen cards
    go: Id = 0  # 1: submit the capture


class Toggle(CallbackData, prefix="rm"):
    """A press on a toggle hand (the declaration's ``hand="toggle"``): ``on``/``off`` card ``a``; ``lay``
    (ask the solver); ``ok`` confirm proposal ``a``; ``back``; ``hint``; ``undo`` (clear the selection);
    ``jk`` joker meaning choice ``a``; ``pg`` hand page ``a``; ``do`` the presentation's verb number ``a``.
    The selection itself lives on the server (``bot/services/hands/selection.py``): a button carries one
    card index or choice, well inside 64 bytes whatever the hand's size."""

    t: Id  # table id
    v: Id  # table version the keyboard was made for
    op: Word
    a: Signed = 0  # the toggle service refuses what is out of its range (-1 too): "not available"


TOGGLE_OPS = frozenset({"on", "off", "lay", "ok", "back", "hint", "undo", "jk", "pg", "do"})


class TakeSeat(CallbackData, prefix="ts"):
    """Taking over a seat an absent player lost (the clock's ``absent=replace``)."""

    t: Id
    s: Id  # the seat


class Hand(CallbackData, prefix="hd"):
    """/mytables: send my hand at this table again."""

    t: Id


class MyHand(CallbackData, prefix="mh"):
    """The group table message's "My hand": the presser's hand, shown to them alone in the group (an
    ephemeral message, bot/services/hands/in_group.py)."""

    t: Id


class Hands(CallbackData, prefix="hs"):
    """/settings in a group (admins): where the players see their hands, ``group`` (the group and DMs) or ``dm``."""

    m: Word


class Clk(CallbackData, prefix="ck"):
    """A lobby clock setting to step: pm per move, bk bank, st strikes, ab after the strikes; open/back."""

    t: Id
    k: Key
