"""The server's settings, passed to every worker process as one JSON environment variable."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

import attrs

from twenty48_replay.store import Store

#: Environment variable that carries the settings to uvicorn's worker processes.
ENV_VAR: Final = "TWENTY48_SERVE_CONFIG"
KEY_SUFFIX: Final = ".server-key.pem"


def _strings(values: Iterable[str]) -> tuple[str, ...]:
    """A list from the JSON environment (or any iterable) as the tuple a frozen config holds."""
    return tuple(values)


@attrs.frozen
class ServerConfig:
    """What ``twenty48 serve`` was asked for.

    Bots (see :mod:`twenty48_replay.server.bots`): a finished game of at
    least ``bot_min_moves`` moves is marked as a suspected bot when its
    engine-match rate (the best rung of the search ladder) is at least
    ``bot_match_rate``, when its median time between moves is below
    ``bot_interval_ms`` (0 turns that test off), or when the dispersion of
    those times (interquartile range over median) is below
    ``bot_dispersion`` (0 turns it off).  The ladder is fixed depths of 1 ..
    ``analysis_plies`` plies plus every strength the solver offers, each on
    at most ``analysis_positions`` positions of a game (the bound on the
    work per game; raise both when the solver is fast).  ``analyze`` False
    turns the background analysis off.  ``registered_only``: the leaderboard
    ranks only games played with a registered name's secret.  The bounds,
    quotas and expiry are described where they are enforced:
    :mod:`.record_checks`, :mod:`.quotas`, :mod:`.sweeper`.
    """

    db: str | None = None
    key: str | None = None
    bot_match_rate: float = 0.9
    bot_interval_ms: int = 100
    bot_dispersion: float = 0.1
    bot_min_moves: int = 50
    analysis_plies: int = 3
    analysis_positions: int = 150
    analyze: bool = True
    #: ``--allowed-host`` (``*``: any), ``--allowed-origin``, ``--metrics-allow``
    #: (request_guard, metrics); empty hosts: the defaults for ``127.0.0.1``.
    allowed_hosts: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    allowed_origins: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    metrics_allow: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    #: Rank only games played under a registered name (``serve --registered-only``).
    registered_only: bool = False
    # ---- bounds, quotas and expiry
    #: ``POST /api/records``: the body, and the canonical JSON of the record's unknown keys.
    max_record_bytes: int = 1024 * 1024
    max_record_extra_bytes: int = 64 * 1024
    #: Rate limits on (the defaults, changed by ``rate_limit_specs``) or off.
    rate_limits: bool = True
    rate_limit_specs: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    #: A game not started this long after it was made is removed (seconds).
    unstarted_expiry_s: float = 600.0
    #: A started game with no move for this long is finished as abandoned (seconds).
    abandon_after_s: float = 86_400.0
    #: Seconds between two passes of the expiry sweeper.
    sweep_interval_s: float = 30.0

    def to_env(self) -> str:
        return json.dumps(attrs.asdict(self))

    @classmethod
    def from_env(cls) -> ServerConfig:
        raw = os.environ.get(ENV_VAR)
        if not raw:
            return cls()
        data: dict[str, Any] = json.loads(raw)
        return cls(**data)


def key_path(config: ServerConfig) -> Path:
    """The server's private key: ``--key``, else beside the SQLite file, else the data folder."""
    if config.key is not None:
        return Path(config.key).expanduser()
    database = Store.sqlite_file(config.db)
    if database is not None:
        return database.with_name(database.name + KEY_SUFFIX)
    return Store.data_folder() / ("twenty48-server" + KEY_SUFFIX)
