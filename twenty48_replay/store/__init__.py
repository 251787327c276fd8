"""The event store: games as an append-only log of moves in SQL (SQLite by default).

The package's face: :class:`Store` (``store.py``) is the one entry point.
Inside: ``connection`` opens and checks a database, ``tables`` is the
schema, ``reads`` and ``writes`` are the SQL of local games, and
``fair_games`` is all the SQL of the score server.
"""

from twenty48_replay.errors import DamagedGameError
from twenty48_replay.store.reads import ANY_PLAYER, GameInfo, Stats
from twenty48_replay.store.store import CheckReport, GameSession, ImportOutcome, Store

__all__ = [
    "ANY_PLAYER",
    "CheckReport",
    "DamagedGameError",
    "GameInfo",
    "GameSession",
    "ImportOutcome",
    "Stats",
    "Store",
]
