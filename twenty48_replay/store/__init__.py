"""The event store: games as an append-only log of moves in SQL (SQLite by default).

The package's face: :class:`Store` (``store.py``) is the one entry point.
Inside: ``connection`` opens and checks a database, ``tables`` is the
schema, ``reads`` and ``writes`` are the SQL of local games, and
``fair_games`` is all the SQL of the score server (its key history in
``server_keys``), ``evidence`` the reports ``play --server`` keeps when a
server breaks a rule, ``backup`` copies a live SQLite database.
"""

from twenty48_replay.core.errors import DamagedGameError
from twenty48_replay.store.backup import BackupReport
from twenty48_replay.store.evidence import (
    EvidenceInfo,
    list_evidence,
    load_evidence,
    save_evidence,
)
from twenty48_replay.store.reads import ANY_PLAYER, GameInfo, Stats
from twenty48_replay.store.store import CheckReport, GameSession, ImportOutcome, Store

__all__ = [
    "ANY_PLAYER",
    "BackupReport",
    "CheckReport",
    "DamagedGameError",
    "EvidenceInfo",
    "GameInfo",
    "GameSession",
    "ImportOutcome",
    "Stats",
    "Store",
    "list_evidence",
    "load_evidence",
    "save_evidence",
]
