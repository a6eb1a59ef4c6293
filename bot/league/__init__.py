"""Leagues: every finished table is a match; OpenSkill ratings per game and overall, seasons, standings.

``python -m bot.league recompute`` rebuilds every rating from the stored matches (see recompute.py).
"""
