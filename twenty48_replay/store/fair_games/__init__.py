"""The score server's SQL: the server reaches the database only through this package and
:class:`~twenty48_replay.store.Store`'s connections.

One module per concern: ``games`` (a fair game's rows, from creation to the
signed record), ``leaderboard`` (ranked, paged), ``bot_signals`` (the queue
of finished games to analyse, and their signals), ``submissions``
(self-seeded records submitted to the server).  The key history
(``store.server_keys``), the rate limits (``store.quotas``) and expiry
(``store.expiry``) have modules of their own in the store; their names are
re-exported here so that the server has one way in.
"""

from twenty48_replay.store.expiry import (
    IdleGame,
    claim_lease,
    expire_unstarted,
    idle_games,
    mark_abandoned,
    release_lease,
)
from twenty48_replay.store.fair_games.bot_signals import (
    MAX_RUNGS,
    MAX_RUNGS_TEXT,
    DueGame,
    RungFigure,
    SignalDetail,
    analysis_backlog,
    claim_analysis,
    due_games,
    is_players_best,
    settle_short_games,
    short_games_due,
    store_analysis,
)
from twenty48_replay.store.fair_games.games import (
    FairRow,
    Projection,
    append_moves,
    create,
    fair_record,
    finish,
    game_log,
    game_log_since,
    idle_game_state,
    load,
    move_append,
    move_times,
    open_games,
    public_game,
    start,
)
from twenty48_replay.store.fair_games.leaderboard import (
    BoardEntry,
    BoardKey,
    by_signal,
    leaderboard,
)
from twenty48_replay.store.fair_games.submissions import (
    SubmittedEntry,
    SubmittedKey,
    mark_submitted,
    submit_record,
    submitted,
)
from twenty48_replay.store.quotas import Charge, Grant, sweep_rate_limits, take_rate_limits
from twenty48_replay.store.server_keys import (
    CURRENT,
    REVOKED,
    KeyEvent,
    KeyHistory,
    KeyUse,
    append_key_event,
    current_key_id,
    has_signed_records,
    key_history,
    signed_keys,
)
from twenty48_replay.store.writes import Append  # the server batches these

__all__ = [
    "CURRENT",
    "MAX_RUNGS",
    "MAX_RUNGS_TEXT",
    "REVOKED",
    "Append",
    "BoardEntry",
    "BoardKey",
    "Charge",
    "DueGame",
    "FairRow",
    "Grant",
    "IdleGame",
    "KeyEvent",
    "KeyHistory",
    "KeyUse",
    "Projection",
    "RungFigure",
    "SignalDetail",
    "SubmittedEntry",
    "SubmittedKey",
    "analysis_backlog",
    "append_key_event",
    "append_moves",
    "by_signal",
    "claim_analysis",
    "claim_lease",
    "create",
    "current_key_id",
    "due_games",
    "expire_unstarted",
    "fair_record",
    "finish",
    "game_log",
    "game_log_since",
    "has_signed_records",
    "idle_game_state",
    "idle_games",
    "is_players_best",
    "key_history",
    "leaderboard",
    "load",
    "mark_abandoned",
    "mark_submitted",
    "move_append",
    "move_times",
    "open_games",
    "public_game",
    "release_lease",
    "settle_short_games",
    "short_games_due",
    "signed_keys",
    "start",
    "store_analysis",
    "submit_record",
    "submitted",
    "sweep_rate_limits",
    "take_rate_limits",
]
