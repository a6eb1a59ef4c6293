"""One module per game; each registers itself with ``engine.core.register`` on import.

Modules are discovered automatically (``engine.core.all_games``), so adding a game is adding a file.
"""
