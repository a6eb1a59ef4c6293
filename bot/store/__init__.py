"""Storage: the contract the services use, and its SQLite implementation."""

from bot.store.sqlite import Store, TableRow, Tx

__all__ = ["Store", "TableRow", "Tx"]
