"""One error tree for the whole library.

Every failure a user can cause is a subclass of :class:`Twenty48Error` and
carries the exit code the command line reports for it, so the CLI maps
errors to exit codes in one place and never shows a traceback:

* 1 (``EXIT_FAILED``): a domain error or a failed verification, e.g. a move
  that does not change the board, an unknown game id.
* 2 (``EXIT_UNUSABLE``): input that cannot be used at all, e.g. a record that
  is not JSON, has wrong types or breaks a limit.
"""

from __future__ import annotations

import errno
from collections.abc import Callable, Sequence
from typing import ClassVar, Final

from .i18n import N_, _, number
from .reasons import Reason, in_field, text

EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_UNUSABLE: Final = 2


class Twenty48Error(Exception):
    """Base of every error this library raises on purpose.

    ``str(error)`` is always English: it may end up in JSON (``"error"``),
    which never changes with the language.  :meth:`translated` is the same
    message in the chosen language, for people (:mod:`twenty48_replay.core.i18n`);
    a subclass whose text is built from a template translates the template.
    """

    exit_code: ClassVar[int] = EXIT_FAILED

    def translated(self) -> str:
        """The message in the current language (English where there is no translation)."""
        return _(str(self))


class RecordError(Twenty48Error, ValueError):
    """A record is unreadable: not JSON, wrong types, a broken limit.

    ``code`` is the reason as a stable code with parameters (:mod:`twenty48_replay.core.reasons`;
    a plain string becomes the code ``text``), ``reason`` its English text.
    ``field`` names the offending field (``final_board[2][3]``), ``source``
    the file and ``index`` the 1-based record number (the line, for JSON
    Lines) when the reader knows them.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE

    def __init__(
        self,
        reason: Reason | str,
        *,
        field: str | None = None,
        source: str | None = None,
        index: int | None = None,
    ) -> None:
        self.code = reason if isinstance(reason, Reason) else text(reason)
        self.reason = str(self.code)
        self.field = field
        self.source = source
        self.index = index
        super().__init__(self.message)

    def located(self, source: str | None, index: int | None) -> RecordError:
        """The same error, placed in a file and record number."""
        return RecordError(self.code, field=self.field, source=source, index=index)

    @property
    def problem(self) -> Reason:
        """The reason with its field (``field 'score': ...``), without file and index."""
        return in_field(self.field, self.code)

    def to_json(self) -> dict[str, object]:
        """The code of ``error`` in ``--json`` (``error_code``): the problem in its field."""
        return self.problem.to_json()

    @property
    def message(self) -> str:
        """One line: where (file, line, field) and what is wrong."""
        return self._text(lambda words: words)

    def _text(self, tr: Callable[[str], str]) -> str:
        problem = self.problem.render(tr)
        if self.source is None:
            return problem
        where = self.source if self.index is None else f"{self.source}:{self.index}"
        return f"{where}: {problem}"

    def __str__(self) -> str:
        return self.message

    def translated(self) -> str:
        """The message in the current language, the reason translated from its code."""
        return self._text(_)


class NullMoveError(Twenty48Error, ValueError):
    """A direction that does not change the board was played.

    The original game ignores such a key press; a record cannot contain one.
    ``move_number`` is 1-based when known.
    """

    def __init__(self, direction: str, move_number: int | None = None, over: bool = False) -> None:
        self.direction = direction
        self.move_number = move_number
        self.over = over
        super().__init__(self._text(lambda text: text))

    def _text(self, tr: Callable[[str], str]) -> str:
        if self.move_number:
            where = tr(N_("move {number} ({direction})")).format(
                number=self.move_number, direction=self.direction
            )
        else:
            where = tr(N_("move {direction}")).format(direction=self.direction)
        why = tr(N_("the game is over") if self.over else N_("it does not change the board"))
        return tr(N_("{where} is not a valid move: {why}")).format(where=where, why=why)

    @property
    def code(self) -> Reason:
        """The verification reason (SPEC 8.4) as a code; the same words as ``str()``
        when the move number is known, as it always is in a replay."""
        return Reason(
            "move.game_over" if self.over else "move.no_change",
            {"number": self.move_number, "direction": self.direction},
        )

    def translated(self) -> str:
        return self._text(_)


class GameNotFoundError(Twenty48Error, LookupError):
    """No game with this id in the store (exit 1)."""

    def __init__(self, game_id: object) -> None:
        self.game_id = game_id
        super().__init__(self.TEMPLATE.format(id=game_id))

    TEMPLATE: ClassVar[str] = N_("no game with id {id}")

    def translated(self) -> str:
        return _(self.TEMPLATE).format(id=self.game_id)


class ConflictError(Twenty48Error):
    """The log moved on since it was read: another writer appended first (exit 1).

    Optimistic concurrency: an append names the sequence number it expects
    to write; if the game already has it, the append is refused and nothing
    is written.  Reload the game and try again.
    """

    def __init__(self, game_id: int, expected: int, actual: int | None = None) -> None:
        self.game_id = game_id
        self.expected = expected
        self.actual = actual
        super().__init__(self._text(lambda text: text))

    def _text(self, tr: Callable[[str], str]) -> str:
        now = ""
        if self.actual is not None:
            now = tr(N_(" (it has {moves} moves now)")).format(moves=self.actual)
        return tr(
            N_(
                "game {id} was changed by another process: expected to write move "
                "{number}{now}; reload it and try again"
            )
        ).format(id=self.game_id, number=self.expected + 1, now=now)

    def translated(self) -> str:
        return self._text(_)


class SealedGameError(Twenty48Error):
    """A move on a signed fair-play record (exit 1): its signature covers every move.

    A fair game kept locally (``play --server``, or an imported signed
    record) may end before game over; appending a move would break the
    server's signature, so such a game is sealed: it is never resumed and
    takes no more moves.
    """

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        super().__init__(self.TEMPLATE.format(id=game_id))

    TEMPLATE: ClassVar[str] = N_("game {id} is a signed fair-play record; it takes no more moves")

    def translated(self) -> str:
        return _(self.TEMPLATE).format(id=self.game_id)


class ImportRejectedError(RecordError):
    """A record failed verification, so it was not imported (exit 1)."""

    exit_code: ClassVar[int] = EXIT_FAILED

    def __init__(self, reason: str | Sequence[Reason]) -> None:
        self.reasons: tuple[Reason, ...] = () if isinstance(reason, str) else tuple(reason)
        super().__init__(reason if isinstance(reason, str) else "; ".join(map(str, reason)))

    def translated(self) -> str:
        """The verification's reasons in the current language."""
        if not self.reasons:
            return super().translated()
        return "; ".join(reason.translated() for reason in self.reasons)


class MessageError(Twenty48Error):
    """An error built from an English ``template`` marked with ``N_`` and its ``params``.

    ``MessageError(N_("cannot listen on {address}: {why}"), address=..., why=...)``:
    ``str()`` is the English text (for ``--json``, which never changes with the
    language), :meth:`translated` the same in the reader's language; a
    parameter that is itself a :class:`Twenty48Error` or a
    :class:`~twenty48_replay.core.reasons.Reason` is translated with it.  A message
    without parameters is used as it is (it may hold braces), so
    ``MessageError(N_("address already in use"))`` is a translatable phrase
    to pass as a parameter.
    """

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(self._text(english=True))

    def _text(self, *, english: bool) -> str:
        if not self.params:
            return self.template if english else _(self.template)
        values = {key: _parameter(value, english=english) for key, value in self.params.items()}
        return (self.template if english else _(self.template)).format(**values)

    def translated(self) -> str:
        return self._text(english=False)


def _parameter(value: object, *, english: bool) -> object:
    """A parameter as a template takes it: nested messages in the language, numbers localised."""
    if isinstance(value, (Twenty48Error, Reason)):
        return str(value) if english else value.translated()
    if not english and isinstance(value, int) and not isinstance(value, bool):
        return _LocalNumber(value)
    return value


class _LocalNumber(int):
    """An integer whose ``{n:,}`` has the language's thousands separator (7.008 in Danish)."""

    def __format__(self, spec: str) -> str:
        return number(int(self)) if spec == "," else int.__format__(self, spec)


#: The operating system's words for the errors a person meets (its own are English).
_OS_ERRORS: Final = {
    errno.EADDRINUSE: N_("address already in use"),
    errno.EADDRNOTAVAIL: N_("cannot assign requested address"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("operation not permitted"),
    errno.ENOENT: N_("no such file or directory"),
    errno.ECONNREFUSED: N_("connection refused"),
    errno.ECONNRESET: N_("connection reset by peer"),
    errno.EHOSTUNREACH: N_("no route to host"),
    errno.ENETUNREACH: N_("network is unreachable"),
    errno.ETIMEDOUT: N_("connection timed out"),
    errno.ELOOP: N_("too many levels of symbolic links"),
    errno.EISDIR: N_("is a directory"),
    errno.ENOTDIR: N_("not a directory"),
    errno.EROFS: N_("read-only file system"),
    errno.ENOSPC: N_("no space left on device"),
    errno.EDQUOT: N_("disk quota exceeded"),
    errno.ENAMETOOLONG: N_("file name too long"),
}


def os_problem(exc: BaseException) -> MessageError | str:
    """What went wrong in ``exc`` (an OSError, a socket's error) in words that translate.

    A common ``errno`` becomes a marked phrase (:data:`_OS_ERRORS`); anything
    else stays the system's text, lower-cased as the system's phrase is
    inside a sentence.
    """
    import socket  # only here: the verify path imports this module
    import ssl

    if isinstance(exc, ssl.SSLCertVerificationError):
        # A certificate this machine does not trust: the fix the operator's guide gives.
        return MessageError(
            N_(
                "{reason}; if the server's certificate comes from a private certificate "
                "authority, give that authority's certificate with SSL_CERT_FILE=ca.pem "
                '(the operator\'s guide, "TLS")'
            ),
            reason=str(exc) or type(exc).__name__,
        )
    if isinstance(exc, ssl.SSLError):
        # Its errno is the TLS library's code, not the system's (1 would read "operation not
        # permitted"): the library's own words, which name the certificate problem.
        return str(exc) or type(exc).__name__
    if isinstance(exc, socket.gaierror):
        return MessageError(N_("no such host"))
    if isinstance(exc, OSError) and exc.errno in _OS_ERRORS:
        return MessageError(_OS_ERRORS[exc.errno])
    if isinstance(exc, TimeoutError):
        return MessageError(N_("timed out"))
    text = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
    return text[:1].lower() + text[1:]


class StoreError(MessageError):
    """The database cannot be used: unreadable, not ours, too new, locked (exit 2).

    Built from an English ``template`` marked with ``N_`` and its ``params``
    (``StoreError(N_("{db}: folder {folder} does not exist"), db=..., folder=...)``),
    so the line is in the reader's language: see :class:`MessageError`.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE


class KeyFileError(MessageError):
    """A signing or trusted key cannot be used: unreadable, malformed, open to others,
    or a server whose key cannot be fetched (exit 2).

    Built from an English ``template`` marked with ``N_`` and its ``params``
    (``KeyFileError(N_("cannot read key file {path}: {error}"), path=..., error=...)``):
    see :class:`MessageError`.
    """

    exit_code: ClassVar[int] = EXIT_UNUSABLE


class DamagedGameError(Twenty48Error):
    """A stored game's log and projection disagree, or its rows are damaged (exit 1).

    Every read of a game checks its log against the projection (digest,
    move count, score, board) first, so a log changed behind the store's
    back is reported, never used or exported.  ``problems`` lists each
    difference; ``twenty48 check`` shows them all.
    """

    def __init__(self, game_id: int, problems: list[str]) -> None:
        self.game_id = game_id
        self.problems = tuple(problems)
        super().__init__(self._text(lambda text: text))

    def _text(self, tr: Callable[[str], str]) -> str:
        more = ""
        if len(self.problems) > 1:
            more = tr(N_(" (and {count} more)")).format(count=len(self.problems) - 1)
        return tr(N_("game {id} is damaged: {problem}{more}; see 'twenty48 check'")).format(
            id=self.game_id, problem=self.problems[0], more=more
        )

    def translated(self) -> str:
        return self._text(_)
