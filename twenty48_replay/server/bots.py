"""Bot signals of finished fair games, computed off the request path.

A live bot can play through the API, so commit and reveal alone does not
make a score human.  Two cheap signals help an operator judge:

* the engine-match rate: the share of moves equal to the solver's first
  choice at a fixed shallow depth (a strong bot that uses any expectimax
  agrees with it far more often than a person does);
* the median time between moves, from the commit times in the log (a
  person needs a few hundred milliseconds per move).

An :class:`Analyzer` thread claims finished games (compare-and-set in the
database, so several server processes share the work), runs the solver in
a separate low-priority process (NumPy work never holds the request
path's interpreter lock), and stores the figures.  Whether a game is a
suspected bot is decided when it is shown, from the operator's thresholds
(:class:`ServerConfig`), so changing them reclassifies every game.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import multiprocessing
import os
import statistics
import threading
from concurrent.futures import ProcessPoolExecutor

from twenty48_replay.batch import quiet_worker
from twenty48_replay.board import Direction
from twenty48_replay.game import GameState
from twenty48_replay.server.config import ServerConfig
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.timestamps import now_ms

log = logging.getLogger("twenty48.server")

#: How often the analyzer looks for finished games (seconds).
POLL_SECONDS = 1.0
#: A claim older than this is taken to be abandoned (its process died).
STALE_MS = 10 * 60 * 1000
#: Node budget of one shallow search (plenty for 2 plies).
ANALYSIS_NODES = 50_000


def engine_matches(seed: str, letters: str, plies: int) -> tuple[int, int]:
    """(moves equal to the solver's first choice at ``plies`` plies, moves checked)."""
    from twenty48_replay.solver import SearchSettings, best_move

    settings = SearchSettings(max_nodes=ANALYSIS_NODES, min_plies=plies, max_plies=plies)
    state = GameState.new(seed)
    matches = 0
    for letter in letters:
        choice, _values = best_move(state.board, settings)
        if choice is not None and choice.letter == letter:
            matches += 1
        state = state.play(Direction(letter))[0]
    return matches, len(letters)


def median_interval_ms(times: list[int | None]) -> int | None:
    """Median time between consecutive moves (None with fewer than two timed moves)."""
    gaps = [b - a for a, b in itertools.pairwise(times) if a is not None and b is not None]
    return int(statistics.median(gaps)) if gaps else None


def analyse(
    seed: str, letters: str, times: list[int | None], plies: int
) -> tuple[int, int, int | None]:
    """Both signals of one game (runs in the analysis process)."""
    matches, checked = engine_matches(seed, letters, plies)
    return matches, checked, median_interval_ms(times)


def suspected_bot(
    config: ServerConfig, matches: int | None, checked: int | None, interval: int | None
) -> bool | None:
    """The operator's verdict from the thresholds; None until the game is analysed."""
    if matches is None or checked is None:
        return None
    if checked < config.bot_min_moves:
        return False
    if matches / checked >= config.bot_match_rate:
        return True
    return interval is not None and interval < config.bot_interval_ms


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

    def step(self) -> bool:
        """Analyse one due game; False when none is due."""
        with self.store.reading() as connection:
            if not fair_store.analysis_due(connection, now_ms(), STALE_MS):
                return False
        with self.store.transaction() as connection:
            row = fair_store.claim_analysis(connection, now_ms(), STALE_MS)
        if row is None or row.game_id is None:
            return row is not None
        with self.store.reading() as connection:
            info, letters = fair_store.game_log(connection, row.game_id)
            times = fair_store.move_times(connection, row.game_id)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_analysis_worker,
                initargs=(os.getpid(),),
            )
        result = self._pool.submit(analyse, info.seed, letters, times, self.config.analysis_plies)
        matches, checked, interval = result.result()
        with self.store.transaction() as connection:
            fair_store.store_analysis(
                connection,
                row.id,
                matches=matches,
                checked=checked,
                median_interval_ms=interval,
                now_ms=now_ms(),
            )
        return True
