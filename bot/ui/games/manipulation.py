"""Manipulation words: the shared rummy words (bot/rummy/words.py), until games/<id>/present.py lands."""

from bot.rummy.words import action_label, event_line, table_lines

__all__ = ["action_label", "event_line", "table_lines"]
