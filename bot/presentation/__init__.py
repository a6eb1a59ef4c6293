"""The presentation kit: everything a game's ``present.py`` (and a family's presentation modules, such as
``games/rummies/``) may use from the bot, and nothing else.

A game's presentation modules import only this package (``from bot.presentation import ...``), the
engine, their own game or family package, the standard library and Pillow (``PIL``, for a picture of the
game's own); no other third-party package (the keyboard types come from here, not from aiogram), and no
other module of the bot. ``tests/test_layers.py`` holds them to it.

What the kit holds:

- the interface: ``Presentation`` (the defaults are the trick games'), ``ModuleWords`` (a presentation made
  of a module's functions), ``BuilderPress`` (a capture hand's answer), ``NoPresentation``;
- words: ``words`` (names made safe for Telegram HTML, cards, suits, the game's title, the shared pieces:
  ``who``, ``points``, ``totals``, ``mark``, ``trick_lines``, ``deal_head``, ``score_line``), gettext for the
  game's catalog (``GameWords``) and the bot's (``t``, ``nt``), ``clip_html``;
- pictures: the paper palette and the table's felt look (colours, sizes), ``Canvas``/``CanvasLayout``,
  ``Layout``/``Drawn``/``Box``, card faces (``card_image``, ``card_width``), text (``draw_fitted``, ``fit``,
  ``text_width``, ``font``), ``to_png``, the picture words (``picture_words``, ``num``), captions
  (``caption_name``, ``fit_caption``), the trick table's picture and caption (``render_table``,
  ``caption_table``);
- keyboards: ``InlineKeyboardButton``, ``InlineKeyboardMarkup`` and the callback data a game's own buttons
  carry (``Cap``: a capture builder's press; ``Menu``: a second step of the move buttons).
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup

from bot.presentation import words
from bot.presentation.base import BuilderPress, Label, Line, Lines, ModuleWords, NoPresentation, Presentation
from bot.presentation.words import deal_head, mark, points, score_line, totals, trick_lines, who
from bot.render.canvas import RGB, Canvas, CanvasLayout
from bot.render.captions import caption_name, caption_table, fit_caption
from bot.render.cards import card_image, card_width
from bot.render.fonts import font
from bot.render.layout import Drawn, Layout, to_png
from bot.render.palette import (
    CURRENT,
    GREEN,
    GREY,
    HEAD,
    INK,
    LINE,
    NAME_H,
    PAD,
    PAPER,
    QROW_H,
    RED,
    ROW_H,
    STRONG,
    SUB_H,
    SUMMARY,
    TITLE_H,
    TOTAL_H,
    WIN,
    wrap2,
)
from bot.render.table import FELT, FELT_DARK, GOLD, MARGIN, PLATE, SOFT, WHITE, render_table
from bot.render.table import W as TABLE_W
from bot.render.text import Box, draw_fitted, fit, text_width
from bot.render.words import num
from bot.render.words import words as picture_words
from bot.ui.callbacks import Cap, Menu
from bot.ui.clip import clip_html
from bot.ui.i18n import GameWords, nt, t
from bot.ui.names import plain_name
from bot.ui.words import cards, name, title

__all__ = [
    "CURRENT", "FELT", "FELT_DARK", "GOLD", "GREEN", "GREY", "HEAD", "INK", "LINE", "MARGIN", "NAME_H", "PAD",
    "PAPER", "PLATE", "QROW_H", "RED", "RGB", "ROW_H", "SOFT", "STRONG", "SUB_H", "SUMMARY", "TABLE_W", "TITLE_H",
    "TOTAL_H", "WHITE", "WIN",
    "Box", "BuilderPress", "Canvas", "CanvasLayout", "Cap", "Drawn", "GameWords", "InlineKeyboardButton",
    "InlineKeyboardMarkup", "Label", "Layout", "Line", "Lines", "Menu", "ModuleWords", "NoPresentation",
    "Presentation",
    "caption_name", "caption_table", "card_image", "card_width", "cards", "clip_html", "deal_head", "draw_fitted",
    "fit", "fit_caption", "font", "mark", "name", "num", "nt", "picture_words", "plain_name", "points", "render_table",
    "score_line", "t", "text_width", "title", "to_png", "totals", "trick_lines", "who", "words", "wrap2",
]
