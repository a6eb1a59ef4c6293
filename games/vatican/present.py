"""Vatican in the chat: the shared rummy presentation (games/rummies/present.py)."""

from games.rummies.present import RummyPresentation

PRESENTATION = RummyPresentation("vatican")
