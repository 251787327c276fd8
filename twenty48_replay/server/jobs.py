"""What the writer does for each write request, inside a shared transaction.

Every job reads the game through a :class:`BatchView` (the entries this
batch already changed, else the cache, else the database), does its SQL on
the batch's connection, and returns its answer or raises :class:`ApiError`
without writing anything.  Appends and finishing compare-and-set the game's
projection row; when another process got there first the job reloads the
game from the database (inside the same transaction, so it sees the other
commit) and decides again, which is what makes a retried ``n`` safe on
any worker.
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Any, Protocol

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay import fair
from twenty48_replay.board import Direction
from twenty48_replay.errors import NullMoveError
from twenty48_replay.game import GameState
from twenty48_replay.record import Record
from twenty48_replay.server import entries
from twenty48_replay.server.api_errors import ApiError, conflict, not_found
from twenty48_replay.server.entries import Facts, GameEntry
from twenty48_replay.store import CLIENT, iso_ms, record_times, recorder, repository
from twenty48_replay.store import fair_games as fair_store

#: Reloads a game may need when other processes keep appending to it.
MAX_RELOADS = 8
#: Games whose state the writer keeps in memory.
CACHE_SIZE = 20_000


class Signer(Protocol):
    """What the writer needs of the server key (``signing.ServerKey``)."""

    @property
    def key_id(self) -> str: ...

    def sign_record(self, record_dict: dict[str, Any]) -> dict[str, Any]: ...


class EntryCache:
    """Recently used games, least recently used dropped first (writer thread only)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[int, GameEntry] = OrderedDict()

    def get(self, fair_id: int) -> GameEntry | None:
        entry = self._entries.get(fair_id)
        if entry is not None:
            self._entries.move_to_end(fair_id)
        return entry

    def put(self, entry: GameEntry) -> None:
        self._entries[entry.fair_id] = entry
        self._entries.move_to_end(entry.fair_id)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def drop(self, fair_id: int) -> None:
        self._entries.pop(fair_id, None)


@attrs.define
class BatchView:
    """The games as one batch sees them; its changes reach the cache only after commit."""

    connection: Connection
    cache: EntryCache
    signer: Signer
    now_ms: int
    #: Batch the appends into two statements at :meth:`flush` (the fast path);
    #: False runs each append at once (the path after a conflict).
    deferred: bool = False
    changed: dict[int, GameEntry] = attrs.field(factory=dict)
    appends: list[fair_store.Append] = attrs.field(factory=list)
    _pending: set[int] = attrs.field(factory=set)

    def append(
        self, game_id: int, letters: str, letter: str, after: GameState, facts: Facts
    ) -> bool:
        """Append ``letter`` to the log ``letters`` (now, or at the next flush).

        False if the game moved on.
        """
        expected = len(letters)
        before = repository.log_digest(letters)
        digests = (before, repository.log_digest(letters + letter))
        if not self.deferred:
            return fair_store.append_move(
                self.connection, game_id, expected, letter, after, self.now_ms, digests
            )
        if game_id in self._pending:
            self.flush()
        self._pending.add(game_id)
        self.appends.append(
            fair_store.Append(
                game_id=game_id,
                expected_moves=expected,
                letter=letter,
                moves=after.moves,
                score=after.score,
                max_tile=facts.max_tile,
                board=f"{after.board.packed:020x}",
                won=facts.won,
                over=facts.over,
                now_ms=self.now_ms,
                digest_before=digests[0],
                digest_after=digests[1],
            )
        )
        return True

    def flush(self) -> None:
        """Write the deferred appends; :class:`BatchConflict` if any game had moved on."""
        if not self.appends:
            return
        appends, self.appends = self.appends, []
        self._pending.clear()
        if not fair_store.append_many(self.connection, appends):
            raise BatchConflictError

    def get(self, fair_id: int, *, fresh: bool = False) -> GameEntry:
        """The game as this batch sees it; ``fresh``: as the database has it now."""
        if not fresh:
            entry = self.changed.get(fair_id) or self.cache.get(fair_id)
            if entry is not None:
                return entry
        else:
            self.flush()  # the database must hold this batch's own appends first
        entry = entries.load_entry(self.connection, fair_id)
        if entry is None:
            raise not_found(fair_id)
        self.changed[fair_id] = entry
        return entry

    def put(self, entry: GameEntry) -> None:
        self.changed[entry.fair_id] = entry

    def commit(self) -> None:
        for entry in self.changed.values():
            self.cache.put(entry)

    def discard(self) -> None:
        """After a failed transaction: forget what this batch loaded or changed."""
        for fair_id in self.changed:
            self.cache.drop(fair_id)


class BatchConflictError(Exception):
    """A deferred append found its game changed: roll back, run the batch move by move."""


class Job(Protocol):
    """One write request; ``order`` sorts a batch so every process locks rows in one order."""

    @property
    def order(self) -> int: ...

    def run(self, view: BatchView) -> dict[str, Any]: ...


def authorize(entry: GameEntry, token: str) -> None:
    """403 unless ``token`` is the game's (constant-time)."""
    if not entries.token_matches(token, entry.row.token_hash):
        raise ApiError(403, "wrong token for this game")


@attrs.frozen
class CreateGame:
    """``POST /api/games``: draw and commit the server seed."""

    player: str
    order: int = 0

    def run(self, view: BatchView) -> dict[str, Any]:
        token = secrets.token_urlsafe(32)
        server_seed = fair.new_server_seed()
        commitment = fair.commitment(server_seed)
        fair_id = fair_store.create(
            view.connection,
            player=self.player,
            token_hash=entries.token_hash(token),
            server_seed=server_seed,
            commitment=commitment,
            key_id=view.signer.key_id,
            now_ms=view.now_ms,
        )
        return {"id": fair_id, "token": token, "commitment": commitment}


@attrs.frozen
class StartGame:
    """``POST /api/games/{id}/start``: the client seed fixes the game seed."""

    fair_id: int
    token: str
    client_seed: str

    @property
    def order(self) -> int:
        return self.fair_id

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        entry = view.get(self.fair_id)
        authorize(entry, self.token)
        for _ in range(MAX_RELOADS):
            if entry.state is not None or entry.finished:
                raise conflict("the game was already started")
            seed = fair.game_seed(entry.row.server_seed, self.client_seed)
            state = GameState.new(seed)
            game_id = fair_store.start(
                view.connection, self.fair_id, self.client_seed, state, view.now_ms
            )
            if game_id is not None:
                row = attrs.evolve(
                    entry.row,
                    client_seed=self.client_seed,
                    game_id=game_id,
                    started_ms=view.now_ms,
                )
                view.put(GameEntry(row, state, "", finished=False))
                return {"id": self.fair_id, **entries.state_answer(state)}
            entry = view.get(self.fair_id, fresh=True)
        raise conflict("the game is changing too fast; try again")


@attrs.frozen
class PlayMove:
    """``POST /api/games/{id}/moves``: move number ``n``, idempotent per ``n``."""

    fair_id: int
    token: str
    n: int
    letter: str

    @property
    def order(self) -> int:
        return self.fair_id

    def run(self, view: BatchView) -> dict[str, Any]:
        entry = view.get(self.fair_id)
        authorize(entry, self.token)
        fresh = False
        for _ in range(MAX_RELOADS):
            answer = self._attempt(view, entry, fresh=fresh)
            if answer is not None:
                return answer
            entry = view.get(self.fair_id, fresh=True)
            fresh = True
        raise conflict("the game is changing too fast; try again")

    def _attempt(self, view: BatchView, entry: GameEntry, *, fresh: bool) -> dict[str, Any] | None:
        """The answer, or None when the database had moved on (reload and decide again).

        A refusal that another process could have made stale (not started,
        ``n`` ahead of the cached game) is given only after reading the game
        afresh: with several workers, this one's cache may lag.
        """
        state = entry.state
        if state is None:
            if not fresh:
                return None
            raise conflict("the game is not started yet")
        if self.n <= state.moves:
            played = entry.letters[self.n - 1]
            if played != self.letter:
                raise conflict(f"move {self.n} was already played, as {played}")
            return entries.replayed_answer(entry, self.n)
        if entry.finished:
            raise conflict("the game is finished")
        if self.n != state.moves + 1:
            if not fresh:
                return None
            raise conflict(f"the next move is n = {state.moves + 1}, not {self.n}")
        try:
            after, gained, spawn = state.play(Direction(self.letter))
        except NullMoveError as exc:
            raise ApiError(422, str(exc)) from None
        facts = Facts.of(after)
        if not view.append(entry.row.game_id or 0, entry.letters, self.letter, after, facts):
            return None
        entry = attrs.evolve(entry, state=after, letters=entry.letters + self.letter)
        if facts.over:
            done = finish_entry(view, entry)
            if done is None:
                return None
            entry = done
        view.put(entry)
        return entries.move_answer(
            self.fair_id, self.letter, after, gained, spawn, finished=entry.finished, facts=facts
        )


@attrs.frozen
class FinishGame:
    """``POST /api/games/{id}/finish``: sign the record and reveal the server seed."""

    fair_id: int
    token: str

    @property
    def order(self) -> int:
        return self.fair_id

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        entry = view.get(self.fair_id)
        authorize(entry, self.token)
        fresh = False
        for _ in range(MAX_RELOADS):
            if entry.finished:
                return finished_answer(entry)
            if entry.state is None:
                if fresh:
                    raise conflict("the game is not started yet")
                entry, fresh = view.get(self.fair_id, fresh=True), True
                continue
            done = finish_entry(view, entry)
            if done is not None:
                view.put(done)
                return finished_answer(done)
            entry, fresh = view.get(self.fair_id, fresh=True), True
        raise conflict("the game is changing too fast; try again")


def finished_answer(entry: GameEntry) -> dict[str, Any]:
    """The answer to finishing: the revealed seeds and where the record is."""
    assert entry.state is not None
    return {
        "id": entry.fair_id,
        **entries.state_answer(entry.state),
        "finished": True,
        "server_seed": entry.row.server_seed,
        "client_seed": entry.row.client_seed,
        "commitment": entry.row.commitment,
        "record_url": entries.record_url(entry.fair_id),
    }


#: Top-level keys of a v1 record that are not metadata.
_CORE = frozenset(("format", "version", "seed", "moves", "score", "max_tile", "final_board"))


def signed_record(entry: GameEntry, signer: Signer, now_ms: int) -> dict[str, Any]:
    """The finished game as a signed v1 record with its ``fair`` object."""
    state = entry.state
    row = entry.row
    assert state is not None
    assert row.client_seed is not None
    assert row.started_ms is not None
    info = fair.FairInfo(
        commitment=row.commitment,
        server_seed=row.server_seed,
        client_seed=row.client_seed,
        key_id=signer.key_id,
        game_id=row.id,
        started=_iso(row.started_ms),
        ended=_iso(now_ms),
    )
    record = Record(
        seed=state.seed,
        moves=entry.letters,
        score=state.score,
        max_tile=state.max_tile,
        final_board=tuple(tuple(r) for r in state.board.to_rows()),  # type: ignore[misc]
        extra={
            "player": row.player,
            "started": _iso(row.started_ms),
            "finished": _iso(now_ms),
            "client": CLIENT,
            "fair": info.to_dict(),
        },
    )
    return signer.sign_record(record.to_dict())


def _iso(ms: int) -> str:
    """A server clock reading as RFC 3339 (always within a datetime's range)."""
    text = iso_ms(ms)
    assert text is not None
    return text


def finish_entry(view: BatchView, entry: GameEntry) -> GameEntry | None:
    """Sign and store the record of ``entry``; None if the game changed meanwhile."""
    assert entry.state is not None
    assert entry.row.game_id is not None
    view.flush()
    record = signed_record(entry, view.signer, view.now_ms)
    extra = {key: value for key, value in record.items() if key not in _CORE}
    if not fair_store.finish(
        view.connection,
        entry.fair_id,
        entry.row.game_id,
        entry.state.moves,
        record,
        extra,
        view.now_ms,
    ):
        return None
    row = attrs.evolve(entry.row, finished_ms=view.now_ms)
    return attrs.evolve(entry, row=row, finished=True)


@attrs.frozen
class SubmitRecord:
    """``POST /api/records``: store a verified self-seeded record and list it apart."""

    record: Record
    board: Any  # the verified final board (twenty48_replay.board.Board)
    score: int

    @property
    def order(self) -> int:
        return 0

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        connection = view.connection
        game_id = repository.find_duplicate(connection, self.record.seed, self.record.moves)
        duplicate = game_id is not None
        if game_id is None:
            state = GameState(self.record.seed, self.board, self.score, len(self.record.moves))
            extra = self.record.extra
            started, finished = record_times(extra)
            game_id = recorder.create_game(
                connection,
                state,
                player=self.record.player,
                now_ms=view.now_ms,
                created_ms=started,
                updated_ms=finished,
                assisted=extra.get("assisted") is True,
                extra=extra,
                digest=repository.log_digest(self.record.moves),
            )
            recorder.insert_moves(connection, game_id, self.record.moves)
        fair_store.mark_submitted(connection, game_id, view.now_ms)
        return {
            "id": game_id,
            "duplicate": duplicate,
            "self_seeded": True,
            "score": self.score,
            "moves": len(self.record.moves),
        }
