"""What the writer does for each write request, inside a shared transaction.

Each job (one per kind of request) reads the game through the batch's
:class:`~twenty48_replay.server.writes.batch_view.BatchView`, does its SQL on the
batch's connection, and returns its answer or raises :class:`ApiError`
without writing anything.  Appends and finishing compare-and-set the game's
projection row; when another process got there first the job reloads the
game from the database (inside the same transaction, so it sees the other
commit) and decides again, which is what makes a retried ``n`` safe on
any worker.
"""

from __future__ import annotations

import secrets
from typing import Any

import attrs

from twenty48_replay.core import fair
from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import GameState
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import VerifyResult
from twenty48_replay.fairplay.names import name_key
from twenty48_replay.server.api_errors import ApiError, conflict
from twenty48_replay.server.guard import quotas
from twenty48_replay.server.writes import answers
from twenty48_replay.server.writes.batch_view import BatchView, Signer
from twenty48_replay.server.writes.live_games import Facts, GameEntry
from twenty48_replay.server.writes.tokens import token_hash, token_matches
from twenty48_replay.store import fair_games as fair_store
from twenty48_replay.store import players as player_store

#: Reloads a game may need when other processes keep appending to it.
MAX_RELOADS = 8


def expired(fair_id: int) -> ApiError:
    """404 for a game that was never started in time (removed, or about to be)."""
    return ApiError(404, Reason("server.expired", {"id": fair_id}))


def authorize(entry: GameEntry, token: str) -> None:
    """403 unless ``token`` is the game's (constant-time)."""
    if not token_matches(token, entry.row.token_hash):
        raise ApiError(403, Reason("server.wrong_token"))


@attrs.frozen
class RegisterPlayer:
    """``POST /api/players``: a name that from now on only its secret's holder can play.

    The answer is the only place the secret ever appears; the database
    keeps its SHA-256.  A name whose key (its confusable skeleton) is
    registered already is refused with 409, a banned one with 403.
    Charged to the client's address (``register-name``).
    """

    name: str
    address: str | None = None
    order: int = 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        if self.address is None:
            return None
        return view.limits.charge(quotas.REGISTER_NAME, self.address)

    def run(self, view: BatchView) -> dict[str, Any]:
        key = name_key(self.name)
        if player_store.is_banned_lookalike(view.connection, self.name):
            raise ApiError(403, Reason("server.name_banned"))
        secret = secrets.token_urlsafe(32)
        player_id = player_store.register(
            view.connection, self.name, key, token_hash(secret), view.now_ms
        )
        if player_id is None:
            raise conflict(Reason("server.name_taken"))
        return {"name": self.name, "secret": secret}


def _registered_name(view: BatchView, name: str, secret: str | None) -> bool:
    """Whether a new game's name is registered (its secret was given); else the refusal.

    A registered name needs its secret (401 without one, 403 with another);
    a look-alike of a registered name (one that shares a claimed key with
    it, :func:`~twenty48_replay.fairplay.names.claim_keys`, in another spelling) is
    refused with 409, secret or not; a banned name, or a look-alike of one,
    gets 403, and a secret for a name nobody registered 403.
    """
    if player_store.is_banned_lookalike(view.connection, name):
        raise ApiError(403, Reason("server.name_banned"))
    claimants = player_store.claimants(view.connection, name)
    if not claimants:
        if secret is not None:
            raise ApiError(403, Reason("server.name_not_registered"))
        return False
    owner = claimants[0]
    if len(claimants) > 1 or owner.name != name:
        raise conflict(Reason("server.name_lookalike"))
    if secret is None:
        raise ApiError(401, Reason("server.name_needs_secret"))
    if not token_matches(secret, owner.secret_hash):
        raise ApiError(403, Reason("server.name_wrong_secret"))
    return True


@attrs.frozen
class CreateGame:
    """``POST /api/games``: draw and commit the server seed (charged to the client's address).

    ``secret``: the bearer secret of a registered name, if one was sent.
    """

    player: str
    secret: str | None = attrs.field(default=None, repr=False)
    address: str | None = None
    order: int = 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        if self.address is None:
            return None
        return view.limits.charge(quotas.CREATE_GAME, self.address)

    def run(self, view: BatchView) -> dict[str, Any]:
        registered = _registered_name(view, self.player, self.secret)
        token = secrets.token_urlsafe(32)
        server_seed = fair.new_server_seed()
        commitment = fair.commitment(server_seed)
        fair_id = fair_store.create(
            view.connection,
            player=self.player,
            registered=registered,
            token_hash=token_hash(token),
            server_seed=server_seed,
            commitment=commitment,
            key_id=view.signer.key_id,
            now_ms=view.now_ms,
        )
        answer = {"id": fair_id, "token": token, "commitment": commitment}
        return {**answer, "registered": registered}


@attrs.frozen
class StartGame:
    """``POST /api/games/{id}/start``: the client seed fixes the game seed.

    A game made before ``made_after_ms`` and never started has expired: it is
    gone (404) even before the sweeper removes its row.
    """

    fair_id: int
    token: str
    client_seed: str
    made_after_ms: int = 0

    @property
    def order(self) -> int:
        return self.fair_id

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        entry = view.get(self.fair_id)
        if entry.state is None and entry.row.created_ms < self.made_after_ms:
            raise expired(self.fair_id)
        authorize(entry, self.token)
        for _ in range(MAX_RELOADS):
            if entry.state is not None or entry.finished:
                raise conflict(Reason("server.already_started"))
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
                return {"id": self.fair_id, **answers.state_answer(state)}
            entry = view.get(self.fair_id, fresh=True)
        raise conflict(Reason("server.too_fast"))


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

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        """Moves are limited per game, and charged only with the game's token."""
        limit = view.limits.get(quotas.MOVE)
        if limit is None:
            return None
        authorize(view.get(self.fair_id), self.token)
        return limit.charge(str(self.fair_id))

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
        raise conflict(Reason("server.too_fast"))

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
            raise conflict(Reason("server.not_started"))
        if self.n <= state.moves:
            played = entry.letters[self.n - 1]
            if played != self.letter:
                raise conflict(Reason("server.move_played", {"n": self.n, "played": played}))
            if not entry.complete:  # kept states missing (a game the sweeper finished)
                entry = entry.with_checkpoints()
                view.put(entry)
            return answers.replayed_answer(entry, self.n)
        if entry.finished:
            raise conflict(Reason("server.finished"))
        if self.n != state.moves + 1:
            if not fresh:
                return None
            raise conflict(Reason("server.next_move", {"next": state.moves + 1, "n": self.n}))
        try:
            after, gained, spawn = state.play(Direction(self.letter))
        except NullMoveError as exc:
            raise ApiError(422, str(exc)) from None
        facts = Facts.of(after)
        if facts.over:
            view.check_signer()  # the last move signs the record: refuse before writing
        if not view.append(entry.row.game_id or 0, entry.letters, self.letter, after, facts):
            return None
        entry = entry.played(self.letter, after)
        if facts.over:
            done = finish_entry(view, entry)
            if done is None:
                return None
            entry = done
        view.put(entry)
        return answers.move_answer(
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

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

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
                    raise conflict(Reason("server.not_started"))
                entry, fresh = view.get(self.fair_id, fresh=True), True
                continue
            view.check_signer()
            done = finish_entry(view, entry)
            if done is not None:
                view.put(done)
                return finished_answer(done)
            entry, fresh = view.get(self.fair_id, fresh=True), True
        raise conflict(Reason("server.too_fast"))


def finished_answer(entry: GameEntry) -> dict[str, Any]:
    """The answer to finishing: the revealed seeds and where the record is."""
    assert entry.state is not None
    return {
        "id": entry.fair_id,
        **answers.state_answer(entry.state),
        "finished": True,
        "abandoned": entry.abandoned,
        "server_seed": entry.row.server_seed,
        "client_seed": entry.row.client_seed,
        "commitment": entry.row.commitment,
        "record_url": answers.record_url(entry.fair_id),
    }


#: Top-level keys of a v1 record that are not metadata.
_CORE = frozenset(("format", "version", "seed", "moves", "score", "max_tile", "final_board"))


def signed_record(
    entry: GameEntry, signer: Signer, now_ms: int, *, abandoned: bool = False
) -> dict[str, Any]:
    """The finished game as a signed v1 record with its ``fair`` object.

    ``abandoned``: the server ends it because nobody played it; the record
    says so (``"abandoned": true``, signed with the rest).
    """
    assert entry.state is not None
    record = fair_store.fair_record(entry.row, entry.state, entry.letters, signer.key_id, now_ms)
    document = record.to_dict()
    if abandoned:
        document["abandoned"] = True
    return signer.sign_record(document)


def finish_entry(view: BatchView, entry: GameEntry, *, abandoned: bool = False) -> GameEntry | None:
    """Sign and store the record of ``entry``; None if the game changed meanwhile."""
    assert entry.state is not None
    assert entry.row.game_id is not None
    view.flush()
    record = signed_record(entry, view.signer, view.now_ms, abandoned=abandoned)
    extra = {key: value for key, value in record.items() if key not in _CORE}
    if not fair_store.finish(
        view.connection,
        entry.fair_id,
        entry.row.game_id,
        entry.state.moves,
        record,
        extra,
        view.now_ms,
        abandoned=abandoned,
    ):
        return None
    row = attrs.evolve(entry.row, finished_ms=view.now_ms)
    return attrs.evolve(entry, row=row, finished=True)


@attrs.frozen
class SubmitRecord:
    """``POST /api/records``: store a verified self-seeded record and list it apart."""

    record: Record
    result: VerifyResult  # its verification (valid)

    @property
    def order(self) -> int:
        return 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None  # charged before the record was read (TakeToken)

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        game_id, duplicate = fair_store.submit_record(
            view.connection, self.record, self.result, view.now_ms
        )
        return {
            "id": game_id,
            "duplicate": duplicate,
            "self_seeded": True,
            "score": self.result.score,
            "moves": len(self.record.moves),
        }


@attrs.frozen
class Ping:
    """``GET /readyz``: a write transaction that writes nothing, through the writer's queue.

    Its answer means the writer thread takes jobs, the database starts a
    write transaction and answers a query, and this process's key is still
    the one in use.
    """

    @property
    def order(self) -> int:
        return 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

    def run(self, view: BatchView) -> dict[str, Any]:
        view.check_signer()
        return {}


# ------------------------------------------------------ quotas and expiry


@attrs.frozen
class TakeToken:
    """A rate-limit charge alone, before work the writer does not do.

    A record is charged before it is read and checked (the expensive part),
    a name before it is registered: the job commits the charge, or is the
    429 (see :meth:`Server.charge`).
    """

    charge: fair_store.Charge
    order: int = 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return self.charge

    def run(self, view: BatchView) -> dict[str, Any]:
        return {}


@attrs.frozen
class ClaimLease:
    """Take or renew a lease for this process (the sweeper: one per database)."""

    name: str
    holder: str
    duration_ms: int
    order: int = 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

    def run(self, view: BatchView) -> dict[str, Any]:
        held = fair_store.claim_lease(
            view.connection, self.name, self.holder, view.now_ms, self.duration_ms
        )
        return {"held": held}


@attrs.frozen
class ExpireUnstarted:
    """Remove games never started and created before ``created_before_ms`` (at most ``limit``)."""

    created_before_ms: int
    limit: int
    order: int = 0

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

    def run(self, view: BatchView) -> dict[str, Any]:
        removed = fair_store.expire_unstarted(view.connection, self.created_before_ms, self.limit)
        for fair_id in removed:
            view.forget(fair_id)
        stale = fair_store.sweep_rate_limits(view.connection, view.now_ms, self.limit)
        return {"removed": removed, "rate_limits_swept": stale}


@attrs.frozen
class AbandonGame:
    """Finish a game nobody played for too long: signed, labelled abandoned, never ranked.

    ``known`` is the game as the sweeper read it (its projection and log);
    the game is abandoned only if it still has the ``idle.moves`` moves it
    had when it was found idle, so a move that came meanwhile keeps it alive.
    """

    idle: fair_store.IdleGame
    known: GameEntry

    @property
    def order(self) -> int:
        return self.idle.fair_id

    def quota(self, view: BatchView) -> fair_store.Charge | None:
        return None

    def run(self, view: BatchView) -> dict[str, Any]:
        view.flush()
        entry = view.get(self.idle.fair_id, fresh=True, hint=self.known)
        if entry.finished or entry.state is None or entry.moves != self.idle.moves:
            return {"abandoned": False}
        done = finish_entry(view, entry, abandoned=True)
        if done is None:
            return {"abandoned": False}
        fair_store.mark_abandoned(
            view.connection, entry.fair_id, view.now_ms, self.idle.last_move_ms
        )
        view.put(attrs.evolve(done, row=attrs.evolve(done.row, abandoned=True)))
        return {"abandoned": True}
