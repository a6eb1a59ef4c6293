"""Tournaments: a fixed field, rounds, pairings, standings. ``pairing`` and ``standings`` are pure
(plain data in, plain data out, randomness only from a seed); ``service`` runs them on the store."""
