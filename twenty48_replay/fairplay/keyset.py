"""Key sets: every key a score server has signed with, when, and which are revoked (SPEC 11.6).

A server that rotates its key must not make its old records unverifiable,
and one whose key leaked must be able to say so.  Its well-known document
therefore may list, besides the current key (the top-level ``key_id`` and
``public_key``, which old verifiers keep reading), a ``keys`` array: each
key with the time it was in use (``from`` .. ``until``, ``until`` null for
the current key) and a ``revoked`` flag with a ``reason``.  A record is
judged by the key its ``fair.key_id`` names: that key must be listed, not
revoked, and in use at ``fair.ended`` (the signed time the server finished
the game); then its signature is checked with that key.

A revoked key is refused for every record, whatever time the record claims:
whoever holds a stolen key can write any ``ended`` they like.

This module is the format only (standard library, no ``cryptography``):
reading and checking a document (:func:`read_key_set`), building one for a
server to publish (:func:`key_set_document`), and deciding whether a key may
have signed a record (:meth:`KeySet.refusal`).  The signature itself is
checked by :mod:`twenty48_replay.fairplay.signing`.

Final API::

    KeyPeriod(public_key: bytes, since: str, until: str | None = None,
              revoked: bool = False, reason: str | None = None)
        .key_id, .to_json() -> dict     # one entry of "keys"
    key_set_document(periods) -> dict   # the document to serve; KeyFileError if inconsistent
    read_key_set(obj) -> KeySet         # a parsed well-known document, checked; KeyFileError
    KeySet(current: bytes, periods: tuple[KeyPeriod, ...])   # periods () for one plain key
        .key_id                          # the current key's id
        .listed -> bool                  # a "keys" array was given
        .period(key_id) -> KeyPeriod | None
        .to_json() -> dict               # the document again (for a page to check with)
        .refusal(key_id, ended) -> Reason | None   # why this key may not have signed then
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

import attrs

from twenty48_replay.core.errors import KeyFileError, RecordError
from twenty48_replay.core.fair import key_id_of, timestamp_instant, validate_timestamp
from twenty48_replay.core.i18n import N_
from twenty48_replay.core.reasons import Param, Reason
from twenty48_replay.core.record import MAX_NESTING
from twenty48_replay.fairplay.ed25519 import public_key_problem

ALGORITHM: Final = "Ed25519"
#: A revocation reason is shown to people: 1 to 500 code points.
MAX_REASON_LENGTH: Final = 500
#: Deepest nesting of a well-known document, the document object being level 1 (SPEC 11.6):
#: the records' limit, so no reader's answer depends on how deep its parser can go.
MAX_DOCUMENT_NESTING: Final = MAX_NESTING
ENTRY_KEYS: Final = ("key_id", "public_key", "from", "until", "revoked", "reason")
_HEX64: Final = re.compile(r"[0-9a-f]{64}")


@attrs.frozen(slots=True)
class KeyPeriod:
    """One key of a key set and the time it was in use (``until`` None: still in use)."""

    public_key: bytes
    since: str
    until: str | None = None
    revoked: bool = False
    reason: str | None = None

    @property
    def key_id(self) -> str:
        """First 16 hex characters of SHA-256 of the raw public key."""
        return key_id_of(self.public_key)

    def to_json(self) -> dict[str, Any]:
        """The entry of the document's ``keys`` array."""
        out: dict[str, Any] = {
            "key_id": self.key_id,
            "public_key": self.public_key.hex(),
            "from": self.since,
            "until": self.until,
            "revoked": self.revoked,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    def in_use_at(self, when: str) -> bool:
        """Whether ``from <= when <= until`` (as instants; no ``until``: no upper bound)."""
        instant = timestamp_instant(when)
        if instant < timestamp_instant(self.since):
            return False
        return self.until is None or instant <= timestamp_instant(self.until)


@attrs.frozen(slots=True)
class KeySet:
    """A checked well-known document: the current key, and every listed key if any."""

    current: bytes
    periods: tuple[KeyPeriod, ...] = ()

    @property
    def key_id(self) -> str:
        """The current key's id (what the server signs with now)."""
        return key_id_of(self.current)

    @property
    def listed(self) -> bool:
        """Whether the document listed its keys (a key set), not just the current key."""
        return bool(self.periods)

    def to_json(self) -> dict[str, Any]:
        """The well-known document this set was read from (keys in their order)."""
        out: dict[str, Any] = {
            "algorithm": ALGORITHM,
            "key_id": self.key_id,
            "public_key": self.current.hex(),
        }
        if self.periods:
            out["keys"] = [period.to_json() for period in self.periods]
        return out

    def period(self, key_id: str) -> KeyPeriod | None:
        """The listed key with this id, or None."""
        return next((p for p in self.periods if p.key_id == key_id), None)

    def refusal(self, key_id: object, ended: object) -> Reason | None:
        """Why a record naming ``key_id`` and ending at ``ended`` is not this set's to vouch for.

        None when the key may have signed it: the current key of a plain
        document (at any time), or a listed key that is not revoked and was
        in use at ``ended``.  The signature itself is not looked at here.
        """
        if not self.listed:
            if key_id != self.key_id:
                return Reason("key.other", {"key_id": _param(key_id), "trusted": self.key_id})
            return None
        period = self.period(key_id) if isinstance(key_id, str) else None
        if period is None:
            return Reason("key.unlisted", {"key_id": _param(key_id), "trusted": self.key_id})
        if period.revoked:
            return Reason("key.revoked", {"key_id": _param(key_id), "why": period.reason})
        if not isinstance(ended, str) or not period.in_use_at(ended):
            times: dict[str, Param] = {
                "key_id": _param(key_id),
                "ended": _param(ended),
                "since": period.since,
            }
            if period.until is None:
                return Reason("key.out_of_time_open", times)
            return Reason("key.out_of_time", {**times, "until": period.until})
        return None


def _param(value: object) -> str | None:
    """A record's value as a reason's parameter: text as f-strings showed it (None stays null)."""
    return value if value is None or isinstance(value, str) else str(value)


def _public_key(value: object, where: str) -> bytes:
    if not isinstance(value, str) or _HEX64.fullmatch(value) is None:
        raise KeyFileError(N_("{where}public_key must be 64 lowercase hex characters"), where=where)
    key = bytes.fromhex(value)
    problem = public_key_problem(key)
    if problem is not None:
        raise KeyFileError(N_("{where}public_key: {problem}"), where=where, problem=problem)
    return key


def _key_id(value: object, key: bytes, where: str) -> None:
    if value != key_id_of(key):
        if isinstance(value, str):
            raise KeyFileError(
                N_("{where}key_id {shown} does not match the public key ({key_id})"),
                where=where,
                shown=repr(value),
                key_id=key_id_of(key),
            )
        raise KeyFileError(
            N_("{where}key_id not a string does not match the public key ({key_id})"),
            where=where,
            key_id=key_id_of(key),
        )


def _time(value: object, where: str | KeyFileError) -> str:
    try:
        return validate_timestamp(value, "")
    except RecordError:
        raise KeyFileError(
            N_(
                "{where} must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z"
            ),
            where=where,
        ) from None


def _reason(value: object, where: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_REASON_LENGTH:
        raise KeyFileError(
            N_("{where} must be a string of 1 to {limit} characters"),
            where=where,
            limit=MAX_REASON_LENGTH,
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise KeyFileError(N_("{where} is not encodable as UTF-8"), where=where) from None
    return value


def _entry(obj: object, index: int) -> KeyPeriod:
    where = f"keys[{index}]"
    if not isinstance(obj, Mapping):
        raise KeyFileError(N_("{where} must be an object"), where=where)
    for name in obj:
        if name not in ENTRY_KEYS:
            raise KeyFileError(
                N_("{where}.{name} is not a key of a key entry"), where=where, name=name
            )
    for name in ENTRY_KEYS[:5]:
        if name not in obj:
            raise KeyFileError(N_("{where}.{name} is missing"), where=where, name=name)
    key = _public_key(obj["public_key"], f"{where}.")
    _key_id(obj["key_id"], key, f"{where}.")
    since = _time(obj["from"], f"{where}.from")
    until = None if obj["until"] is None else _time(obj["until"], f"{where}.until")
    if until is not None and timestamp_instant(since) > timestamp_instant(until):
        raise KeyFileError(
            N_("{where}: from {since} is after until {until}"),
            where=where,
            since=since,
            until=until,
        )
    revoked = obj["revoked"]
    if not isinstance(revoked, bool):
        raise KeyFileError(N_("{where}.revoked must be true or false"), where=where)
    if revoked != ("reason" in obj):
        raise KeyFileError(
            N_("{where}.reason is missing: a revoked key says why")
            if revoked
            else N_("{where}.reason is given for a key that is not revoked"),
            where=where,
        )
    reason = _reason(obj["reason"], f"{where}.reason") if revoked else None
    return KeyPeriod(key, since, until, revoked, reason)


def _nested_too_deep(obj: list[Any] | Mapping[Any, Any]) -> bool:
    """Whether a parsed document nests deeper than :data:`MAX_DOCUMENT_NESTING` (iteratively)."""
    stack: list[tuple[list[Any] | Mapping[Any, Any], int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DOCUMENT_NESTING:
            return True
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, Mapping)))
    return False


def read_key_set(obj: object) -> KeySet:
    """Check a parsed well-known document (plain or with ``keys``); raises :class:`KeyFileError`.

    Top-level keys other than ``algorithm``, ``key_id``, ``public_key`` and
    ``keys`` are ignored (SPEC 11.6), but the whole document, ignored keys
    included, nests at most :data:`MAX_DOCUMENT_NESTING` levels; everything
    inside ``keys`` is checked.  ``keys`` present is a key set whatever its
    value: ``"keys": null`` is refused, never read as a document without keys.
    """
    if isinstance(obj, (list, Mapping)) and _nested_too_deep(obj):
        # The words of the parser's own refusal of a deeper text, as the JavaScript reader's
        # (whose parser stops at 100 levels for a key document).
        raise KeyFileError(
            N_("not a well-known key document: {problem}"), problem=Reason("json.too_deep")
        )
    if not isinstance(obj, Mapping) or obj.get("algorithm") != ALGORITHM:
        raise KeyFileError(N_('not a twenty48 key: expected {"algorithm": "Ed25519", ...}'))
    current = _public_key(obj.get("public_key"), "")
    _key_id(obj.get("key_id"), current, "")
    if "keys" not in obj:
        return KeySet(current)
    entries = obj["keys"]
    if not isinstance(entries, list) or not entries:
        raise KeyFileError(N_("keys must be a non-empty array of key entries"))
    periods: list[KeyPeriod] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(entries):
        period = _entry(item, index)
        if period.key_id in seen:
            first = seen[period.key_id]
            raise KeyFileError(
                N_("keys[{index}]: key {key_id} is listed twice (first as keys[{first}])"),
                index=index,
                key_id=period.key_id,
                first=first,
            )
        seen[period.key_id] = index
        periods.append(period)
    in_use = [i for i, p in enumerate(periods) if p.until is None]
    if len(in_use) != 1:
        raise KeyFileError(
            N_("a key set has exactly one key in use (until null), this one has {count}"),
            count=len(in_use),
        )
    index = in_use[0]
    if periods[index].public_key != current:
        raise KeyFileError(
            N_("the key in use, keys[{index}], is not the document's public_key"), index=index
        )
    if periods[index].revoked:
        raise KeyFileError(
            N_("the key in use, keys[{index}], is revoked: a server rotates to a new key first"),
            index=index,
        )
    return KeySet(current, tuple(periods))


def key_set_document(periods: Iterable[KeyPeriod]) -> dict[str, Any]:
    """The well-known document listing ``periods``, for a server to publish.

    The current key (the one with ``until`` None) is the document's
    top-level key and comes first in ``keys``; the others follow, the most
    recently started first.  The document is read back with
    :func:`read_key_set`, so whatever breaks a rule of SPEC 11.6 (no key or
    two keys in use, a revoked current key, a reason missing, a key listed
    twice, ``from`` after ``until``) raises :class:`KeyFileError` here and is
    never published.
    """
    items = list(periods)
    current = [p for p in items if p.until is None]
    if len(current) != 1:
        raise KeyFileError(
            N_("a key set has exactly one key in use (until None), these periods have {count}"),
            count=len(current),
        )
    for period in items:
        _time(period.since, KeyFileError(N_("the 'from' of key {key_id}"), key_id=period.key_id))
    rest = sorted(
        (p for p in items if p.until is not None),
        key=lambda p: timestamp_instant(p.since),
        reverse=True,
    )
    head = current[0]
    document: dict[str, Any] = {
        "algorithm": ALGORITHM,
        "key_id": head.key_id,
        "public_key": head.public_key.hex(),
        "keys": [p.to_json() for p in (head, *rest)],
    }
    read_key_set(document)
    return document
