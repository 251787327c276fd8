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

Messages are built from templates (:class:`Phrase`) so the command line
shows them in the chosen language while the evidence keeps the English.
This module knows nothing of HTTP: :mod:`twenty48_replay.client` feeds it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Final

import attrs

from twenty48_replay.board import Board, Direction
from twenty48_replay.errors import EXIT_FAILED, EXIT_UNUSABLE, RecordError, Twenty48Error
from twenty48_replay.game import WIN_TILE, Spawn
from twenty48_replay.i18n import N_, _
from twenty48_replay.record import MAX_INTEGER, Record, dumps_value

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


@attrs.frozen(slots=True)
class Phrase:
    """A message template (English, marked for translation) and its values."""

    template: str
    values: Mapping[str, object] = attrs.field(factory=dict)

    def render(self, tr: Translate = str) -> str:
        """The text, each template (nested phrases too) passed through ``tr``."""
        values = {
            key: value.render(tr) if isinstance(value, Phrase) else value
            for key, value in self.values.items()
        }
        return tr(self.template).format(**values)


def _identity(text: str) -> str:
    return text


class ServerAnswerError(Twenty48Error):
    """An answer of the wrong shape (not an object, a missing field, a board not 4x4): exit 2.

    Nothing in such an answer can be judged by the rules, so the game
    cannot go on; the exit code is that of any unusable input.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, where: Phrase, problem: Phrase) -> None:
        self.where = where
        self.problem = problem
        super().__init__(self._text(_identity))

    def _text(self, tr: Translate) -> str:
        return Phrase(
            N_("{where} is unusable: {problem}"), {"where": self.where, "problem": self.problem}
        ).render(tr)

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
        self, where: Phrase, rule: Phrase, move: int | None, evidence: dict[str, Any]
    ) -> None:
        self.where = where
        self.rule = rule
        self.move = move
        self.evidence = evidence
        super().__init__(self._text(_identity))

    def _text(self, tr: Translate) -> str:
        return Phrase(
            N_("{where} breaks the rules: {rule}"),
            {"where": self.where, "rule": self.rule},
        ).render(tr)

    def translated(self) -> str:
        return self._text(_)


# ---------------------------------------------------------------- where
# Which answer a message is about: the subject of "... breaks the rules" / "... is unusable".


def where_new_game() -> Phrase:
    return Phrase(N_("the server's answer to the new game"))


def where_opening() -> Phrase:
    return Phrase(N_("the server's opening board"))


def where_move(n: int, letter: str) -> Phrase:
    return Phrase(N_("the server's answer to move {n} ({letter})"), {"n": n, "letter": letter})


def where_reveal() -> Phrase:
    return Phrase(N_("the server's answer to finishing the game"))


def where_record() -> Phrase:
    return Phrase(N_("the server's signed record"))


def quoted(value: object) -> str:
    """A value from the server for a message: its JSON text, cut short."""
    try:
        text = dumps_value(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= QUOTE_LENGTH else text[: QUOTE_LENGTH - 3] + "..."


def cell_name(cell: int) -> Phrase:
    return Phrase(N_("row {row} column {column}"), {"row": cell // 4 + 1, "column": cell % 4 + 1})


# ---------------------------------------------------------------- shapes


class _Shape:
    """Reads the fields of one answer, raising :class:`ServerAnswerError` naming ``where``."""

    def __init__(self, answer: object, where: Phrase) -> None:
        self.where = where
        if not isinstance(answer, dict):
            raise ServerAnswerError(
                where, Phrase(N_("it is {value}, not a JSON object"), {"value": quoted(answer)})
            )
        self.answer: dict[str, Any] = answer

    def fail(self, key: str, wanted: Phrase) -> ServerAnswerError:
        value = self.answer[key]
        return ServerAnswerError(
            self.where,
            Phrase(
                N_("field '{field}' is {value}, not {wanted}"),
                {"field": key, "value": quoted(value), "wanted": wanted},
            ),
        )

    def get(self, key: str) -> Any:
        if key not in self.answer:
            raise ServerAnswerError(
                self.where, Phrase(N_("field '{field}' is missing"), {"field": key})
            )
        return self.answer[key]

    def integer(self, key: str, low: int = 0, high: int = MAX_INTEGER) -> int:
        value = self.get(key)
        if type(value) is not int or not low <= value <= high:
            raise self.fail(
                key, Phrase(N_("an integer from {low} to {high}"), {"low": low, "high": high})
            )
        return value

    def flag(self, key: str) -> bool:
        value = self.get(key)
        if type(value) is not bool:
            raise self.fail(key, Phrase(N_("true or false")))
        return value

    def text(self, key: str, pattern: re.Pattern[str], wanted: Phrase) -> str:
        value = self.get(key)
        if not isinstance(value, str) or pattern.fullmatch(value) is None:
            raise self.fail(key, wanted)
        return value

    def hex64(self, key: str) -> str:
        return self.text(key, _HEX64, Phrase(N_("64 lowercase hex characters")))

    def position(self) -> tuple[Board, int, int]:
        """``board``, ``score`` and ``moves``, in that order."""
        return self.board(), self.integer("score"), self.integer("moves")

    def board(self, key: str = "board") -> Board:
        value = self.get(key)
        wanted = Phrase(N_("4 rows of 4 tiles (0 or a power of two from 2 to 131072)"))
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

    def evidence(self, verdict: str | None = None) -> dict[str, Any]:
        """The document a broken rule leaves behind: who, where, what was sent, every answer."""
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
            "answers": [exchange.to_json() for exchange in self.exchanges],
        }

    def broken(self, where: Phrase, rule: Phrase, move: int | None = None) -> UnfairServerError:
        """The error for a broken rule (kept as :attr:`verdict`), with the evidence so far."""
        error = UnfairServerError(where, rule, move, {})
        error.evidence = self.evidence(str(error))
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
            Phrase(N_("1 to {limit} visible ASCII characters"), {"limit": MAX_TOKEN_LENGTH}),
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
                Phrase(N_("it is numbered move {got}; a game opens at move 0"), {"got": moves}),
            )
        if score != 0:
            raise self.broken(
                where, Phrase(N_("its score is {got}; a game opens at 0"), {"got": score})
            )
        tiles = [value for value in board.cells() if value]
        if len(tiles) != 2:
            raise self.broken(
                where,
                Phrase(N_("it holds {count} tiles; a game opens with two"), {"count": len(tiles)}),
            )
        odd = [value for value in tiles if value not in (2, 4)]
        if odd:
            raise self.broken(
                where,
                Phrase(
                    N_("it holds a tile of {value}; opening tiles are 2 or 4"), {"value": odd[0]}
                ),
            )
        shown = Shown(board, 0, 0)
        self._flags(shape, where, shown, None)
        self.shown = [shown]
        return shown

    def _same_game(self, shape: _Shape, where: Phrase, move: int | None) -> None:
        if "id" in shape.answer:
            got = shape.integer("id")
            if got != self.game_id:
                raise self.broken(
                    where,
                    Phrase(
                        N_("it is about game {got}, not game {id}"),
                        {"got": got, "id": self.game_id},
                    ),
                    move,
                )

    def _flags(self, shape: _Shape, where: Phrase, shown: Shown, move: int | None) -> None:
        """``max_tile``, ``won`` and ``over`` are what the board says."""
        max_tile = shape.integer("max_tile")
        if max_tile != shown.board.max_tile:
            raise self.broken(
                where,
                Phrase(
                    N_("it says the largest tile is {got}; the board's is {real}"),
                    {"got": max_tile, "real": shown.board.max_tile},
                ),
                move,
            )
        if shape.flag("won") != shown.won:
            rule = (
                N_("it says the game is won, but no tile is 2048 or more")
                if not shown.won
                else N_("it says the game is not won, but a tile is 2048 or more")
            )
            raise self.broken(where, Phrase(rule), move)
        if shape.flag("over") != shown.over:
            rule = (
                N_("it says the game is over, but the board can still move")
                if not shown.over
                else N_("it says the game goes on, but no move changes the board")
            )
            raise self.broken(where, Phrase(rule), move)

    # ------------------------------------------------------------------ moves

    def refused(self, n: int, letter: str, reason: str) -> UnfairServerError:
        """The server refused (422) a move that changes the board: a broken rule."""
        return self.broken(
            where_move(n, letter),
            Phrase(
                N_("it refused the move ({reason}), but the move changes the board"),
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
                Phrase(N_("it numbers the move {got}, not {n} as sent"), {"got": wrong, "n": n}),
                n,
            )
        if move != letter:
            raise self.broken(
                where,
                Phrase(
                    N_("it names the move {got}, not {letter} as sent"),
                    {"got": quoted(move), "letter": letter},
                ),
                n,
            )
        slid = before.board.slide(Direction(letter))
        cell, value = self._new_tile(where, n, slid.board, board)
        if (spawn_cell, spawn_value) != (cell, value):
            raise self.broken(
                where,
                Phrase(
                    N_(
                        "its spawn field says {got} at {got_cell}, but "
                        "the board's new tile is {value} at {cell}"
                    ),
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
                Phrase(
                    N_("it says the move gained {got} points; the slide gains {real}"),
                    {"got": gained, "real": slid.gained},
                ),
                n,
            )
        if score != before.score + slid.gained:
            raise self.broken(
                where,
                Phrase(
                    N_(
                        "its score is {got}; the score before ({before}) "
                        "plus the points of the move ({gained}) is {real}"
                    ),
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
            raise self.broken(
                where, Phrase(N_("it ends the game, but the board can still move")), n
            )
        self.shown.append(shown)
        return shown, gained, finished

    def _spawn_field(self, shape: _Shape) -> tuple[int, int]:
        spawn = shape.get("spawn")
        inner = _Shape(spawn, Phrase(N_("field 'spawn' of {where}"), {"where": shape.where}))
        return inner.integer("cell", 0, 15), inner.integer("value", 0, MAX_INTEGER)

    def _new_tile(self, where: Phrase, n: int, slid: Board, board: Board) -> tuple[int, int]:
        """The one new tile that turns the slid board into ``board``, or the broken rule."""
        changed = [cell for cell in range(16) if slid[cell] != board[cell]]
        if not changed:
            raise self.broken(
                where, Phrase(N_("its board has no new tile; every move adds one")), n
            )
        covered = [cell for cell in changed if slid[cell] != 0]
        if covered:
            cell = covered[0]
            raise self.broken(
                where,
                Phrase(
                    N_(
                        "its board puts {value} on {cell}, which holds {held} "
                        "after the slide; a new tile goes on an empty cell"
                    ),
                    {"value": board[cell], "cell": cell_name(cell), "held": slid[cell]},
                ),
                n,
            )
        if len(changed) > 1:
            raise self.broken(
                where,
                Phrase(
                    N_("its board has {count} new tiles; every move adds exactly one"),
                    {"count": len(changed)},
                ),
                n,
            )
        cell = changed[0]
        value = board[cell]
        if value not in (2, 4):
            raise self.broken(
                where,
                Phrase(
                    N_("its new tile at {cell} is {value}; a new tile is 2 or 4"),
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
                Phrase(
                    N_(
                        "it names the commitment {got}, not {commitment} sent before the first move"
                    ),
                    {"got": quoted(commitment), "commitment": self.commitment},
                ),
            )
        if client_seed != self.client_seed:
            raise self.broken(
                where,
                Phrase(
                    N_("it names the client seed {got}, not ours"), {"got": quoted(client_seed)}
                ),
            )
        digest = hashlib.sha256(server_seed.encode("ascii")).hexdigest()
        if digest != self.commitment:
            raise self.broken(
                where,
                Phrase(
                    N_(
                        "the SHA-256 of its server seed is "
                        "{digest}, not the commitment {commitment}"
                    ),
                    {"digest": digest, "commitment": self.commitment},
                ),
            )
        last = self.last
        if (board, score, moves) != (last.board, last.score, last.moves):
            raise self.broken(
                where,
                Phrase(
                    N_(
                        "its game ({moves} moves, score {score}) is not the "
                        "game shown ({shown_moves} moves, score {shown_score})"
                    ),
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

        ``trusted`` is the server's key (a :class:`twenty48_replay.signing.TrustedKey`);
        without it the signature is not checked.
        """
        from twenty48_replay.replay import replay, verify

        where = where_record()
        try:
            record = Record.from_dict(answer)
        except RecordError as exc:
            raise ServerAnswerError(where, Phrase(str(exc))) from None
        info = record.extra.get("fair")
        if not isinstance(info, dict):
            raise self.broken(where, Phrase(N_("it has no fair object")))
        for key, ours, name in (
            ("commitment", self.commitment, N_("the commitment sent before the first move")),
            ("client_seed", self.client_seed, N_("our client seed")),
            ("game_id", self.game_id, N_("the id of the game played")),
        ):
            if info.get(key) != ours:
                raise self.broken(
                    where,
                    Phrase(
                        N_("its fair.{key} is {got}, not {name}"),
                        {"key": key, "got": quoted(info.get(key)), "name": Phrase(name)},
                    ),
                )
        if self.server_seed is not None and info.get("server_seed") != self.server_seed:
            raise self.broken(
                where, Phrase(N_("its server seed is not the one revealed when the game ended"))
            )
        if record.player != self.player:
            raise self.broken(
                where,
                Phrase(
                    N_("its player is {got}, not {player} who played"),
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
                Phrase(
                    N_("its score is {got}, not {score} as played"),
                    {"got": record.score, "score": self.last.score},
                ),
            )
        result = verify(record, trusted)
        if result.reasons:
            raise self.broken(where, Phrase(result.reasons[0]))
        if trusted is not None and result.fair != "fair":
            raise self.broken(
                where, Phrase(N_("its fair play is {status}"), {"status": result.fair})
            )
        return record

    def _compare_steps(
        self, where: Phrase, record: Record, replay: Callable[[Record], Any]
    ) -> None:
        """Every replayed board and spawn equals what the answers showed."""
        steps = 0
        for step, shown in zip(replay(record), self.shown, strict=False):
            steps += 1
            if step.step == 0:
                if step.board != shown.board:
                    raise self.broken(
                        where, Phrase(N_("its opening board is not the opening board shown")), 0
                    )
                continue
            if shown.spawn is not None and step.spawn != shown.spawn:
                raise self.broken(
                    where,
                    Phrase(
                        N_(
                            "its new tile after move {n} is {value} at {cell}; "
                            "the server showed {shown_value} at {shown_cell}"
                        ),
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
                    Phrase(
                        N_("its board after move {n} is not the board shown after move {n}"),
                        {"n": step.step},
                    ),
                    step.step,
                )
        if steps != len(self.shown):
            raise self.broken(
                where,
                Phrase(
                    N_("it replays {count} of the {moves} moves shown"),
                    {"count": max(steps - 1, 0), "moves": len(self.shown) - 1},
                ),
            )


def _moves_differ(record: str, played: str) -> Phrase:
    """Where a record's move string leaves the moves played."""
    for index, (got, real) in enumerate(zip(record, played, strict=False), 1):
        if got != real:
            return Phrase(
                N_("its move {n} is {got}, but {real} was played"),
                {"n": index, "got": got, "real": real},
            )
    return Phrase(
        N_("it holds {count} moves, but {played} were played"),
        {"count": len(record), "played": len(played)},
    )
