"""A small client of ``twenty48 serve`` (standard library HTTP, one keep-alive connection).

A dropped connection, a timeout or a 503 is retried with the same request,
which the API makes safe: a move names its number ``n``, and the server
answers a repeated ``n`` with the same move from its log instead of
applying it again.  :class:`RemoteGame` plays one fair game and, at the end,
checks the signed record against what it was promised: the commitment it
received before its first move, its own client seed, the moves it played,
and the server's signature.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from typing import Any, ClassVar, Final

from twenty48_replay import fair
from twenty48_replay.board import Board
from twenty48_replay.errors import EXIT_UNUSABLE, RecordError, Twenty48Error
from twenty48_replay.game import GameState

RETRIES: Final = 6
TIMEOUT: Final = 10.0
#: Statuses worth retrying: the server could not take the request (nothing was stored).
RETRY_STATUSES: Final = frozenset({502, 503, 504})
#: Largest answer read (a signed record of a very long game fits easily).
MAX_ANSWER: Final = 80 * 1024 * 1024


class ServerError(Twenty48Error):
    """The server refused a request (``status``, ``reason``) or could not be reached."""

    def __init__(self, status: int | None, reason: str) -> None:
        self.status = status
        self.reason = reason
        where = f"server answered {status}: " if status is not None else ""
        super().__init__(where + reason)


class UnreachableError(ServerError):
    """The server could not be reached (or kept failing): unusable input, exit 2.

    The same exit code as ``verify --trust`` on a server it cannot fetch the key from.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, reason: str) -> None:
        super().__init__(None, reason)


class ServerUrlError(ServerError):
    """The text given is not a server URL (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, reason: str) -> None:
        super().__init__(None, reason)


def server_url(url: str) -> str:
    """The base URL of a server, normalised once: ``http(s)://host[:port][/prefix]``.

    Trailing slashes, a query and a fragment are dropped, so every path
    joined to it (``/api/...``) is one URL, never ``//api/...``.
    :class:`ServerUrlError` for text that is not an http(s) URL with a host.
    """
    hint = "a server URL starts with http:// or https://, e.g. http://127.0.0.1:8048"
    try:
        parsed = urllib.parse.urlsplit(url.strip())
        port = parsed.port
    except ValueError as exc:
        raise ServerUrlError(f"{url!r} is not a server URL ({exc}); {hint}") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ServerUrlError(f"{url!r} is not a server URL: {hint}")
    if port == 0:
        raise ServerUrlError(f"{url!r} is not a server URL: port 0")
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))


class Client:
    """JSON over HTTP to one server, retried on dropped connections."""

    def __init__(self, url: str, *, timeout: float = TIMEOUT, retries: int = RETRIES) -> None:
        #: The normalised base URL (see :func:`server_url`): what messages show.
        self.url = server_url(url)
        parsed = urllib.parse.urlsplit(self.url)
        self.scheme = parsed.scheme
        self.host = parsed.hostname or ""
        self.port = parsed.port
        self.prefix = parsed.path
        self.timeout = timeout
        self.retries = retries
        self._connection: http.client.HTTPConnection | None = None
        #: Requests sent again after a dropped connection or a 503 (for tests and the TUI).
        self.retried = 0

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = (
                http.client.HTTPSConnection
                if self.scheme == "https"
                else http.client.HTTPConnection
            )
            self._connection = kind(self.host, self.port, timeout=self.timeout)
        return self._connection

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, token: str | None = None
    ) -> Any:
        """Send one request (again, on a dropped connection or 503); the JSON answer."""
        payload = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"Accept": "application/json"}
        if payload is not None or method == "POST":  # the server wants JSON on every POST (415)
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        failure = "no answer"
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                time.sleep(min(2.0, 0.05 * 2**attempt))
            try:
                connection = self._connect()
                connection.request(method, self.prefix + path, body=payload, headers=headers)
                response = connection.getresponse()
                data = response.read(MAX_ANSWER + 1)
                status = response.status
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                failure = f"cannot reach {self.url}: {exc or type(exc).__name__}"
                continue
            if status in RETRY_STATUSES:
                failure = f"{self.url} answered {status}: {_reason(data) or 'unavailable'}"
                continue
            if len(data) > MAX_ANSWER:
                raise ServerError(status, "answer too large")
            if status >= 400:
                raise ServerError(status, _reason(data) or "refused")
            try:
                return json.loads(data)
            except ValueError:
                raise ServerError(status, "the answer is not JSON") from None
        raise UnreachableError(failure)

    # ------------------------------------------------------------------ API

    def new_game(self, player: str) -> dict[str, Any]:
        return dict(self.request("POST", "/api/games", {"player": player}))

    def start(self, game_id: int, token: str, client_seed: str) -> dict[str, Any]:
        body = {"client_seed": client_seed}
        return dict(self.request("POST", f"/api/games/{game_id}/start", body, token))

    def move(self, game_id: int, token: str, n: int, letter: str) -> dict[str, Any]:
        body = {"move": letter, "n": n}
        return dict(self.request("POST", f"/api/games/{game_id}/moves", body, token))

    def finish(self, game_id: int, token: str) -> dict[str, Any]:
        return dict(self.request("POST", f"/api/games/{game_id}/finish", None, token))

    def game(self, game_id: int) -> dict[str, Any]:
        return dict(self.request("GET", f"/api/games/{game_id}"))

    def record(self, game_id: int) -> dict[str, Any]:
        return dict(self.request("GET", f"/api/games/{game_id}/record"))

    def record_url(self, game_id: int) -> str:
        """Where a finished game's signed record is (for people to fetch)."""
        return f"{self.url}/api/games/{game_id}/record"

    def leaderboard(self, limit: int = 10) -> dict[str, Any]:
        return dict(self.request("GET", f"/api/leaderboard?limit={limit}"))

    def key(self) -> dict[str, Any]:
        return dict(self.request("GET", "/.well-known/twenty48-key"))


def _reason(data: bytes) -> str | None:
    try:
        value = json.loads(data)
    except ValueError:
        return None
    if isinstance(value, dict) and isinstance(value.get("error"), str):
        return str(value["error"])[:500]
    return None


class MoveRefusedError(ServerError):
    """The server refused a move by the rules (422: it changes nothing)."""


class RemoteGame:
    """One fair game played on a server: state from the server's answers."""

    def __init__(self, client: Client, player: str, client_seed: str | None = None) -> None:
        self.client = client
        self.player = player
        self.client_seed = fair.validate_client_seed(client_seed or fair.new_client_seed())
        created = client.new_game(player)
        self.id = int(created["id"])
        self.token = str(created["token"])
        self.commitment = str(created["commitment"])
        try:
            opening = client.start(self.id, self.token, self.client_seed)
        except ServerError as exc:
            if exc.status != 409 or client.retried == 0:
                raise
            opening = client.game(self.id)  # our start landed before the connection dropped
            if opening.get("client_seed") != self.client_seed:
                raise
        self.letters = ""
        self.finished = False
        self.state = _state(opening)

    def play(self, letter: str) -> dict[str, Any]:
        """Play one move (number ``moves + 1``; retried safely); the server's answer."""
        try:
            answer = self.client.move(self.id, self.token, self.state.moves + 1, letter)
        except ServerError as exc:
            if exc.status == 422:
                raise MoveRefusedError(422, exc.reason) from None
            raise
        self.letters += letter
        self.state = _state(answer)
        self.finished = bool(answer.get("finished"))
        return answer

    def finish(self) -> dict[str, Any]:
        """End the game (if the server has not already) and fetch its signed record."""
        if not self.finished:
            self.client.finish(self.id, self.token)
            self.finished = True
        return self.client.record(self.id)

    def check_record(self, record: dict[str, Any], trusted: Any | None = None) -> list[str]:
        """Every way the signed record breaks what this client was promised (empty: none)."""
        from twenty48_replay.record import Record

        problems: list[str] = []
        try:
            parsed = Record.from_dict(record)
        except RecordError as exc:
            return [f"unreadable record: {exc}"]
        info = parsed.extra.get("fair")
        if not isinstance(info, dict):
            return ["the record has no fair object"]
        if info.get("commitment") != self.commitment:
            problems.append("the record's commitment is not the one sent before the first move")
        if info.get("client_seed") != self.client_seed:
            problems.append("the record's client seed is not ours")
        if parsed.moves != self.letters:
            problems.append("the record's moves are not the moves played")
        from twenty48_replay.replay import verify

        result = verify(parsed, trusted)
        problems.extend(result.reasons)
        expected = "fair" if trusted is not None else "unchecked"
        if result.fair != expected and not result.reasons:
            problems.append(f"the record is {result.fair}")
        return problems


def _state(answer: dict[str, Any]) -> GameState:
    """The board, score and move count of an answer, as a state (seed unknown: empty)."""
    rows = answer["board"]
    return GameState("", Board.from_rows(rows), int(answer["score"]), int(answer["moves"]))
