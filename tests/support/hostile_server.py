"""A score server that lies, for the fair client's tests (issue 19, acceptance 1).

:class:`HostileServer` imitates ``twenty48 serve``'s fair-play API on
loopback with real HTTP (the standard library's threading server, HTTP/1.1
keep-alive like uvicorn): new game, start, moves, finish, the public game
view, the signed record, the well-known key, and the play page with its
modules (the package's own files, under the same Content-Security-Policy),
so the Python client, the TUI and the browser page all play against it.
Honest by default (``lie=None``: every answer is what the real server
would send, signed with a fixed test key); with ``lie`` set it lies in one
way, at move :attr:`at` for the per-move lies:

========================  ==========================================================
``other-seed``            every board comes from another server seed; the record
                          is the real game's, correctly signed
``false-over``            move ``at`` says the game is over (and finished)
``false-won``             move ``at`` says the game is won
``wrong-score``           move ``at`` adds 4 points too many
``wrong-n``               move ``at`` is answered as move ``at + 1``
``spawn-occupied``        move ``at``'s new tile covers a tile the slide left
``two-spawns``            move ``at`` adds two new tiles
``spawn-8``               move ``at``'s new tile is an 8
``refuse-valid``          move ``at`` is refused (422) though it changes the board
``bad-reveal``            finishing reveals a seed that is not the committed one
``record-player``         the signed record names another player
``record-moves``          the signed record holds one more move than was played
``record-score``          the signed record claims 4 more points
``record-boards``         the signed record's game comes from another seed
``commitment-escape``     the commitment carries OSC 52, OSC 0 and ESC[2J
``commitment-upper``      the commitment is in uppercase hex
``commitment-short``      the commitment is 32 hex characters
``slow``                  the answer to move ``at`` comes one byte every
                          :attr:`drip` seconds
``not-4x4``               the opening board has 3 rows
``deep-nesting``          the answer to move ``at`` is 60,000 ``[``
========================  ==========================================================
"""

from __future__ import annotations

import hmac
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

import attrs

from twenty48_replay.core import fair
from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.game import GameState, Spawn
from twenty48_replay.core.record import Record
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.server.http import csp, shells
from twenty48_replay.server.http.assets import AssetIndex

#: Every way the server can lie (see the module docstring).
PER_MOVE_LIES: Final = (
    "false-over",
    "false-won",
    "wrong-score",
    "wrong-n",
    "spawn-occupied",
    "two-spawns",
    "spawn-8",
    "refuse-valid",
)
RECORD_LIES: Final = (
    "other-seed",
    "record-player",
    "record-moves",
    "record-score",
    "record-boards",
)
SHAPE_LIES: Final = (
    "commitment-escape",
    "commitment-upper",
    "commitment-short",
    "not-4x4",
    "deep-nesting",
)
LIES: Final = (*PER_MOVE_LIES, *RECORD_LIES, "bad-reveal", *SHAPE_LIES, "slow")

#: The server seed of every game (the lies stay deterministic), and the one it pretends with.
SERVER_SEED: Final = "5e" * 32
OTHER_SEED: Final = "0f" * 32
#: RFC 8032's test key 1 (test only).
KEY: Final = ServerKey.from_private_bytes(
    bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
)
STAMP: Final = "2026-01-01T00:00:00.000Z"
ESCAPES: Final = "\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07\x1b[2J"
_MOVES_PATH: Final = re.compile(r"/api/games/(\d+)/(start|moves|finish|record)")
_GAME_PATH: Final = re.compile(r"/api/games/(\d+)")
_ASSET_PATH: Final = re.compile(r"/static/(?:(js)/)?([A-Za-z0-9_.-]+)")


def rows(board: Board) -> list[list[int]]:
    return [list(row) for row in board.to_rows()]


def state_answer(state: GameState) -> dict[str, Any]:
    return {
        "board": rows(state.board),
        "score": state.score,
        "moves": state.moves,
        "max_tile": state.max_tile,
        "won": state.won,
        "over": state.over,
    }


def greedy_letters(state: GameState, count: int, order: str = "LDRU") -> str:
    """``count`` moves (fewer if the game ends) that each change the board, first valid of order."""
    letters = ""
    for _ in range(count):
        for letter in order:
            try:
                state = state.play(Direction(letter))[0]
            except NullMoveError:
                continue
            letters += letter
            break
        else:
            break
    return letters


@attrs.define
class HostileGame:
    """One game: the real one (what an honest server plays) and the one shown."""

    id: int
    player: str
    token: str
    commitment: str
    client_seed: str | None = None
    real: GameState | None = None
    shown: GameState | None = None
    letters: str = ""
    real_letters: str = ""
    finished: bool = False


class HostileServer:
    """The fair-play API on 127.0.0.1, honest or lying in one way (see the module docstring)."""

    def __init__(self, lie: str | None = None, *, at: int = 3, drip: float = 5.0) -> None:
        if lie is not None and lie not in LIES:
            raise ValueError(f"unknown lie {lie!r}")
        self.lie = lie
        self.at = at
        self.drip = drip
        self.games: dict[int, HostileGame] = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.assets = AssetIndex()
        #: Every request: (method, path, JSON body or None).
        self.requests: list[tuple[str, str, Any]] = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> HostileServer:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    # ------------------------------------------------------------------ what the player sees

    @staticmethod
    def game_seed(client_seed: str, server_seed: str = SERVER_SEED) -> str:
        return fair.game_seed(server_seed, client_seed)

    def shown_seed(self, client_seed: str) -> str:
        """The seed whose tiles the player is shown (another one for ``other-seed``)."""
        server_seed = OTHER_SEED if self.lie == "other-seed" else SERVER_SEED
        return self.game_seed(client_seed, server_seed)

    def honest_letters(self, client_seed: str, count: int) -> str:
        """Moves that each change the board the player is shown, as far as the lie allows."""
        return greedy_letters(GameState.new(self.shown_seed(client_seed)), count)

    # ------------------------------------------------------------------ the API

    def create(self, body: Any) -> tuple[int, Any]:
        player = str(body.get("player", "")).strip() if isinstance(body, dict) else ""
        with self.lock:
            game_id = len(self.games) + 1
            commitment = fair.commitment(SERVER_SEED)
            if self.lie == "commitment-escape":
                commitment = ESCAPES + commitment[len(ESCAPES) :]
            elif self.lie == "commitment-upper":
                commitment = commitment.upper()
            elif self.lie == "commitment-short":
                commitment = commitment[:32]
            game = HostileGame(game_id, player, f"token-{game_id}", commitment)
            self.games[game_id] = game
        return 201, {"id": game_id, "token": game.token, "commitment": commitment}

    def start(self, game: HostileGame, body: Any) -> tuple[int, Any]:
        if game.real is not None:
            return 409, {"error": "the game was already started"}
        client_seed = body.get("client_seed") if isinstance(body, dict) else None
        if not isinstance(client_seed, str) or not client_seed:
            return 400, {"error": "field 'client_seed' is missing"}
        game.client_seed = client_seed
        game.real = GameState.new(self.game_seed(client_seed))
        game.shown = GameState.new(self.shown_seed(client_seed))
        answer = {"id": game.id, **state_answer(game.shown)}
        if self.lie == "not-4x4":
            answer["board"] = answer["board"][:3]
        return 200, answer

    def move(self, game: HostileGame, body: Any) -> tuple[int, Any]:
        if game.shown is None or game.real is None:
            return 409, {"error": "the game is not started yet"}
        if game.finished:
            return 409, {"error": "the game is finished"}
        letter, n = body.get("move"), body.get("n")
        if letter not in ("U", "D", "L", "R") or not isinstance(n, int):
            return 400, {"error": "bad move"}
        if n != game.shown.moves + 1:
            return 409, {"error": f"the next move is n = {game.shown.moves + 1}, not {n}"}
        if self.lie == "refuse-valid" and n == self.at:
            return 422, {"error": f"move {n} ({letter}) is not a valid move"}
        before = game.shown
        try:
            after, gained, spawn = before.play(Direction(letter))
        except NullMoveError as exc:
            return 422, {"error": str(exc)}
        try:  # the real game goes on underneath (it differs only for other-seed)
            game.real = game.real.play(Direction(letter))[0]
            game.real_letters += letter
        except NullMoveError:
            pass
        game.shown = after
        game.letters += letter
        game.finished = after.over
        answer: dict[str, Any] = {
            "id": game.id,
            "n": n,
            "move": letter,
            **state_answer(after),
            "gained": gained,
            "spawn": spawn.to_json(),
            "finished": after.over,
        }
        if n == self.at:
            self._lie_about_move(answer, before, after, spawn)
        return 200, answer

    def _lie_about_move(
        self, answer: dict[str, Any], before: GameState, after: GameState, spawn: Spawn
    ) -> None:
        lie = self.lie
        slid = before.board.slide(Direction(answer["move"])).board
        if lie == "false-over":
            answer["over"] = answer["finished"] = True
        elif lie == "false-won":
            answer["won"] = True
        elif lie == "wrong-score":
            answer["score"] += 4
        elif lie == "wrong-n":
            answer["n"] += 1
            answer["moves"] += 1
        elif lie == "spawn-occupied":
            occupied = next(c for c in range(16) if slid[c] not in (0, spawn.value))
            board = slid.with_tile(occupied, spawn.value)
            answer["board"] = rows(board)
            answer["spawn"] = {"cell": occupied, "value": spawn.value}
        elif lie == "two-spawns":
            extra = next(c for c in after.board.empty_cells())
            answer["board"] = rows(after.board.with_tile(extra, 2))
        elif lie == "spawn-8":
            answer["board"] = rows(slid.with_tile(spawn.cell, 8))
            answer["spawn"] = {"cell": spawn.cell, "value": 8}
            answer["max_tile"] = max(answer["max_tile"], 8)

    def finish(self, game: HostileGame) -> tuple[int, Any]:
        if game.shown is None:
            return 409, {"error": "the game is not started yet"}
        game.finished = True
        seed = OTHER_SEED if self.lie == "bad-reveal" else SERVER_SEED
        return 200, {
            "id": game.id,
            **state_answer(game.shown),
            "finished": True,
            "server_seed": seed,
            "client_seed": game.client_seed,
            "commitment": game.commitment,
            "record_url": f"/api/games/{game.id}/record",
        }

    def record(self, game: HostileGame) -> dict[str, Any]:
        """The signed record: of the real game (which is the shown one unless a lie says)."""
        assert game.real is not None
        assert game.client_seed is not None
        seed = self.game_seed(game.client_seed)
        letters = game.real_letters
        player = game.player
        if self.lie == "record-player":
            player = "mallory"
        elif self.lie == "record-moves":
            letters += greedy_letters(game.real, 1)
        elif self.lie == "record-boards":
            seed = self.game_seed(game.client_seed + " (another)")
        state = GameState.new(seed)
        for letter in letters:
            try:
                state = state.play(Direction(letter))[0]
            except NullMoveError:
                break
        info = fair.FairInfo(
            commitment=fair.commitment(SERVER_SEED),
            server_seed=SERVER_SEED,
            client_seed=game.client_seed,
            key_id=KEY.key_id,
            game_id=game.id,
            started=STAMP,
            ended=STAMP,
        )
        if self.lie == "record-boards":  # it claims exactly what was shown; its seed does not
            assert game.shown is not None
            state = game.shown
        record = Record(
            seed=seed,
            moves=letters,
            score=state.score + (4 if self.lie == "record-score" else 0),
            max_tile=state.max_tile,
            final_board=tuple(tuple(row) for row in state.board.to_rows()),  # type: ignore[misc]
            extra={
                "player": player,
                "started": STAMP,
                "finished": STAMP,
                "client": "hostile test server",
                "fair": info.to_dict(),
            },
        )
        return KEY.sign_record(record.to_dict())

    def view(self, game: HostileGame) -> dict[str, Any]:
        view: dict[str, Any] = {
            "id": game.id,
            "player": game.player,
            "commitment": game.commitment,
            "started": game.shown is not None,
            "finished": game.finished,
        }
        if game.shown is not None:
            view.update(state_answer(game.shown))
            view["client_seed"] = game.client_seed
        if game.finished:
            view["server_seed"] = OTHER_SEED if self.lie == "bad-reveal" else SERVER_SEED
        return view

    # ------------------------------------------------------------------ HTTP

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            error_content_type = "application/json"

            def log_message(self, *_args: Any) -> None:
                pass

            def do_GET(self) -> None:
                server.route(self, "GET")

            def do_POST(self) -> None:
                server.route(self, "POST")

        return Handler

    def route(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = handler.path.split("?", 1)[0]
        self.requests.append((method, path, body))
        if method == "GET" and path == "/":
            # The play page in English, or in Danish when asked for (?lang=da).
            shell = shells.play_page("da" if "lang=da" in handler.path else "en")
            self.send(handler, 200, shell.encode(), "text/html; charset=utf-8", page=True)
            return
        asset = _ASSET_PATH.fullmatch(path)
        if method == "GET" and asset:
            found = self.assets.get(asset.group(1) or "static", asset.group(2))
            if found is None:
                self.send_json(handler, 404, {"error": "no such file"})
            else:
                self.send(handler, 200, found.body, found.media_type)
            return
        if method == "GET" and path == "/.well-known/twenty48-key":
            self.send_json(handler, 200, KEY.well_known())
            return
        if method == "POST" and path == "/api/games":
            self.send_json(handler, *self.create(body))
            return
        status, answer = self.api(handler, method, path, body)
        self.send_json(handler, status, answer)

    def api(
        self, handler: BaseHTTPRequestHandler, method: str, path: str, body: Any
    ) -> tuple[int, Any]:
        match = _MOVES_PATH.fullmatch(path)
        plain = _GAME_PATH.fullmatch(path)
        game_id = int((match or plain).group(1)) if (match or plain) else 0  # type: ignore[union-attr]
        game = self.games.get(game_id)
        if game is None:
            return 404, {"error": f"no game {game_id}"}
        if method == "GET" and plain:
            return 200, self.view(game)
        if match is None:
            return 404, {"error": "no such page"}
        action = match.group(2)
        if method == "GET" and action == "record":
            if not game.finished:
                return 409, {"error": "the game is not finished"}
            return 200, self.record(game)
        if method != "POST":
            return 405, {"error": "method not allowed"}
        token = handler.headers.get("Authorization", "")
        if not hmac.compare_digest(token.encode(), f"Bearer {game.token}".encode()):
            return 403, {"error": "wrong token"}
        with self.lock:
            if action == "start":
                return self.start(game, body)
            if action == "moves":
                if self.lie in ("slow", "deep-nesting") and (body or {}).get("n") == self.at:
                    return -1, self.lie
                return self.move(game, body)
            return self.finish(game)

    def send_json(self, handler: BaseHTTPRequestHandler, status: int, answer: Any) -> None:
        if status == -1 and answer == "deep-nesting":
            self.send(handler, 200, b"[" * 60_000, "application/json")
            return
        if status == -1 and answer == "slow":
            self.send_slowly(handler, json.dumps({"n": self.at, "board": [[0] * 4] * 4}).encode())
            return
        data = json.dumps(answer, ensure_ascii=False).encode("utf-8")
        self.send(handler, status, data, "application/json")

    def send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        data: bytes,
        media_type: str,
        *,
        page: bool = False,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", media_type)
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("Cache-Control", "no-store")
        if page:
            for name, value in csp.security_headers().items():
                handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)

    def send_slowly(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        """Headers at once, then the body one byte every :attr:`drip` seconds."""
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.flush()
        for byte in data:
            if self.stopping.wait(self.drip):
                break
            try:
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
            except OSError:
                break
        handler.close_connection = True
