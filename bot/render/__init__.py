"""Pictures for the group chat: pure functions from engine views/sheets to PNG bytes, plus captions.
No game's id or drawing lives here: a game's own pictures are in its package, drawn with the
presentation kit (``bot/presentation``).

- ``render_table(view, names, lang)``: the trick on the table (public cards only);
- ``render_sheet(style, sheet, names, totals, lang)``: the generic score sheet of a trick game (``style``:
  the game's columns, its presentation); a game with a score picture of its own draws it in its package;
- ``render_standings(names, totals, lang, title)``: the final places;
- ``card_image(card, height)`` / ``card_back(height)``: cached card faces (PIL images);
- ``caption_table`` / ``caption_sheet`` / ``caption_standings``: the same facts as HTML text.

The ``layout_*`` functions return a ``Layout`` (image, text boxes, cards drawn) for tests.
"""

from bot.render.captions import caption_sheet, caption_standings, caption_table
from bot.render.cards import card_back, card_image
from bot.render.layout import Layout
from bot.render.sheet import layout_sheet, render_sheet
from bot.render.standings import layout_standings, render_standings
from bot.render.table import layout_table, render_table

__all__ = [
    "Layout",
    "caption_sheet",
    "caption_standings",
    "caption_table",
    "card_back",
    "card_image",
    "layout_sheet",
    "layout_standings",
    "layout_table",
    "render_sheet",
    "render_standings",
    "render_table",
]
