"""Seat-fillers: players the engine can ask for a move (random now; heuristic and search later)."""

from engine.ai.random import RandomPlayer

__all__ = ["RandomPlayer"]
