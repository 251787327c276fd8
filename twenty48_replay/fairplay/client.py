"""A small client of ``twenty48 serve`` (standard library HTTP, one keep-alive connection).

A dropped connection, a timeout or a 503 is retried with the same request,
which the API makes safe: a move names its number ``n``, and the server
answers a repeated ``n`` with the same move from its log instead of
applying it again.  Every request, retries included, has a whole-exchange
deadline, and every answer is read with the records' strict bounded reader.

:class:`RemoteGame` plays one fair game and trusts nothing it is shown: a
:class:`~twenty48_replay.fairplay.witness.Witness` checks each answer against the
rules as it arrives (the opening, every move's slide and single new tile,
score, flags, move number) and, at the end, replays the signed record and
compares it with everything shown and played, then checks the commitment,
the seed derivation and the server's signature.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from typing import Any, ClassVar, Final

from twenty48_replay.core import fair
from twenty48_replay.core.board import Direction
from twenty48_replay.core.errors import (
    EXIT_UNUSABLE,
    MessageError,
    NullMoveError,
    RecordError,
    Twenty48Error,
    os_problem,
)
from twenty48_replay.core.game import GameState
from twenty48_replay.core.i18n import N_
from twenty48_replay.core.record import MAX_INPUT_BYTES, Record, loads_strict
from twenty48_replay.fairplay.witness import Witness

RETRIES: Final = 6
#: Seconds one read may wait (per socket operation).
TIMEOUT: Final = 10.0
#: Seconds one request may take in all, its retries included (as ``verify --trust``'s fetch).
DEADLINE: Final = 15.0
#: Statuses worth retrying: the server could not take the request (nothing was stored).
RETRY_STATUSES: Final = frozenset({502, 503, 504})
#: Over a server's rate limit: nothing was done; sent again after its ``Retry-After``.
RATE_LIMITED: Final = 429
#: The longest ``Retry-After`` waited for (seconds); the deadline bounds it as well.
MAX_RETRY_AFTER: Final = 5.0
#: Largest answer read: a record's limit (a signed record is the largest answer there is).
MAX_ANSWER: Final = MAX_INPUT_BYTES

#: ``listener(request, sent, status, answer)``: hears every JSON answer (see :class:`Client`).
Listener = Callable[[str, Any, int, Any], None]


class ServerError(MessageError):
    """The server refused a request (``status``, ``reason``) or could not be reached.

    ``reason`` is the English text (the server's own words, or ours as a
    :class:`~twenty48_replay.core.errors.MessageError` that translates);
    ``str()`` stays English, :meth:`translated` is for people.
    """

    def __init__(self, status: int | None, reason: str | Twenty48Error) -> None:
        self.status = status
        self.reason = str(reason)
        self.said = reason
        if status is None:
            super().__init__("{reason}", reason=reason)
        else:
            super().__init__(N_("server answered {status}: {reason}"), status=status, reason=reason)

    def translated_reason(self) -> str:
        """:attr:`reason` in the reader's language (a server's own words stay as they are)."""
        return self.said.translated() if isinstance(self.said, Twenty48Error) else self.said


class UnreachableError(ServerError):
    """The server could not be reached (or kept failing): unusable input, exit 2.

    The same exit code as ``verify --trust`` on a server it cannot fetch the key from.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, reason: str | Twenty48Error) -> None:
        super().__init__(None, reason)


class AnswerError(ServerError):
    """An answer that cannot be read (too large, not JSON, nested too deeply): exit 2."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, request: str, reason: str | Twenty48Error) -> None:
        super().__init__(
            None,
            MessageError(
                N_("the server's answer to {request} is unusable: {reason}"),
                request=request,
                reason=reason,
            ),
        )


class DeadlineError(UnreachableError):
    """No whole answer within the request's deadline (exit 2, as any unreachable server)."""


class ServerUrlError(ServerError):
    """The text given is not a server URL (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(self, reason: str | Twenty48Error) -> None:
        super().__init__(None, reason)


def server_url(url: str) -> str:
    """The base URL of a server, normalised once: ``http(s)://host[:port][/prefix]``.

    Trailing slashes, a query and a fragment are dropped, so every path
    joined to it (``/api/...``) is one URL, never ``//api/...``.
    :class:`ServerUrlError` for text that is not an http(s) URL with a host.
    """
    hint = MessageError(
        N_("a server URL starts with http:// or https://, e.g. http://127.0.0.1:8048")
    )
    try:
        parsed = urllib.parse.urlsplit(url.strip())
        port = parsed.port
    except ValueError as exc:
        raise ServerUrlError(
            MessageError(
                N_("{url} is not a server URL ({problem}); {hint}"),
                url=repr(url),
                problem=_url_problem(exc),
                hint=hint,
            )
        ) from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise ServerUrlError(
            MessageError(N_("{url} is not a server URL: {hint}"), url=repr(url), hint=hint)
        )
    if port == 0:
        raise ServerUrlError(MessageError(N_("{url} is not a server URL: port 0"), url=repr(url)))
    return urllib.parse.urlunsplit((parsed.scheme, parsed.netloc, parsed.path.rstrip("/"), "", ""))


def _url_problem(exc: ValueError) -> MessageError | str:
    """urllib's words for a URL it cannot split, translated where they are known."""
    text = str(exc)
    if text.startswith("Port out of range"):
        return MessageError(N_("port out of range 0-65535"))
    if text.startswith("Port could not be cast to integer"):
        return MessageError(N_("the port is not a number"))
    return text


class Client:
    """JSON over HTTP to one server, retried on dropped connections, every exchange bounded.

    Each request, its retries included, must be answered in full within
    ``deadline`` seconds: a per-read socket timeout alone never ends a server
    that sends one byte every few seconds.  A watchdog timer shuts the socket
    down when the deadline passes, so the blocked read returns at once.
    Answers are read with the records' strict bounded JSON reader
    (:func:`twenty48_replay.core.record.loads_strict`: size and value limits, no
    duplicate keys, no NaN, deep nesting refused without a RecursionError).
    ``listener``, if set, hears every JSON answer as it arrives (the
    :class:`~twenty48_replay.fairplay.witness.Witness` keeps them as evidence).
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = TIMEOUT,
        retries: int = RETRIES,
        deadline: float = DEADLINE,
    ) -> None:
        #: The normalised base URL (see :func:`server_url`): what messages show.
        self.url = server_url(url)
        parsed = urllib.parse.urlsplit(self.url)
        self.scheme = parsed.scheme
        self.host = parsed.hostname or ""
        self.port = parsed.port
        self.prefix = parsed.path
        self.timeout = timeout
        self.retries = retries
        self.deadline = deadline
        self._connection: http.client.HTTPConnection | None = None
        #: Requests sent again after a dropped connection or a 503 (for tests and the TUI).
        self.retried = 0
        #: Called as ``listener(request, sent, status, answer)`` for every JSON answer.
        self.listener: Listener | None = None

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._connection is None:
            kind = (
                http.client.HTTPSConnection
                if self.scheme == "https"
                else http.client.HTTPConnection
            )
            self._connection = kind(self.host, self.port, timeout=timeout)
        return self._connection

    def _exchange(
        self, method: str, target: str, payload: bytes | None, headers: dict[str, str], left: float
    ) -> tuple[int, bytes, str | None]:
        """One attempt, given up (socket shut down) after ``left`` seconds.

        Returns the status, the body and the ``Retry-After`` header (None if absent).
        """
        connection = self._connect(min(self.timeout, left))
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            sock = connection.sock
            if sock is not None:
                with contextlib.suppress(OSError):  # the fd, not an SSL object's state
                    socket.socket.shutdown(sock, socket.SHUT_RDWR)

        watchdog = threading.Timer(left, expire)
        watchdog.daemon = True
        watchdog.start()
        try:
            connection.request(method, target, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read(MAX_ANSWER + 1)
            status = response.status
            retry_after = response.getheader("Retry-After")
        except (OSError, http.client.HTTPException):
            if expired.is_set():
                raise _ExpiredError from None
            raise
        finally:
            watchdog.cancel()
        if expired.is_set():
            raise _ExpiredError
        return status, data, retry_after

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
        shown = f"{method} {path}"
        failure: str | Twenty48Error = MessageError(N_("no answer"))
        give_up = time.monotonic() + self.deadline
        wait: float | None = None  # what a 429 asked for
        for attempt in range(self.retries + 1):
            if attempt:
                self.retried += 1
                pause = min(2.0, 0.05 * 2**attempt) if wait is None else wait
                wait = None
                if time.monotonic() + pause >= give_up:
                    break
                time.sleep(pause)
            left = give_up - time.monotonic()
            if left <= 0:
                break
            try:
                status, data, retry_after = self._exchange(
                    method, self.prefix + path, payload, headers, left
                )
            except _ExpiredError:
                self.close()
                raise DeadlineError(
                    MessageError(
                        N_("no whole answer from {url} to {request} within {seconds} s"),
                        url=self.url,
                        request=shown,
                        seconds=f"{self.deadline:g}",
                    )
                ) from None
            except (OSError, http.client.HTTPException) as exc:
                self.close()
                failure = MessageError(
                    N_("cannot reach {url}: {why}"), url=self.url, why=_connection_problem(exc)
                )
                continue
            if status == RATE_LIMITED:
                # A person's pace never meets the limits; a script's is slowed to them.
                wait = _seconds(retry_after)
                failure = MessageError(
                    N_("{url} answered {status}: {reason}"),
                    url=self.url,
                    status=status,
                    reason=_reason(data) or MessageError(N_("rate limited")),
                )
                continue
            if status in RETRY_STATUSES:
                failure = MessageError(
                    N_("{url} answered {status}: {reason}"),
                    url=self.url,
                    status=status,
                    reason=_reason(data) or MessageError(N_("unavailable")),
                )
                continue
            if len(data) > MAX_ANSWER:
                raise AnswerError(
                    shown, MessageError(N_("it is over {limit:,} bytes"), limit=MAX_ANSWER)
                )
            if status >= 400:
                refusal = _json_or_none(data)
                if self.listener is not None and refusal is not None:
                    self.listener(shown, body, status, refusal)
                raise ServerError(status, _reason_of(refusal) or MessageError(N_("refused")))
            try:
                answer = loads_strict(data, bom=False)
            except RecordError as exc:
                raise AnswerError(shown, exc) from None
            if self.listener is not None:
                self.listener(shown, body, status, answer)
            return answer
        if time.monotonic() >= give_up:
            raise DeadlineError(
                MessageError(
                    N_("no whole answer from {url} to {request} within {seconds} s (last: {last})"),
                    url=self.url,
                    request=shown,
                    seconds=f"{self.deadline:g}",
                    last=failure,
                )
            )
        raise UnreachableError(failure)

    # ------------------------------------------------------------------ API

    def register(self, name: str) -> Any:
        """Register a player name; the answer holds its secret (kept from :attr:`listener`)."""
        listener, self.listener = self.listener, None
        try:
            return self.request("POST", "/api/players", {"name": name})
        finally:
            self.listener = listener

    def new_game(self, player: str, secret: str | None = None) -> Any:
        """A new fair game; ``secret``: the registered name's, sent as the bearer token."""
        return self.request("POST", "/api/games", {"player": player}, secret)

    def start(self, game_id: int, token: str, client_seed: str) -> Any:
        body = {"client_seed": client_seed}
        return self.request("POST", f"/api/games/{game_id}/start", body, token)

    def move(self, game_id: int, token: str, n: int, letter: str) -> Any:
        body = {"move": letter, "n": n}
        return self.request("POST", f"/api/games/{game_id}/moves", body, token)

    def finish(self, game_id: int, token: str) -> Any:
        return self.request("POST", f"/api/games/{game_id}/finish", None, token)

    def game(self, game_id: int) -> Any:
        return self.request("GET", f"/api/games/{game_id}")

    def record(self, game_id: int) -> Any:
        return self.request("GET", f"/api/games/{game_id}/record")

    def record_url(self, game_id: int) -> str:
        """Where a finished game's signed record is (for people to fetch)."""
        return f"{self.url}/api/games/{game_id}/record"

    def leaderboard(self, limit: int = 10) -> Any:
        return self.request("GET", f"/api/leaderboard?limit={limit}")

    def key(self) -> Any:
        return self.request("GET", "/.well-known/twenty48-key")


class _ExpiredError(Exception):
    """An attempt ran out of the request's deadline (internal to :meth:`Client.request`)."""


def _connection_problem(exc: BaseException) -> str | Twenty48Error:
    """Why a connection failed: the system's words translated where known, else as before."""
    if isinstance(exc, OSError) and (exc.errno is not None or isinstance(exc, TimeoutError)):
        return os_problem(exc)
    return str(exc) or type(exc).__name__


def _json_or_none(data: bytes) -> Any:
    try:
        return loads_strict(data, bom=False)
    except RecordError:
        return None


def _reason_of(value: Any) -> str | None:
    if isinstance(value, dict) and isinstance(value.get("error"), str):
        return str(value["error"])[:500]
    return None


def _seconds(retry_after: str | None) -> float:
    """A ``Retry-After`` in whole seconds, within 0.1 .. :data:`MAX_RETRY_AFTER` (1 if unusable)."""
    if retry_after is None or not (retry_after.isascii() and retry_after.isdigit()):
        return 1.0
    return min(MAX_RETRY_AFTER, max(0.1, float(int(retry_after[:6]))))


def _reason(data: bytes) -> str | None:
    return _reason_of(_json_or_none(data))


class MoveRefusedError(ServerError):
    """A move refused by the rules (it changes nothing), here or by the server (422)."""


class RemoteGame:
    """One fair game played on a server: state from the server's answers, each one checked.

    Every answer goes through :attr:`witness` before anything is shown: an
    answer of the wrong shape raises :class:`~twenty48_replay.fairplay.witness.ServerAnswerError`
    (exit 2), one that breaks a rule raises
    :class:`~twenty48_replay.fairplay.witness.UnfairServerError` (exit 1) carrying the
    evidence, and the game takes nothing more (:attr:`stopped`).
    """

    def __init__(
        self,
        client: Client,
        player: str,
        client_seed: str | None = None,
        *,
        secret: str | None = None,
    ) -> None:
        self.client = client
        #: The name as the server keeps it (it trims surrounding spaces): what the record must say.
        self.player = player.strip()
        self.client_seed = fair.validate_client_seed(client_seed or fair.new_client_seed())
        self.witness = Witness(client.url, self.player, self.client_seed)
        client.listener = self.witness.received
        created = client.new_game(self.player, secret)
        self.id, self.token, self.commitment = self.witness.created(created)
        try:
            opening = client.start(self.id, self.token, self.client_seed)
        except ServerError as exc:
            if exc.status != 409 or client.retried == 0:
                raise
            opening = client.game(self.id)  # our start landed before the connection dropped
            if not (
                isinstance(opening, dict)
                and opening.get("client_seed") == self.client_seed
                and opening.get("commitment") == self.commitment
            ):
                raise
        shown = self.witness.opened(opening)
        self.finished = False
        self.state = GameState("", shown.board, 0, 0)  # the seed is secret until the end

    @property
    def letters(self) -> str:
        """The moves played, each confirmed by a checked answer."""
        return self.witness.letters

    @property
    def stopped(self) -> bool:
        """A rule was found broken: no more requests for this game."""
        return self.witness.verdict is not None

    def play(self, letter: str) -> dict[str, Any]:
        """Play one move (number ``moves + 1``; retried safely); the server's checked answer.

        A letter that changes nothing is refused here, without a request
        (:class:`MoveRefusedError`), as the server would; the server
        refusing a move that does change the board is a broken rule.
        """
        if self.witness.verdict is not None:
            raise self.witness.verdict
        n = self.state.moves + 1
        board = self.state.board
        if not board.slide(Direction(letter)).changed:
            error = NullMoveError(letter, n, over=board.is_over())
            raise MoveRefusedError(None, error)
        try:
            answer = self.client.move(self.id, self.token, n, letter)
        except ServerError as exc:
            if exc.status == 422:
                raise self.witness.refused(n, letter, exc.reason) from None
            raise
        shown, gained, finished = self.witness.moved(n, letter, answer)
        self.state = GameState("", shown.board, shown.score, shown.moves)
        self.finished = finished
        assert shown.spawn is not None
        return {**answer, "gained": gained, "spawn": shown.spawn.to_json()}

    def finish(self) -> dict[str, Any]:
        """End the game (if the server has not already) and fetch its signed record.

        The reveal is checked as it arrives (its server seed against the
        commitment, its game against the last answer); the record is
        checked by :meth:`check_record`.
        """
        if self.witness.verdict is not None:
            raise self.witness.verdict
        if not self.finished:
            self.witness.revealed(self.client.finish(self.id, self.token))
            self.finished = True
        record: dict[str, Any] = self.client.record(self.id)
        return record

    def check(self, record: object, trusted: Any | None = None) -> Record:
        """Replay the signed record against everything shown; raises on the first problem.

        :class:`~twenty48_replay.fairplay.witness.UnfairServerError` (exit 1, with the
        evidence) or :class:`~twenty48_replay.fairplay.witness.ServerAnswerError` (exit 2).
        """
        return self.witness.check_record(record, trusted)

    def check_record(self, record: object, trusted: Any | None = None) -> list[str]:
        """Every way the signed record breaks what this client was shown (empty: none).

        The same check as :meth:`check`, as a list, leaving the game as it was.
        """
        verdict = self.witness.verdict
        try:
            self.witness.check_record(record, trusted)
        except Twenty48Error as exc:
            return [str(exc)]
        finally:
            self.witness.verdict = verdict
        return []
