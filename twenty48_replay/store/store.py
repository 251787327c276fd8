"""The event store: games as an append-only log of moves in SQL (SQLite by default).

``Store`` is the one entry point: it opens (and on first use creates) the
database, starts and resumes games as :class:`GameSession` objects whose
``play`` commits each move before returning, imports verified records,
exports records, and re-derives every projection in :meth:`Store.check`.

Nothing read back is trusted: every read of a game (:meth:`Store.game_info`,
:meth:`Store.moves`, :meth:`Store.open_game`, :meth:`Store.game_as_record`)
first checks the log against the projection (SHA-256 digest of the move
string, move count, score, max tile, board, flags) and the row's fields,
and raises :class:`DamagedGameError` ("game 4 is damaged: ...") instead of
returning anything derived from a damaged game.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, suppress
from pathlib import Path

import attrs
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import DamagedGameError, ImportRejectedError, SealedGameError
from twenty48_replay.core.game import GameState, MoveOutcome
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import VerifyResult, verify
from twenty48_replay.core.timestamps import iso_ms, now_ms
from twenty48_replay.store import bests, dialects, log_chain, reads, schema, servers, writes
from twenty48_replay.store import connection as conn
from twenty48_replay.store.backup import BackupReport, sqlite_backup
from twenty48_replay.store.legacy import OLDER
from twenty48_replay.store.reads import ANY_PLAYER, GameFilter, GameInfo, PlayerFilter, Stats
from twenty48_replay.store.tables import CLIENT, SCHEMA_VERSION, log_digests, metadata, moves
from twenty48_replay.store.tables import games as games_table


@attrs.frozen(slots=True)
class ImportOutcome:
    """One imported record: the new game id, or the id of its exact duplicate."""

    game_id: int
    duplicate: bool


@attrs.frozen(slots=True)
class CheckReport:
    """Result of :meth:`Store.check`: every difference found, and the integrity check.

    ``chains``: the chained logs' heads (None for a schema before the chains,
    or one too damaged to read them), to compare with heads written down earlier.
    """

    games: int
    moves: int
    problems: tuple[str, ...]
    chains: log_chain.ChainReport | None = None

    @property
    def healthy(self) -> bool:
        """Nothing differs and the database's own check passed."""
        return not self.problems


class GameSession:
    """A game being played: its id and current state; every move is committed.

    ``play`` returns only after the move and its projection are durable, so
    a crash right after it loses nothing that was shown.  If another process
    appended to the same game meanwhile, ``play`` raises
    :class:`ConflictError` and writes nothing.  A ``sealed`` game (a signed
    fair-play record) refuses every move with :class:`SealedGameError`.
    """

    def __init__(
        self,
        store: Store,
        game_id: int,
        state: GameState,
        player: str | None,
        letters: str = "",
        *,
        sealed: bool = False,
    ) -> None:
        self.store = store
        self.id = game_id
        self.state = state
        self.player = player
        self.sealed = sealed
        self._log = hashlib.sha256(letters.encode("ascii"))

    def play(self, direction: Direction, *, assisted: bool = False) -> MoveOutcome:
        """Apply a move (NullMoveError if it changes nothing), store it, then return."""
        if self.sealed:
            raise SealedGameError(self.id)
        after, gained, spawn = self.state.play(direction)
        extended = self._log.copy()
        extended.update(direction.letter.encode("ascii"))
        with self.store.transaction() as connection:
            writes.append_move(
                connection,
                self.id,
                direction.letter,
                after,
                now_ms(),
                digests=(self._log.hexdigest(), extended.hexdigest()),
                assisted=assisted,
            )
        self.state = after
        self._log = extended
        return MoveOutcome(after, gained, spawn)

    def mark_assisted(self) -> None:
        """Record that hints were used (the record will say ``"assisted": true``)."""
        if self.sealed:
            raise SealedGameError(self.id)
        with self.store.transaction() as connection:
            writes.mark_assisted(connection, self.id)

    def __repr__(self) -> str:
        return f"<GameSession {self.id} at move {self.state.moves}>"


class Store:
    """A twenty48 database; see the module docstring."""

    def __init__(self, target: str | None = None, *, read_only: bool = False) -> None:
        """Open (or create, or upgrade) the database; ``read_only`` never writes (for check)."""
        self.engine, self.name = conn.open_engine(target, read_only=read_only)
        self._batch = False

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Bulk imports: each record stays atomic, the disk is synced once at the end.

        Inside the block a committed record survives a crash of this process
        (the operating system holds it) but is not forced to disk one by one;
        leaving the block forces everything to disk, so when an import
        command reports success its records are as durable as single moves.
        """
        self._batch = True
        try:
            yield
        except BaseException:
            self._batch = False
            with suppress(SQLAlchemyError, sqlite3.Error):  # the first error is the one to report
                dialects.sync_now(self.engine)
            raise
        self._batch = False
        try:
            dialects.sync_now(self.engine)
        except (SQLAlchemyError, sqlite3.Error) as exc:  # raw driver calls (checkpoint)
            raise conn.driver_error(exc, self.name) from None

    def can_checkpoint(self) -> bool:
        """Whether :meth:`checkpoint` does anything (an SQLite file; PostgreSQL needs none)."""
        return dialects.can_checkpoint(self.engine)

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file, waiting for nobody (SQLite)."""
        try:
            dialects.checkpoint(self.engine)
        except (SQLAlchemyError, sqlite3.Error) as exc:  # a raw driver call
            raise conn.driver_error(exc, self.name) from None

    def close(self) -> None:
        """Release connections."""
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def transaction(self) -> AbstractContextManager[Connection]:
        """A write transaction: the connection is committed when the block ends, or rolled back.

        Driver errors leave it as :class:`StoreError`.
        """
        return conn.transaction(self.engine, self.name, deferred_sync=self._batch)

    def held_connection(self) -> conn.HeldConnection:
        """A connection kept for one thread's write transactions (the server's writer)."""
        return conn.HeldConnection(self.engine, self.name)

    def reading(self) -> AbstractContextManager[Connection]:
        """A connection for reads only (no write lock taken on SQLite)."""
        return conn.reading(self.engine, self.name)

    @staticmethod
    def sqlite_file(target: str | None) -> Path | None:
        """The SQLite file ``target`` (``--db``) names, or None for a server or in memory.

        Raises ArgumentError or ValueError for text that is not a URL, like opening it.
        """
        url = conn.resolve_url(target)
        if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
            return Path(url.database)
        return None

    @staticmethod
    def data_folder() -> Path:
        """The user data folder the default database lives in (created if missing)."""
        folder = conn.default_path().parent
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    # ------------------------------------------------------------------ games

    def new_game(self, seed: str | None = None, player: str | None = None) -> GameSession:
        """Start and store a new game (a random seed if None)."""
        state = GameState.new(seed)
        with self.transaction() as connection:
            game_id = writes.create_game(
                connection, state, player=player, now_ms=now_ms(), digest=reads.log_digest("")
            )
        return GameSession(self, game_id, state, player)

    def _load(self, game_id: int) -> tuple[GameInfo, str, GameState]:
        """A game's row, log and replayed state, checked to agree (:class:`DamagedGameError`)."""
        with self.reading() as connection:
            info = reads.get_game(connection, game_id)
            letters, log_problems = reads.move_log(connection, game_id)
            digest = reads.stored_digest(connection, game_id)
        problems, state = reads.game_problems(info, letters, log_problems, digest)
        if problems or state is None:
            raise DamagedGameError(game_id, problems)
        return info, letters, state

    def open_game(self, game_id: int) -> GameSession:
        """Load a game by replaying its log; refuses a log that disagrees with its projection."""
        info, letters, state = self._load(game_id)
        return GameSession(self, game_id, state, info.player, letters, sealed=info.sealed)

    def resume_latest(self, player: PlayerFilter = ANY_PLAYER) -> GameSession | None:
        """The most recently played unfinished game that is not sealed, loaded, or None.

        ``player``: only that player's games (None: games without a player).
        """
        with self.reading() as connection:
            game_id = reads.latest_unfinished(connection, player)
        return None if game_id is None else self.open_game(game_id)

    def game_info(self, game_id: int) -> GameInfo:
        """One game's row (checked against its log)."""
        return self._load(game_id)[0]

    def moves(self, game_id: int) -> str:
        """One game's move string (checked against its projection)."""
        return self._load(game_id)[1]

    def list_games(
        self,
        *,
        limit: int | None = 20,
        state: GameFilter = "all",
        player: str | None = None,
        seed: str | None = None,
    ) -> list[GameInfo]:
        """Recent games, filtered (see :func:`twenty48_replay.store.reads.list_games`)."""
        with self.reading() as connection:
            return reads.list_games(connection, limit=limit, state=state, player=player, seed=seed)

    def stats(self, player: str | None = None) -> Stats:
        """Totals over the store."""
        with self.reading() as connection:
            return reads.stats(connection, player)

    def best_score(self, player: PlayerFilter = ANY_PLAYER) -> int:
        """The best score in the store, or of ``player``'s games (None: without a player)."""
        with self.reading() as connection:
            return reads.best_score(connection, player)

    # ------------------------------------------------------- fair games' servers

    def remember_server(self, key_id: str, url: str) -> bool:
        """Keep ``url`` as the server that signs with ``key_id`` (see :mod:`.servers`)."""
        with self.transaction() as connection:
            return servers.remember_server(connection, key_id, url)

    def server_urls(self) -> dict[str, str]:
        """Signing key id -> the server URL last used with it."""
        with self.reading() as connection:
            return servers.server_urls(connection)

    def games_from_server(
        self, game_id: servers.ServerGameId, key_id: str | None = None
    ) -> list[int]:
        """Local ids of the kept fair games with this id on their server (and this key)."""
        with self.reading() as connection:
            return servers.games_from_server(connection, game_id, key_id)

    # ------------------------------------------------------- records in and out

    def game_as_record(self, game_id: int) -> Record:
        """A game as a v1 record (claims from the replay, metadata from the row)."""
        return self.game_info_and_record(game_id)[1]

    def game_info_and_record(self, game_id: int) -> tuple[GameInfo, Record]:
        """A game's row and its record, from one checked read."""
        info, letters, state = self._load(game_id)
        if info.extra is not None:
            extra = dict(info.extra)
        else:
            extra = {}
            if info.player is not None:
                extra["player"] = info.player
            started, finished = iso_ms(info.created_ms), iso_ms(info.updated_ms)
            if started is not None:
                extra["started"] = started
            if info.over and finished is not None:
                extra["finished"] = finished
            extra["client"] = CLIENT
            if info.assisted:
                extra["assisted"] = True
        return info, Record(
            seed=info.seed,
            moves=letters,
            score=state.score,
            max_tile=state.max_tile,
            final_board=tuple(tuple(row) for row in state.board.to_rows()),  # type: ignore[misc]
            extra=extra,
        )

    def export_all(self) -> Iterator[Record]:
        """Every game as a record, oldest first (:class:`DamagedGameError` at a damaged one)."""
        for outcome in self.export_each():
            if isinstance(outcome, DamagedGameError):
                raise outcome
            yield outcome

    def export_each(self) -> Iterator[Record | DamagedGameError]:
        """Every game as a record, oldest first; a damaged game as its error, not a record."""
        with self.reading() as connection:
            ids = reads.all_game_ids(connection)
        for game_id in ids:
            try:
                yield self.game_as_record(game_id)
            except DamagedGameError as exc:
                yield exc

    def import_record(self, record: Record, result: VerifyResult | None = None) -> ImportOutcome:
        """Verify a record and store it as a new game, in one transaction.

        ``result`` is the record's verification if the caller already has it
        (batch imports verify in worker processes).  An invalid record raises
        :class:`ImportRejectedError` and nothing is written; an exact duplicate
        (same seed and moves) is skipped and its existing id returned.
        """
        if result is None:
            result = verify(record)
        if not result.valid:
            raise ImportRejectedError(result.reason_codes)
        with self.transaction() as connection:
            game_id, duplicate = writes.import_verified(connection, record, result, now_ms())
        return ImportOutcome(game_id, duplicate)

    # ------------------------------------------------------------------ backup

    def backup(self, target: Path) -> BackupReport:
        """A consistent copy of this SQLite database in ``target``, made while it is in use.

        See :mod:`twenty48_replay.store.backup`; PostgreSQL is refused (pg_dump).
        """
        return sqlite_backup(self.engine, self.name, target)

    # ------------------------------------------------------------------ check

    def check(self, written: Sequence[log_chain.Head] = ()) -> CheckReport:
        """Compare the schema with ours, each game's rows, log and projection, and the file.

        Reads only (open the store with ``read_only=True`` to inspect a
        database that is refused for use); every finding is one line.
        ``written``: log heads written down earlier, which the chains must
        pass through (:func:`~twenty48_replay.store.log_chain.verify`).
        """
        problems: list[str] = []
        games = total_moves = 0
        with self.reading() as connection:
            try:
                values = conn.marker_values(connection)
            except SQLAlchemyError:
                values = {}
            version = conn.schema_version(values)
            known = (*sorted(OLDER), SCHEMA_VERSION)
            if version not in known:
                problems.append(
                    f"schema version {values.get('schema_version')!r} is not one this "
                    f"program knows ({', '.join(map(str, known[:-1]))} or {known[-1]})"
                )
            definition = metadata if version is None else OLDER.get(version, metadata)
            actual = schema.actual(connection)
            problems.extend(
                f"schema: {line}"
                for line in schema.differences(
                    schema.expected(connection, definition, version or SCHEMA_VERSION), actual
                )
            )
            has_digests = (version or 0) >= 2 and ("table", log_digests.name) in actual
            # Rows are read only from real tables: a view named ``games`` or
            # ``moves`` is a query of the file's author, and a recursive one
            # never ends (check hung on such a file).
            not_tables = [
                name for name in (games_table.name, moves.name) if ("table", name) not in actual
            ]
            if not_tables:
                problems.append(
                    f"games not read: not a table in this database: {', '.join(not_tables)}"
                )
            try:
                stored = [] if not_tables else reads.games_to_check(connection, digests=has_digests)
                for game in stored:
                    games += 1
                    total_moves += len(game.letters)
                    found, _ = reads.game_problems(
                        game.info,
                        game.letters,
                        game.log_problems,
                        game.digest,
                        check_digest=has_digests,
                    )
                    problems.extend(f"game {game.info.id}: {line}" for line in found)
            except SQLAlchemyError as exc:
                problems.append(f"cannot read the games: {conn.driver_error(exc, self.name)}")
            chains = None
            if written and version != SCHEMA_VERSION:
                problems.append("no log heads to compare: the schema has no chained logs")
            if version == SCHEMA_VERSION:
                try:
                    chains = log_chain.verify(connection, written)
                    problems.extend(problem.describe() for problem in chains.problems)
                except SQLAlchemyError as exc:
                    problems.append(
                        f"cannot read the chained logs: {conn.driver_error(exc, self.name)}"
                    )
            if version == SCHEMA_VERSION and not not_tables:
                try:
                    problems.extend(
                        f"{line}; derived from the games: rebuild it with "
                        "'twenty48 admin rebuild-bests'"
                        for line in bests.differences(connection)
                    )
                except SQLAlchemyError as exc:
                    problems.append(
                        f"cannot read the players' bests: {conn.driver_error(exc, self.name)}"
                    )
            try:
                problems.extend(
                    f"integrity check: {line}" for line in dialects.integrity_check(connection)
                )
            except SQLAlchemyError as exc:
                problems.append(f"integrity check failed: {conn.driver_error(exc, self.name)}")
        return CheckReport(games, total_moves, tuple(problems), chains)

    def rebuild_bests(self) -> int:
        """Compute every player's best ranked game again from the games (:mod:`.bests`),
        in one transaction; the number of rows (both boards).

        The table is derived data that every write keeps; this mends one that
        ``check`` says disagrees with the games (a restore from a damaged
        copy, rows changed by hand).  On PostgreSQL the table is locked for
        the rebuild, so a game finishing meanwhile waits and then lands.
        """
        with self.transaction() as connection:
            bests.lock_table(connection)
            bests.rebuild(connection)
            return bests.count(connection)

    def chains(self) -> log_chain.ChainReport:
        """Follow the moderation log's and the key history's chains (:mod:`.log_chain`)."""
        with self.reading() as connection:
            return log_chain.verify(connection)

    def require_intact_chains(self) -> log_chain.ChainReport:
        """The chains' heads, or :class:`StoreError` (one line, exit 2) at the first break."""
        report = self.chains()
        if report.problems:
            raise report.problems[0].refusal(self.name)
        return report
