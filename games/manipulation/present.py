"""Manipulation in the chat: the shared rummy presentation (bot/rummy/present.py)."""

from bot.rummy.present import RummyPresentation

PRESENTATION = RummyPresentation("manipulation")
