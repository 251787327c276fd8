"""The server's rate limits: which there are, their defaults, and how an operator changes them.

Each limit is named and counts requests per *subject*: the client's
address for creating games, registering names and submitting records (an
IPv6 client's /64, an IPv4-mapped address as its IPv4 address, as the
connection limit counts them: :func:`.transport.client_key`); the game for
moves, so that many players behind one address (a school, an
office) are never throttled by each other, and a stranger without the
game's token cannot use up a player's moves (a move is charged only once
its token matched).  The state is in the database
(:mod:`twenty48_replay.store.quotas`, generic cell rate algorithm), shared
by every server process on it; a refused request is a 429 with
``Retry-After``.

The defaults suit people, not scripts: a person starts a game every few
minutes and plays a few moves a second; a class behind one address can
start its games at once (the burst).  ``serve --rate-limit
NAME=COUNT/UNIT[:BURST]`` changes one, ``serve --rate-limits off`` turns
them all off (for benchmarks).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from typing import ClassVar, Final

import attrs

from twenty48_replay.core.errors import EXIT_UNUSABLE, MessageError
from twenty48_replay.core.i18n import N_
from twenty48_replay.store import fair_games as fair_store

#: Creating games, per client address (IPv6: per /64).
CREATE_GAME: Final = "create-game"
#: Moves (retries included), per game.
MOVE: Final = "move"
#: Submitting self-seeded records, per client address (IPv6: per /64).
SUBMIT_RECORD: Final = "submit-record"
#: Registering a player name, per client address (IPv6: per /64; ``POST /api/players``).
REGISTER_NAME: Final = "register-name"

_UNITS: Final = {"s": 1, "min": 60, "h": 3600, "d": 86400}
_SPEC: Final = re.compile(r"([a-z][a-z-]{0,31})=([0-9]{1,9})/(s|min|h|d)(?::([0-9]{1,9}))?")
#: Subjects longer than this are stored by their SHA-256 (a key is at most 300 characters).
_MAX_SUBJECT: Final = 128


@attrs.frozen
class RateLimit:
    """``count`` requests per ``period_s`` seconds on average, at most ``burst`` at once."""

    name: str
    count: int
    period_s: int
    burst: int

    @property
    def interval_ms(self) -> int:
        """Milliseconds between two requests at the sustained rate (at least 1)."""
        return max(1, self.period_s * 1000 // self.count)

    def charge(self, subject: str, count: int = 1) -> fair_store.Charge:
        """``count`` requests of ``subject`` under this limit."""
        return fair_store.Charge(key_of(self.name, subject), count, self.interval_ms, self.burst)

    def spec(self) -> str:
        """The limit as ``serve --rate-limit`` takes it."""
        unit = next(name for name, seconds in _UNITS.items() if seconds == self.period_s)
        return f"{self.name}={self.count}/{unit}:{self.burst}"


DEFAULTS: Final = {
    limit.name: limit
    for limit in (
        RateLimit(CREATE_GAME, 600, 3600, 60),
        RateLimit(MOVE, 15, 1, 45),
        RateLimit(SUBMIT_RECORD, 60, 3600, 10),
        RateLimit(REGISTER_NAME, 20, 3600, 5),
    )
}

#: What a refusal says was too many, per limit: its reason code (``server.quota.*``).
WHAT: Final = {
    CREATE_GAME: "server.quota.create_game",
    MOVE: "server.quota.move",
    SUBMIT_RECORD: "server.quota.submit_record",
    REGISTER_NAME: "server.quota.register_name",
}


def key_of(name: str, subject: str) -> str:
    """The stored key of ``subject`` under limit ``name`` (long subjects by their hash)."""
    if len(subject) > _MAX_SUBJECT or not subject.isprintable():
        subject = "sha256:" + hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{name}:{subject}"


class RateLimitSpecError(MessageError, ValueError):
    """A ``--rate-limit`` value that cannot be used (exit 2), in the reader's language."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


def parse_limit(text: str) -> RateLimit:
    """One ``NAME=COUNT/UNIT[:BURST]`` (UNIT s, min, h or d; BURST defaults to COUNT).

    Raises :class:`RateLimitSpecError` (a ValueError) with the reason.
    """
    match = _SPEC.fullmatch(text.strip())
    if match is None:
        raise RateLimitSpecError(
            N_("{value} is not NAME=COUNT/UNIT[:BURST] (UNIT s, min, h or d), e.g. {example}"),
            value=repr(text),
            example=DEFAULTS[MOVE].spec(),
        )
    name, count, unit, burst = match.groups()
    if name not in DEFAULTS:
        raise RateLimitSpecError(
            N_("no rate limit named {name} (there are {names})"),
            name=repr(name),
            names=", ".join(DEFAULTS),
        )
    if int(count) < 1:
        raise RateLimitSpecError(N_("{value}: the count must be at least 1"), value=repr(text))
    size = int(count) if burst is None else int(burst)
    if size < 1:
        raise RateLimitSpecError(N_("{value}: the burst must be at least 1"), value=repr(text))
    return RateLimit(name, int(count), _UNITS[unit], size)


@attrs.frozen
class RateLimits:
    """The limits in force (none when ``serve --rate-limits off``)."""

    limits: Mapping[str, RateLimit] = attrs.field(factory=dict)

    @classmethod
    def from_settings(cls, enabled: bool, specs: Iterable[str]) -> RateLimits:
        """The defaults changed by ``specs`` (``--rate-limit``), or none at all."""
        if not enabled:
            return cls({})
        limits = dict(DEFAULTS)
        for text in specs:
            limit = parse_limit(text)
            limits[limit.name] = limit
        return cls(limits)

    def get(self, name: str) -> RateLimit | None:
        """The limit ``name``, or None when it is not in force."""
        return self.limits.get(name)

    def charge(self, name: str, subject: str, count: int = 1) -> fair_store.Charge | None:
        """``count`` requests of ``subject`` under limit ``name`` (None: not limited)."""
        limit = self.limits.get(name)
        return None if limit is None else limit.charge(subject, count)
