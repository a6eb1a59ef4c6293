"""Pictures for the group chat: pure functions from engine views/sheets to PNG bytes, plus captions.

- ``render_table(view, names, lang)``: the trick on the table (public cards only);
- ``render_grid(sheet, names, current_deal, lang)``: the Carnival score grid (seed's form 6 x 6);
- ``render_sheet(style, sheet, names, totals, lang)``: the score sheet of the other trick games (``style``:
  the game's columns, its presentation);
- ``render_standings(names, totals, lang, title)``: the final places;
- ``card_image(card, height)`` / ``card_back(height)``: cached card faces (PIL images);
- ``caption_table`` / ``caption_grid`` / ``caption_sheet`` / ``caption_standings``: the same facts as HTML text.

The ``layout_*`` functions return a ``Layout`` (image, text boxes, cards drawn) for tests.
"""

from bot.render.captions import caption_grid, caption_sheet, caption_standings, caption_table
from bot.render.cards import card_back, card_image
from bot.render.grid import layout_grid, render_grid
from bot.render.layout import Layout
from bot.render.sheet import layout_sheet, render_sheet
from bot.render.standings import layout_standings, render_standings
from bot.render.table import layout_table, render_table

__all__ = [
    "Layout",
    "caption_grid",
    "caption_sheet",
    "caption_standings",
    "caption_table",
    "card_back",
    "card_image",
    "layout_grid",
    "layout_sheet",
    "layout_standings",
    "layout_table",
    "render_grid",
    "render_sheet",
    "render_standings",
    "render_table",
]
