"""The server's key rules: which key ``serve`` may sign with.

The database remembers every key the server has signed with
(:mod:`twenty48_replay.store.server_keys`, append-only).  At start,
:func:`settle` compares the key file with that history:

* the key file holds the current key: serve;
* no key recorded yet: the key file's key (made if missing) becomes current;
  a database upgraded from schema version 2 whose signed records name this
  key has it recorded from its first game on;
* a missing or different key file while the database holds signed records:
  refused (exit 2, one line), because signing with another key would make
  every published record fail ``verify --trust URL`` as not fair, unless
  the operator says ``--rotate-key``: then the key file's key (made if
  missing) becomes current and the old one is retired, still published with
  the time it was in use;
* a key that was current before (retired or revoked) never comes back, and
  ``--rotate-key`` with nothing to rotate is refused (left in a unit file it
  would silently accept the next lost key).

:func:`revoke` marks a retired key revoked with a reason (``twenty48 admin
revoke-key``), :func:`key_set` builds the published key set document
(SPEC 11.6), and :func:`refuse_stale_signer` is what the writer asks before
it signs: another process may have rotated the key since this one started.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Final

import attrs
from sqlalchemy.engine import Connection

from twenty48_replay.core.errors import (
    EXIT_FAILED,
    EXIT_UNUSABLE,
    KeyFileError,
    StoreError,
    Twenty48Error,
)
from twenty48_replay.core.i18n import N_, _
from twenty48_replay.core.timestamps import iso_ms, now_ms
from twenty48_replay.fairplay.keyset import KeyPeriod, key_set_document
from twenty48_replay.fairplay.signing import ServerKey
from twenty48_replay.store import Store
from twenty48_replay.store import fair_games as fair_store

#: How many characters of the operating system user name a key event keeps.
MAX_ACTOR: Final = 200


class KeyRuleError(Twenty48Error):
    """A key rule was broken: an English message from a template (translated for people)."""

    def __init__(self, template: str, **values: object) -> None:
        self.template = template
        self.values = values
        super().__init__(template.format(**values))

    def translated(self) -> str:
        return _(self.template).format(**self.values)


class KeyRefusedError(KeyRuleError):
    """``serve`` cannot start with this key file (exit 2)."""

    exit_code: ClassVar[int] = EXIT_UNUSABLE


class KeyActionError(KeyRuleError):
    """An operator's key action is not possible (unknown key, the key in use; exit 1)."""

    exit_code: ClassVar[int] = EXIT_FAILED


def actor() -> str:
    """Who runs this process, for the key history (the operating system user)."""
    try:
        name = getpass.getuser()
    except (OSError, KeyError):
        name = f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"
    return name[:MAX_ACTOR] or "unknown"


def _when(ms: int) -> str:
    return iso_ms(ms) or str(ms)


def settle(
    store: Store,
    path: Path,
    loaded: ServerKey | None,
    *,
    rotate: bool,
    make_key: Callable[[], ServerKey],
) -> tuple[ServerKey, list[str]]:
    """The key ``serve`` signs with, recorded in the database; and notes for the operator.

    ``loaded`` is the key file's key (None: there is no key file at ``path``);
    ``make_key`` makes and stores a new key there, called only once the
    rules allow one.  Raises :class:`KeyRefusedError` when they do not.
    """
    with store.reading() as connection:
        plan = _plan(connection, path, None if loaded is None else loaded.key_id, rotate)
    key = loaded if loaded is not None else make_key()
    try:
        with store.transaction() as connection:
            plan = _plan(connection, path, key.key_id, rotate)  # again, under the write lock
            notes = _apply(connection, plan, key)
    except StoreError:
        with store.reading() as connection:
            history = fair_store.key_history(connection)
        if history.last_seq == plan.after_seq:
            raise  # not a race: the database failed
        if history.current is None or history.current.key_id != key.key_id:
            raise KeyRefusedError(
                N_(
                    "another server process changed the key history while this one started; "
                    "start it again"
                )
            ) from None
        notes = []  # another process recorded this very key meanwhile
    return key, notes


@attrs.define
class _Plan:
    """What :func:`settle` records: ``keep``, ``first`` (since ``since_ms``) or ``rotate``."""

    action: str
    after_seq: int
    since_ms: int | None = None
    #: Key ids of stored records whose public key nobody recorded (schema 2 databases).
    unknown: tuple[str, ...] = ()
    retired: str | None = None


def _plan(connection: Connection, path: Path, key_id: str | None, rotate: bool) -> _Plan:
    """Decide by the rules in the module docstring; raises :class:`KeyRefusedError`."""
    history = fair_store.key_history(connection)
    current = history.current
    shown = str(path)
    if current is None:
        signed = fair_store.signed_keys(connection)
        if rotate and not signed:
            raise KeyRefusedError(
                N_("--rotate-key: the database has no key yet, so there is nothing to rotate")
            )
        if key_id is not None and key_id in signed and not rotate:
            others = tuple(sorted(k for k in signed if k != key_id))
            return _Plan("first", 0, signed[key_id], others)
        if signed and not rotate:
            names = ", ".join(sorted(signed))
            if key_id is None:
                raise KeyRefusedError(
                    N_(
                        "the database holds records signed with key {keys}, and the key file "
                        "{path} is missing: start with the key file that signed them, or with "
                        "--rotate-key to sign with a new key from now on"
                    ),
                    keys=names,
                    path=shown,
                )
            raise KeyRefusedError(
                N_(
                    "the key file {path} holds key {key}, but the database holds records signed "
                    "with key {keys}: start with the key file that signed them, or with "
                    "--rotate-key to sign with {key} from now on"
                ),
                path=shown,
                key=key_id,
                keys=names,
            )
        return _Plan("first", 0, None, tuple(sorted(signed)) if rotate else ())
    if key_id == current.key_id:
        if rotate:
            raise KeyRefusedError(
                N_(
                    "--rotate-key: the key file {path} holds key {key}, the key in use already; "
                    "give a new key file (or a missing one, to make a new key), or leave "
                    "--rotate-key out"
                ),
                path=shown,
                key=key_id,
            )
        return _Plan("keep", history.last_seq)
    if key_id is not None:
        used = history.use_of(key_id)
        if used is not None:
            template = (
                N_(
                    "the key file {path} holds key {key}, which this server used until {until} "
                    "and which is revoked; a key is used for one period only: give a new key file"
                )
                if used.revoked is not None
                else N_(
                    "the key file {path} holds key {key}, which this server used until {until}; "
                    "a key is used for one period only: give a new key file"
                )
            )
            raise KeyRefusedError(template, path=shown, key=key_id, until=_when(used.until_ms or 0))
    if not rotate and fair_store.has_signed_records(connection):
        if key_id is None:
            raise KeyRefusedError(
                N_(
                    "the key file {path} is missing, but the database signs with key {current} "
                    "and holds records it signed: restore the key file, or start with "
                    "--rotate-key to sign with a new key from now on ({current} stays published "
                    "as retired)"
                ),
                path=shown,
                current=current.key_id,
            )
        raise KeyRefusedError(
            N_(
                "the key file {path} holds key {key}, but the database signs with key {current} "
                "and holds records it signed: use the key file of {current}, or start with "
                "--rotate-key to sign with {key} from now on ({current} stays published as "
                "retired)"
            ),
            path=shown,
            key=key_id,
            current=current.key_id,
        )
    since = max(now_ms(), current.at_ms)
    return _Plan("rotate", history.last_seq, since, retired=current.key_id)


def _apply(connection: Connection, plan: _Plan, key: ServerKey) -> list[str]:
    """Record ``plan`` for ``key``; the notes the operator is shown."""
    notes: list[str] = []
    if plan.action == "keep":
        return notes
    since = plan.since_ms if plan.since_ms is not None else now_ms()
    fair_store.append_key_event(
        connection,
        plan.after_seq,
        at_ms=since,
        event=fair_store.CURRENT,
        key_id=key.key_id,
        public_key=key.public_key_hex,
        actor=actor(),
    )
    if plan.retired is not None:
        notes.append(
            _(
                "key {old} retired (still published, with the time it was in use); "
                "key {new} signs from {since}"
            ).format(old=plan.retired, new=key.key_id, since=_when(since))
        )
    if plan.unknown:
        notes.append(
            _(
                "records signed with key {keys} cannot be checked against this server's "
                "published keys: no public key of theirs was recorded"
            ).format(keys=", ".join(plan.unknown))
        )
    return notes


def revoke(store: Store, key_id: str, reason: str) -> fair_store.KeyUse:
    """Mark the retired key ``key_id`` revoked, with ``reason`` (append-only); its period."""
    with store.transaction() as connection:
        history = fair_store.key_history(connection)
        use = history.use_of(key_id)
        if use is None:
            raise KeyActionError(
                N_("no key {key} in this server's key history ('twenty48 admin keys' lists them)"),
                key=key_id,
            )
        if use.until_ms is None:
            raise KeyActionError(
                N_(
                    "key {key} is the key in use: rotate to a new key first "
                    "('twenty48 serve --rotate-key'), then revoke {key}"
                ),
                key=key_id,
            )
        if use.revoked is not None:
            raise KeyActionError(
                N_("key {key} was revoked already, on {when}: {reason}"),
                key=key_id,
                when=_when(use.revoked.at_ms),
                reason=use.revoked.reason or "",
            )
        fair_store.append_key_event(
            connection,
            history.last_seq,
            at_ms=now_ms(),
            event=fair_store.REVOKED,
            key_id=key_id,
            reason=reason,
            actor=actor(),
        )
        return fair_store.key_history(connection).use_of(key_id) or use


def key_history(store: Store) -> fair_store.KeyHistory:
    """The key history, read in one snapshot."""
    with store.reading() as connection:
        return fair_store.key_history(connection)


def key_set(history: fair_store.KeyHistory) -> dict[str, Any] | None:
    """The key set document (SPEC 11.6) of ``history``, or None before any key was recorded."""
    periods = [
        KeyPeriod(
            bytes.fromhex(use.public_key),
            _when(use.since_ms),
            None if use.until_ms is None else _when(use.until_ms),
            use.revoked is not None,
            None if use.revoked is None else use.revoked.reason,
        )
        for use in history.uses()
    ]
    return key_set_document(periods) if periods else None


def refuse_stale_signer(connection: Connection, key_id: str) -> str | None:
    """Why a process holding ``key_id`` must not sign now (another process rotated), or None."""
    current = fair_store.current_key_id(connection)
    if current is not None and current != key_id:
        return (
            f"this server process signs with key {key_id}, but the key in use is now {current} "
            "(rotated by another process); restart it with the current key file"
        )
    return None


#: How many ``*.pem`` files of one folder :func:`key_files_holding` reads at most.
MAX_KEY_FILES_LOOKED_AT: Final = 100


def key_files_holding(folder: Path, key_id: str) -> list[Path]:
    """The private key files in ``folder`` (``*.pem``, sorted) that hold the key ``key_id``.

    Files that are not a private key this process may read (a public key, a
    certificate, a file open to others, another user's) are passed over: the
    answer only names where the key is, for the operator to keep a copy of it.
    """
    found: list[Path] = []
    try:
        candidates = sorted(folder.glob("*.pem"))[:MAX_KEY_FILES_LOOKED_AT]
    except OSError:
        return found
    for path in candidates:
        try:
            if ServerKey.load(path).key_id == key_id:
                found.append(path)
        except (KeyFileError, OSError):
            continue
    return found
