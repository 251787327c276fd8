"""The secrets of player names registered on score servers, kept for ``play --server``.

One file per (server, name) in ``player-secrets/`` of the user data folder:
the folder is 0700, each file 0600, named by the SHA-256 of the server URL
and the name (so neither appears in a file name), holding the secret and
nothing else.  A file is written to a temporary name and renamed, so a
crash never leaves half a secret.  Reading trusts nothing: a file that is
too long, not a token, or readable by others is refused with the reason
(the secret itself never appears in a message).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path
from typing import Final

from twenty48_replay.core.errors import MessageError, os_problem
from twenty48_replay.core.i18n import N_

FOLDER: Final = "player-secrets"
#: A secret is what the server sent: URL-safe base64 of random bytes.
_SECRET: Final = re.compile(r"[A-Za-z0-9_-]{16,256}")
_MAX_FILE: Final = 512


class SecretFileError(MessageError):
    """A kept secret cannot be used (wrong mode, damaged); the message says which file."""


def _path(data_folder: Path, server: str, name: str) -> Path:
    digest = hashlib.sha256(f"{server}\n{name}".encode("utf-8", "surrogatepass")).hexdigest()
    return data_folder / FOLDER / f"{digest}.secret"


def valid_secret(secret: object) -> bool:
    """Whether a server's answer holds a usable secret."""
    return isinstance(secret, str) and _SECRET.fullmatch(secret) is not None


def load(data_folder: Path, server: str, name: str) -> str | None:
    """The kept secret of ``name`` on ``server``, or None when there is none."""
    path = _path(data_folder, server, name)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SecretFileError(
            N_("{path}: cannot read: {why}"), path=str(path), why=os_problem(exc)
        ) from None
    with os.fdopen(descriptor, "rb") as source:
        info = os.fstat(source.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise SecretFileError(N_("{path}: not a regular file"), path=str(path))
        if info.st_mode & 0o077:
            raise SecretFileError(
                N_("{path}: readable by others (mode {mode})"),
                path=str(path),
                mode=f"{info.st_mode & 0o777:o}",
            )
        data = source.read(_MAX_FILE + 1)
    try:
        secret = data.decode("ascii").strip()
    except UnicodeDecodeError:
        secret = ""
    if len(data) > _MAX_FILE or not valid_secret(secret):
        raise SecretFileError(N_("{path}: not a kept secret"), path=str(path))
    return secret


def save(data_folder: Path, server: str, name: str, secret: str) -> Path:
    """Keep ``secret`` for ``name`` on ``server`` (0600, in a 0700 folder); returns the file."""
    if not valid_secret(secret):
        raise SecretFileError(N_("the server's secret is not a token"))
    path = _path(data_folder, server, name)
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as sink:
            sink.write(secret.encode("ascii") + b"\n")
            sink.flush()
            os.fsync(sink.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return path
