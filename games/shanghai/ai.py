"""Shanghai's AI knowledge: the rummies' (games/rummies/ai.py)."""

from games.rummies.ai import KNOWLEDGE

__all__ = ["KNOWLEDGE"]
