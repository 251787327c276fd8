"""Bot signals of finished fair games, computed off the request path.

A live bot can play through the API, so commit and reveal alone does not
make a score human.  As chess sites do, the server measures two kinds of
signal and leaves the judgement to thresholds an operator sets (and, in
the end, to a person: no single signal is proof):

* **engine match**: the share of a game's real choices (positions with more
  than one valid move) on which the move played is the solver's choice,
  measured against a *ladder* of searches, fixed depths of 1 .. N plies
  and every strength the solver offers
  (:mod:`twenty48_replay.solver.agreement`), and the best rung taken.  A
  bot agrees with the search it runs on nearly every move; the same
  search at another depth agrees with it on only 55-80%.
* **rhythm**: the times between moves as the server recorded them (each
  move's commit time).  Their median (a person needs a few hundred
  milliseconds per move) and their *shape*: the dispersion (interquartile
  range over the median; a script sleeping a fixed time between moves is
  far more regular than a hand), the coefficient of variation and the
  lag-1 autocorrelation of the log intervals (shown for review, not judged:
  without human games to measure, no threshold on them can be defended).

What these signals cannot catch is written in docs/server.md ("Bot signals").

An :class:`Analyzer` thread picks finished games in leaderboard order (a
game that would enter or change the leaderboard first, never in order of
finish), claims one at a time (compare-and-set in the database, so several
server processes share the work), runs the searches in a separate
low-priority process (NumPy work never holds the request path's
interpreter lock) and stores the figures.  Work is bounded per game (at
most ``analysis_positions`` positions per rung); games shorter than the
operator's minimum are settled in bulk without a search, so a flood of
short games costs a few queries.  Whether a game is a suspected bot is
decided when it is shown (:func:`judge`), from the operator's thresholds
(:class:`ServerConfig`), so changing them reclassifies every game.
"""

from __future__ import annotations

import contextlib
import hmac
import itertools
import logging
import math
import multiprocessing
import os
import statistics
import threading
from collections.abc import Sequence
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor
from typing import Any, Final

import attrs

from twenty48_replay.core.timestamps import now_ms
from twenty48_replay.core.workers import quiet_worker
from twenty48_replay.server.config import ServerConfig
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store

log = logging.getLogger("twenty48.server")

#: How often the analyzer looks for finished games (seconds).
POLL_SECONDS: Final = 1.0
#: A claim older than this is taken to be abandoned (its process died).
STALE_MS: Final = 10 * 60 * 1000
#: Due games read per pick: the best of them that would be on the leaderboard is taken.
PICK_WINDOW: Final = 16
#: Short games settled per query (each query holds the write lock only briefly).
SETTLE_BATCH: Final = 500
#: The most move times read for the rhythm of one game.
MAX_TIMED_MOVES: Final = 100_000
#: The longest median interval stored (the column is a 32-bit integer: 24 days).
MAX_STORED_MS: Final = 2**31 - 1
#: Fewer intervals than this say nothing about their shape.
MIN_INTERVALS: Final = 20
#: The most leaderboard games a review (``admin suspects``) looks at.
MAX_REVIEWED: Final = 1000
#: Reasons a game is suspected (machine-readable, in the leaderboard's JSON).
ENGINE: Final = "engine"
FAST: Final = "fast"
REGULAR: Final = "regular"


# ------------------------------------------------------------------ rhythm


@attrs.frozen
class Rhythm:
    """The shape of the times between a game's moves."""

    intervals: int
    median_ms: int | None
    #: Interquartile range over the median (robust: a few long pauses do not move it).
    dispersion: float | None
    #: Standard deviation over the mean.
    variation: float | None
    #: Lag-1 autocorrelation of the log intervals (people play in bursts and pauses).
    autocorrelation: float | None


def rhythm(times: Sequence[int | None]) -> Rhythm:
    """The rhythm of consecutive move times (ms); unknown or backwards steps are left out."""
    gaps = [b - a for a, b in itertools.pairwise(times) if a is not None and b is not None]
    gaps = [gap for gap in gaps if gap >= 0]
    if not gaps:
        return Rhythm(0, None, None, None, None)
    median = statistics.median(gaps)
    dispersion = variation = autocorrelation = None
    if len(gaps) >= 2:
        low, _mid, high = statistics.quantiles(gaps, n=4, method="inclusive")
        dispersion = (high - low) / median if median > 0 else None
        mean = statistics.fmean(gaps)
        variation = statistics.pstdev(gaps) / mean if mean > 0 else None
        autocorrelation = _lag1([math.log1p(gap) for gap in gaps])
    return Rhythm(
        len(gaps), min(int(median), MAX_STORED_MS), dispersion, variation, autocorrelation
    )


def _lag1(values: list[float]) -> float | None:
    """Lag-1 autocorrelation (None for fewer than three values or no variance)."""
    if len(values) < 3:
        return None
    mean = statistics.fmean(values)
    centred = [v - mean for v in values]
    spread = sum(c * c for c in centred)
    if spread <= 0:
        return None
    return sum(a * b for a, b in itertools.pairwise(centred)) / spread


def _milli(value: float | None) -> int | None:
    """A fraction in thousandths (how the store keeps it), clamped to a sane range."""
    if value is None or not math.isfinite(value):
        return None
    return max(-1_000_000, min(1_000_000, round(value * 1000)))


# ---------------------------------------------------------------- analysis


def sample_key(server_seed: str) -> bytes:
    """The key that draws which positions are searched: secret while the game was played."""
    return hmac.digest(server_seed.encode("ascii", "replace"), b"twenty48 bot sample", "sha256")


def analyse(
    seed: str, letters: str, times: list[int | None], plies: int, positions: int, key: bytes
) -> tuple[fair_store.SignalDetail, int | None]:
    """Every signal of one game and its median interval (runs in the analysis process)."""
    from twenty48_replay.solver.agreement import agreement, ladder

    found = agreement(seed, letters, ladder(plies, positions), key)
    shape = rhythm(times)
    best = found.best
    return fair_store.SignalDetail(
        best_rung=None if best is None else best.name,
        rungs=tuple(fair_store.RungFigure(r.name, r.matches, r.checked) for r in found.rungs),
        moves=found.moves,
        choices=found.choices,
        intervals=shape.intervals,
        dispersion_milli=_milli(shape.dispersion),
        variation_milli=_milli(shape.variation),
        autocorrelation_milli=_milli(shape.autocorrelation),
    ), shape.median_ms


# ----------------------------------------------------------------- verdict


@attrs.frozen
class Verdict:
    """Whether a game is a suspected bot (None: not analysed yet) and why."""

    suspected: bool | None
    reasons: tuple[str, ...] = ()


def judge(config: ServerConfig, entry: fair_store.BoardEntry) -> Verdict:
    """The operator's verdict on a game from its signals and the thresholds.

    ``engine``: the best rung's match rate reaches ``bot_match_rate``;
    ``fast``: the median time between moves is below ``bot_interval_ms``;
    ``regular``: the intervals' dispersion is below ``bot_dispersion``.
    A game shorter than ``bot_min_moves`` is never suspected.
    """
    if entry.engine_checked is None:
        return Verdict(None)
    if entry.moves < config.bot_min_moves:
        return Verdict(False)
    reasons = []
    matches = entry.engine_matches or 0
    if entry.engine_checked > 0 and matches / entry.engine_checked >= config.bot_match_rate:
        reasons.append(ENGINE)
    interval = entry.median_interval_ms
    if interval is not None and interval < config.bot_interval_ms:
        reasons.append(FAST)
    detail = entry.detail
    if (
        detail is not None
        and detail.dispersion_milli is not None
        and detail.intervals >= MIN_INTERVALS
        and detail.dispersion_milli < config.bot_dispersion * 1000
    ):
        reasons.append(REGULAR)
    return Verdict(bool(reasons), tuple(reasons))


def signal_fields(config: ServerConfig, entry: fair_store.BoardEntry) -> dict[str, Any]:
    """A leaderboard line's bot signals and verdict, as the JSON API shows them."""
    detail = entry.detail
    rate = (
        None
        if entry.engine_matches is None or not entry.engine_checked
        else round(entry.engine_matches / entry.engine_checked, 4)
    )
    verdict = judge(config, entry)

    def fraction(milli: int | None) -> float | None:
        return None if milli is None else milli / 1000

    return {
        "engine_match_rate": rate,
        "engine_match_rung": None if detail is None else detail.best_rung,
        "engine_match_rates": None
        if detail is None
        else {r.name: round(r.matches / r.checked, 4) for r in detail.rungs if r.checked},
        "median_move_interval_ms": entry.median_interval_ms,
        "move_interval_dispersion": None if detail is None else fraction(detail.dispersion_milli),
        "move_interval_variation": None if detail is None else fraction(detail.variation_milli),
        "move_interval_autocorrelation": None
        if detail is None
        else fraction(detail.autocorrelation_milli),
        "suspected_bot": verdict.suspected,
        "bot_reasons": list(verdict.reasons),
    }


def thresholds(config: ServerConfig) -> dict[str, Any]:
    """The thresholds and analysis settings in force, as the JSON API shows them."""
    return {
        "match_rate": config.bot_match_rate,
        "interval_ms": config.bot_interval_ms,
        "interval_dispersion": config.bot_dispersion,
        "min_moves": config.bot_min_moves,
        "analysis_plies": config.analysis_plies,
        "analysis_positions": config.analysis_positions,
    }


def suspects(
    store: Store, config: ServerConfig, limit: int
) -> list[tuple[fair_store.BoardEntry, Verdict]]:
    """Leaderboard games by bot signal, suspected ones first (for ``admin suspects``).

    Within each group the order of :func:`fair_store.by_signal`: the highest
    engine-match rate, then the shortest median time between moves.
    """
    with store.reading() as connection:
        entries = fair_store.by_signal(
            connection, MAX_REVIEWED, registered_only=config.registered_only
        )
    judged = [(entry, judge(config, entry)) for entry in entries]
    judged.sort(key=lambda pair: pair[1].suspected is not True)  # stable: keeps the signal order
    return judged[:limit]


# ----------------------------------------------------------------- analyzer


def _analysis_worker(parent_pid: int) -> None:
    """Set-up of the analysis process: a quiet pool worker (Ctrl-C is the server's, and it
    exits with the server, even after ``kill -9``) at low priority."""
    quiet_worker(parent_pid)
    with contextlib.suppress(OSError):  # not allowed on this system: run at normal priority
        os.nice(10)


class Analyzer:
    """The background thread that fills in the bot signals of finished games."""

    def __init__(self, store: Store, config: ServerConfig) -> None:
        self.store = store
        self.config = config
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="twenty48-analyzer", daemon=True)
        self._pool: ProcessPoolExecutor | None = None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _loop(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                while not self._stop.is_set() and self.step():
                    pass
            except Exception as exc:  # keep the thread alive; the game is retried later
                log.warning("bot analysis failed: %s", type(exc).__name__)

    def settle_short_games(self) -> int:
        """Mark pending games too short to judge as analysed, in bounded batches."""
        settled = 0
        while not self._stop.is_set():
            with self.store.reading() as connection:
                ids = fair_store.short_games_due(
                    connection, self.config.bot_min_moves, SETTLE_BATCH
                )
            if not ids:
                break
            with self.store.transaction() as connection:
                settled += fair_store.settle_short_games(connection, ids, now_ms())
        return settled

    def pick(self) -> fair_store.FairRow | None:
        """Claim the due game that matters most to the leaderboard (None: none is due).

        Of the due games with the highest scores, the first that is its
        player's best (it would enter or change the leaderboard), else the
        highest-scoring one.  The reads take no lock; the claim is one
        short compare-and-set.
        """
        for _attempt in range(3):
            with self.store.reading() as connection:
                due = fair_store.due_games(connection, now_ms(), STALE_MS, PICK_WINDOW)
                if not due:
                    return None
                chosen = next(
                    (game for game in due if fair_store.is_players_best(connection, game)), due[0]
                )
            with self.store.transaction() as connection:
                row = fair_store.claim_analysis(connection, chosen, now_ms())
            if row is not None:
                return row
        return None  # others keep taking them: try again at the next poll

    def step(self) -> bool:
        """Analyse one due game; False when none is due."""
        self.settle_short_games()
        row = self.pick()
        if row is None:
            return False
        try:
            detail, median = self._analyse(row)
        except BrokenExecutor:  # the analysis process died: a new one; the claim goes stale
            self._pool = None
            raise
        except Exception as exc:  # this game cannot be analysed (damaged): say so, once
            log.warning("bot analysis of game %d failed: %s", row.id, type(exc).__name__)
            with self.store.transaction() as connection:
                fair_store.store_analysis(
                    connection,
                    row.id,
                    matches=None,
                    checked=None,
                    median_interval_ms=None,
                    now_ms=now_ms(),
                )
            return True
        best = next((r for r in detail.rungs if r.name == detail.best_rung), None)
        with self.store.transaction() as connection:
            fair_store.store_analysis(
                connection,
                row.id,
                matches=0 if best is None else best.matches,
                checked=0 if best is None else best.checked,
                median_interval_ms=median,
                now_ms=now_ms(),
                detail=detail,
            )
        return True

    def _analyse(self, row: fair_store.FairRow) -> tuple[fair_store.SignalDetail, int | None]:
        """Read the game and run :func:`analyse` in the analysis process."""
        if row.game_id is None:
            raise ValueError("a finished game without moves")
        with self.store.reading() as connection:
            info, letters = fair_store.game_log(connection, row.game_id)
            times = fair_store.move_times(connection, row.game_id, MAX_TIMED_MOVES)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_analysis_worker,
                initargs=(os.getpid(),),
            )
        result = self._pool.submit(
            analyse,
            info.seed,
            letters,
            times,
            self.config.analysis_plies,
            self.config.analysis_positions,
            sample_key(row.server_seed),
        )
        return result.result()
