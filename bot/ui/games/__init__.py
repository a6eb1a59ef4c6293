"""Per-game words for the games whose views are not trick tables (optional hooks)."""
