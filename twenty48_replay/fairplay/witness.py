"""What a fair-play client was shown, checked against the rules as each answer arrives.

A fair game is fair only if the player need not trust the server.  The
server sends every board; a client that showed those boards unchecked
could be shown the tiles of another seed all game, or told "game over" on
a nearly empty board, and would still print "signature checked" at the
end.  :class:`Witness` is the client's memory and judge:

* **The shape of each answer** (types, a 4x4 board of tiles, a 64
  lowercase hex commitment, a token that fits in a header).  An answer of
  the wrong shape is unusable: :class:`ServerAnswerError`, exit 2.
* **The rules, answer by answer.**  The opening is two tiles of 2 or 4 on
  an empty board at score 0.  After move ``n`` the board is the slide of
  the board before plus exactly one new 2 or 4 on a cell the slide left
  empty; the score rises by the points of the slide; ``won``, ``over``
  and ``max_tile`` are what the board says; the move number and letter
  are the ones sent.  The reveal's server seed hashes to the commitment.
  A broken rule is :class:`UnfairServerError` (exit 1), carrying the
  evidence: every answer received, in order (:meth:`Witness.evidence`).
* **The signed record at the end**, replayed and compared with what was
  shown: its player, moves and score with what was played, every board
  and spawn with every answer, its ``fair`` object with the commitment,
  client seed and revealed seed, and then every check of ``verify``
  (commitment, seed derivation, signature by the server's key).

Messages are reasons with codes (:class:`twenty48_replay.core.reasons.Reason`,
the ``witness.*`` codes of schema/SPEC.md 8.8), so the command line shows
them in the chosen language while the evidence keeps the English words and
the code (``verdict_code``).
This module knows nothing of HTTP: :mod:`twenty48_replay.fairplay.client` feeds it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any, ClassVar, Final

import attrs

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import EXIT_FAILED, EXIT_UNUSABLE, RecordError, Twenty48Error
from twenty48_replay.core.game import WIN_TILE, Spawn
from twenty48_replay.core.i18n import _
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import MAX_INTEGER, Record, dumps_value

#: The evidence document's format name and version (``twenty48 evidence ID`` prints it).
EVIDENCE_FORMAT: Final = "twenty48-fair-evidence"
EVIDENCE_VERSION: Final = 1
#: A bearer token is visible ASCII (it goes into a header) of at most this many characters.
MAX_TOKEN_LENGTH: Final = 512
#: Server text quoted in a message is cut to this many characters.
QUOTE_LENGTH: Final = 40
_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_TOKEN: Final = re.compile(f"[!-~]{{1,{MAX_TOKEN_LENGTH}}}")

Translate = Callable[[str], str]


def _identity(text: str) -> str:
    return text


class ServerAnswerError(Twenty48Error):
    """An answer of the wrong shape (not an object, a missing field, a board not 4x4): exit 2.

    Nothing in such an answer can be judged by the rules, so the game
    cannot go on; the exit code is that of any unusable input.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, where: Reason, problem: Reason) -> None:
        self.where = where
        self.problem = problem
        super().__init__(self._text(_identity))

    def _text(self, tr: Translate) -> str:
        return Reason("witness.unusable", {"where": self.where, "problem": self.problem}).render(tr)

    def translated(self) -> str:
        return self._text(_)


class UnfairServerError(Twenty48Error):
    """The server broke a rule of the game or of fair play (exit 1), with the evidence.

    ``where`` names the answer (the opening, move ``n``, the reveal, the
    signed record), ``rule`` says what it broke, ``move`` is the move
    number when there is one, and ``evidence`` is the document to keep
    (:meth:`Witness.evidence`).
    """

    exit_code: ClassVar[int] = EXIT_FAILED

    def __init__(
        self, where: Reason, rule: Reason, move: int | None, evidence: dict[str, Any]
    ) -> None:
        self.where = where
        self.rule = rule
        self.move = move
        self.evidence = evidence
        super().__init__(self._text(_identity))

    def _text(self, tr: Translate) -> str:
        return Reason(
            "witness.broken",
            {"where": self.where, "rule": self.rule},
        ).render(tr)

    @property
    def code(self) -> Reason:
        """The broken rule as a code: ``witness.broken`` with ``where`` and ``rule``."""
        return Reason("witness.broken", {"where": self.where, "rule": self.rule})

    def translated(self) -> str:
        return self._text(_)


# ---------------------------------------------------------------- where
# Which answer a message is about: the subject of "... breaks the rules" / "... is unusable".


def where_new_game() -> Reason:
    return Reason("witness.where.new_game")


def where_opening() -> Reason:
    return Reason("witness.where.opening")


def where_move(n: int, letter: str) -> Reason:
    return Reason("witness.where.move", {"n": n, "letter": letter})


def where_reveal() -> Reason:
    return Reason("witness.where.reveal")


def where_record() -> Reason:
    return Reason("witness.where.record")


def quoted(value: object) -> str:
    """A value from the server for a message: its JSON text, cut short."""
    try:
        text = dumps_value(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= QUOTE_LENGTH else text[: QUOTE_LENGTH - 3] + "..."


def cell_name(cell: int) -> Reason:
    return Reason("witness.cell", {"row": cell // 4 + 1, "column": cell % 4 + 1})


# ---------------------------------------------------------------- shapes


class _Shape:
    """Reads the fields of one answer, raising :class:`ServerAnswerError` naming ``where``."""

    def __init__(self, answer: object, where: Reason) -> None:
        self.where = where
        if not isinstance(answer, dict):
            raise ServerAnswerError(
                where, Reason("witness.shape.not_object", {"value": quoted(answer)})
            )
        self.answer: dict[str, Any] = answer

    def fail(self, key: str, wanted: Reason) -> ServerAnswerError:
        value = self.answer[key]
        return ServerAnswerError(
            self.where,
            Reason(
                "witness.shape.field",
                {"field": key, "value": quoted(value), "wanted": wanted},
            ),
        )

    def get(self, key: str) -> Any:
        if key not in self.answer:
            raise ServerAnswerError(self.where, Reason("witness.shape.missing", {"field": key}))
        return self.answer[key]

    def integer(self, key: str, low: int = 0, high: int = MAX_INTEGER) -> int:
        value = self.get(key)
        if type(value) is not int or not low <= value <= high:
            raise self.fail(key, Reason("witness.shape.integer", {"low": low, "high": high}))
        return value

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if type(value) is not bool:
            raise self.fail(key, Reason("witness.shape.flag"))
        return value

    def text(self, key: str, pattern: re.Pattern[str], wanted: Reason) -> str:
        value = self.get(key)
        if not isinstance(value, str) or pattern.fullmatch(value) is None:
            raise self.fail(key, wanted)
        return value

    def hex64(self, key: str) -> str:
        return self.text(key, _HEX64, Reason("witness.shape.hex64"))

    def position(self) -> tuple[Board, int, int]:
        """``board``, ``score`` and ``moves``, in that order."""
        return self.board(), self.integer("score"), self.integer("moves")

    def board(self, key: str = "board") -> Board:
        value = self.get(key)
        wanted = Reason("witness.shape.board")
        if not (
            isinstance(value, list)
            and len(value) == 4
            and all(
                isinstance(row, list) and len(row) == 4 and all(type(cell) is int for cell in row)
                for row in value
            )
        ):
            raise self.fail(key, wanted)
        try:
            return Board.from_rows(value)
        except ValueError:
            raise self.fail(key, wanted) from None


# ---------------------------------------------------------------- what was shown


@attrs.frozen(slots=True)
class Shown:
    """One position the player was shown: after ``moves`` moves (0: the opening)."""

    board: Board
    score: int
    moves: int
    letter: str | None = None
    spawn: Spawn | None = None

    @property
    def over(self) -> bool:
        return self.board.is_over()

    @property
    def won(self) -> bool:
        return self.board.max_tile >= WIN_TILE


@attrs.define
class Exchange:
    """One answer received: the request it answered (never the token), status and JSON."""

    request: str
    sent: Any
    status: int
    answer: Any

    def to_json(self) -> dict[str, Any]:
        return {
            "request": self.request,
            "sent": self.sent,
            "status": self.status,
            "answer": self.answer,
        }


def _token_digest(token: object) -> object:
    if isinstance(token, str):
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()
        return "sha256:" + digest
    return token


class Witness:
    """Every answer of one fair game, checked as it arrives; the evidence if one lies."""

    def __init__(self, server: str, player: str, client_seed: str) -> None:
        self.server = server
        self.player = player
        self.client_seed = client_seed
        self.game_id: int | None = None
        self.commitment: str | None = None
        self.server_seed: str | None = None
        #: Every answer received, in order (the token replaced by its SHA-256).
        self.exchanges: list[Exchange] = []
        #: What the player was shown: the opening, then the position after each move.
        self.shown: list[Shown] = []
        #: Set once a rule is found broken: the game takes nothing more.
        self.verdict: UnfairServerError | None = None

    # ------------------------------------------------------------------ evidence

    def received(self, request: str, sent: Any, status: int, answer: Any) -> None:
        """Log one answer as it arrived (called by the client for every JSON answer)."""
        if isinstance(answer, dict) and "token" in answer:
            answer = {**answer, "token": _token_digest(answer["token"])}
        self.exchanges.append(Exchange(request, sent, status, answer))

    @property
    def letters(self) -> str:
        """The moves played, as the answers confirmed them."""
        return "".join(shown.letter or "" for shown in self.shown[1:])

    @property
    def last(self) -> Shown:
        return self.shown[-1]

    def evidence(
        self, verdict: str | None = None, verdict_code: Reason | None = None
    ) -> dict[str, Any]:
        """The document a broken rule leaves behind: who, where, what was sent, every answer.

        ``verdict`` is the broken rule in English words, ``verdict_code`` the same as a
        code with parameters (SPEC 8.8), from which a person reads it in any language.
        """
        return {
            "format": EVIDENCE_FORMAT,
            "version": EVIDENCE_VERSION,
            "server": self.server,
            "game_id": self.game_id,
            "player": self.player,
            "client_seed": self.client_seed,
            "commitment": self.commitment,
            "moves": self.letters,
            "verdict": verdict,
            "verdict_code": None if verdict_code is None else verdict_code.to_json(),
            "answers": [exchange.to_json() for exchange in self.exchanges],
        }

    def broken(self, where: Reason, rule: Reason, move: int | None = None) -> UnfairServerError:
        """The error for a broken rule (kept as :attr:`verdict`), with the evidence so far."""
        error = UnfairServerError(where, rule, move, {})
        error.evidence = self.evidence(str(error), error.code)
        self.verdict = error
        return error

    # ------------------------------------------------------------------ the new game

    def created(self, answer: object) -> tuple[int, str, str]:
        """A new game's ``(id, token, commitment)``; the commitment is checked as it arrives."""
        shape = _Shape(answer, where_new_game())
        commitment = shape.hex64("commitment")
        game_id = shape.integer("id")
        token = shape.text(
            "token",
            _TOKEN,
            Reason("witness.shape.token", {"limit": MAX_TOKEN_LENGTH}),
        )
        self.game_id, self.commitment = game_id, commitment
        return game_id, token, commitment

    def opened(self, answer: object) -> Shown:
        """Check the opening: two tiles of 2 or 4 on an empty board, score 0, move 0."""
        where = where_opening()
        shape = _Shape(answer, where)
        board, score, moves = shape.position()
        self._same_game(shape, where, None)
        if moves != 0:
            raise self.broken(
                where,
                Reason("witness.opening.number", {"got": moves}),
            )
        if score != 0:
            raise self.broken(where, Reason("witness.opening.score", {"got": score}))
        tiles = [value for value in board.cells() if value]
        if len(tiles) != 2:
            raise self.broken(
                where,
                Reason("witness.opening.tiles", {"count": len(tiles)}),
            )
        odd = [value for value in tiles if value not in (2, 4)]
        if odd:
            raise self.broken(
                where,
                Reason("witness.opening.tile_value", {"value": odd[0]}),
            )
        shown = Shown(board, 0, 0)
        self._flags(shape, where, shown, None)
        self.shown = [shown]
        return shown

    def _same_game(self, shape: _Shape, where: Reason, move: int | None) -> None:
        if "id" in shape.answer:
            got = shape.integer("id")
            if got != self.game_id:
                raise self.broken(
                    where,
                    Reason(
                        "witness.game",
                        {"got": got, "id": self.game_id},
                    ),
                    move,
                )

    def _flags(self, shape: _Shape, where: Reason, shown: Shown, move: int | None) -> None:
        """``max_tile``, ``won`` and ``over`` are what the board says."""
        max_tile = shape.integer("max_tile")
        if max_tile != shown.board.max_tile:
            raise self.broken(
                where,
                Reason(
                    "witness.max_tile",
                    {"got": max_tile, "real": shown.board.max_tile},
                ),
                move,
            )
        if shape.flag("won") != shown.won:
            rule = "witness.won" if not shown.won else "witness.not_won"
            raise self.broken(where, Reason(rule), move)
        if shape.flag("over") != shown.over:
            rule = "witness.over" if not shown.over else "witness.not_over"
            raise self.broken(where, Reason(rule), move)

    # ------------------------------------------------------------------ moves

    def refused(self, n: int, letter: str, reason: str) -> UnfairServerError:
        """The server refused (422) a move that changes the board: a broken rule."""
        return self.broken(
            where_move(n, letter),
            Reason(
                "witness.move.refused",
                {"reason": reason[:200]},
            ),
            n,
        )

    def moved(self, n: int, letter: str, answer: object) -> tuple[Shown, int, bool]:
        """Check the answer to move ``n``; returns what to show, the points gained, finished."""
        where = where_move(n, letter)
        before = self.last
        shape = _Shape(answer, where)
        board = shape.board()
        got_n = shape.integer("n")
        got_moves = shape.integer("moves")
        score = shape.integer("score")
        gained = shape.integer("gained")
        move = shape.get("move")
        spawn_cell, spawn_value = self._spawn_field(shape)
        finished = shape.flag("finished")
        self._same_game(shape, where, n)
        if got_n != n or got_moves != n:
            wrong = got_n if got_n != n else got_moves
            raise self.broken(
                where,
                Reason("witness.move.number", {"got": wrong, "n": n}),
                n,
            )
        if move != letter:
            raise self.broken(
                where,
                Reason(
                    "witness.move.letter",
                    {"got": quoted(move), "letter": letter},
                ),
                n,
            )
        slid = before.board.slide(Direction(letter))
        cell, value = self._new_tile(where, n, slid.board, board)
        if (spawn_cell, spawn_value) != (cell, value):
            raise self.broken(
                where,
                Reason(
                    "witness.move.spawn_field",
                    {
                        "got": spawn_value,
                        "got_cell": cell_name(spawn_cell),
                        "value": value,
                        "cell": cell_name(cell),
                    },
                ),
                n,
            )
        if gained != slid.gained:
            raise self.broken(
                where,
                Reason(
                    "witness.move.gained",
                    {"got": gained, "real": slid.gained},
                ),
                n,
            )
        if score != before.score + slid.gained:
            raise self.broken(
                where,
                Reason(
                    "witness.move.score",
                    {
                        "got": score,
                        "before": before.score,
                        "gained": slid.gained,
                        "real": before.score + slid.gained,
                    },
                ),
                n,
            )
        shown = Shown(board, score, n, letter, Spawn(cell, value))
        self._flags(shape, where, shown, n)
        if finished and not shown.over:
            raise self.broken(where, Reason("witness.move.finished"), n)
        self.shown.append(shown)
        return shown, gained, finished

    def _spawn_field(self, shape: _Shape) -> tuple[int, int]:
        spawn = shape.get("spawn")
        inner = _Shape(spawn, Reason("witness.where.spawn", {"where": shape.where}))
        return inner.integer("cell", 0, 15), inner.integer("value", 0, MAX_INTEGER)

    def _new_tile(self, where: Reason, n: int, slid: Board, board: Board) -> tuple[int, int]:
        """The one new tile that turns the slid board into ``board``, or the broken rule."""
        changed = [cell for cell in range(16) if slid[cell] != board[cell]]
        if not changed:
            raise self.broken(where, Reason("witness.move.no_tile"), n)
        covered = [cell for cell in changed if slid[cell] != 0]
        if covered:
            cell = covered[0]
            raise self.broken(
                where,
                Reason(
                    "witness.move.covered",
                    {"value": board[cell], "cell": cell_name(cell), "held": slid[cell]},
                ),
                n,
            )
        if len(changed) > 1:
            raise self.broken(
                where,
                Reason(
                    "witness.move.tiles",
                    {"count": len(changed)},
                ),
                n,
            )
        cell = changed[0]
        value = board[cell]
        if value not in (2, 4):
            raise self.broken(
                where,
                Reason(
                    "witness.move.tile_value",
                    {"value": value, "cell": cell_name(cell)},
                ),
                n,
            )
        return cell, value

    # ------------------------------------------------------------------ the end

    def revealed(self, answer: object) -> str:
        """Check the answer to finishing: the same game, as last shown, its seed committed."""
        where = where_reveal()
        shape = _Shape(answer, where)
        board, score, moves = shape.position()
        server_seed = shape.hex64("server_seed")
        commitment = shape.get("commitment")
        client_seed = shape.get("client_seed")
        self._same_game(shape, where, None)
        if commitment != self.commitment:
            raise self.broken(
                where,
                Reason(
                    "witness.reveal.commitment",
                    {"got": quoted(commitment), "commitment": self.commitment},
                ),
            )
        if client_seed != self.client_seed:
            raise self.broken(
                where,
                Reason("witness.reveal.client_seed", {"got": quoted(client_seed)}),
            )
        digest = hashlib.sha256(server_seed.encode("ascii")).hexdigest()
        if digest != self.commitment:
            raise self.broken(
                where,
                Reason(
                    "witness.reveal.server_seed",
                    {"digest": digest, "commitment": self.commitment},
                ),
            )
        last = self.last
        if (board, score, moves) != (last.board, last.score, last.moves):
            raise self.broken(
                where,
                Reason(
                    "witness.reveal.game",
                    {
                        "moves": moves,
                        "score": score,
                        "shown_moves": last.moves,
                        "shown_score": last.score,
                    },
                ),
            )
        self.server_seed = server_seed
        return server_seed

    def check_record(self, answer: object, trusted: Any | None) -> Record:
        """Replay the signed record and compare it with everything shown; the parsed record.

        ``trusted`` is the server's key (a :class:`twenty48_replay.fairplay.signing.TrustedKey`);
        without it the signature is not checked.
        """
        from twenty48_replay.core.replay import replay, verify

        where = where_record()
        try:
            record = Record.from_dict(answer)
        except RecordError as exc:
            raise ServerAnswerError(where, exc.problem) from None
        info = record.extra.get("fair")
        if not isinstance(info, dict):
            raise self.broken(where, Reason("witness.record.no_fair"))
        for key, ours, name in (
            ("commitment", self.commitment, "witness.record.our_commitment"),
            ("client_seed", self.client_seed, "witness.record.our_client_seed"),
            ("game_id", self.game_id, "witness.record.our_game_id"),
        ):
            if info.get(key) != ours:
                raise self.broken(
                    where,
                    Reason(
                        "witness.record.fair_field",
                        {"key": key, "got": quoted(info.get(key)), "name": Reason(name)},
                    ),
                )
        if self.server_seed is not None and info.get("server_seed") != self.server_seed:
            raise self.broken(where, Reason("witness.record.server_seed"))
        if record.player != self.player:
            raise self.broken(
                where,
                Reason(
                    "witness.record.player",
                    {"got": quoted(record.extra.get("player")), "player": quoted(self.player)},
                ),
            )
        letters = self.letters
        if record.moves != letters:
            raise self.broken(where, _moves_differ(record.moves, letters))
        self._compare_steps(where, record, replay)
        if record.score != self.last.score:
            raise self.broken(
                where,
                Reason(
                    "witness.record.score",
                    {"got": record.score, "score": self.last.score},
                ),
            )
        result = verify(record, trusted)
        if result.reasons:
            raise self.broken(where, result.reason_codes[0])
        if trusted is not None and result.fair != "fair":
            raise self.broken(where, Reason("witness.record.fair", {"status": result.fair}))
        return record

    def _compare_steps(
        self, where: Reason, record: Record, replay: Callable[[Record], Any]
    ) -> None:
        """Every replayed board and spawn equals what the answers showed."""
        steps = 0
        for step, shown in zip(replay(record), self.shown, strict=False):
            steps += 1
            if step.step == 0:
                if step.board != shown.board:
                    raise self.broken(where, Reason("witness.record.opening"), 0)
                continue
            if shown.spawn is not None and step.spawn != shown.spawn:
                raise self.broken(
                    where,
                    Reason(
                        "witness.record.spawn",
                        {
                            "n": step.step,
                            "value": step.spawn.value,
                            "cell": cell_name(step.spawn.cell),
                            "shown_value": shown.spawn.value,
                            "shown_cell": cell_name(shown.spawn.cell),
                        },
                    ),
                    step.step,
                )
            if step.board != shown.board or step.score != shown.score:
                raise self.broken(
                    where,
                    Reason(
                        "witness.record.board",
                        {"n": step.step},
                    ),
                    step.step,
                )
        if steps != len(self.shown):
            raise self.broken(
                where,
                Reason(
                    "witness.record.steps",
                    {"count": max(steps - 1, 0), "moves": len(self.shown) - 1},
                ),
            )


def _moves_differ(record: str, played: str) -> Reason:
    """Where a record's move string leaves the moves played."""
    for index, (got, real) in enumerate(zip(record, played, strict=False), 1):
        if got != real:
            return Reason(
                "witness.record.move",
                {"n": index, "got": got, "real": real},
            )
    return Reason(
        "witness.record.moves",
        {"count": len(record), "played": len(played)},
    )
