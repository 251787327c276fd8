"""Provably fair games: commit and reveal, the seed derivation, and the signed bytes.

Whoever holds a game's seed knows every future spawn, so a self-seeded
record proves only that the rules were kept.  A fair game (schema/SPEC.md,
section 11) takes its seed from two halves: the server commits to a secret
``server_seed`` (publishing its SHA-256) before the first move, the player
then adds a ``client_seed``, and the game's v1 seed is
HMAC-SHA256(server seed, client seed).  The server reveals its seed when the
game ends and signs the finished record (Ed25519, :mod:`twenty48_replay.fairplay.signing`).
Underneath, a fair record is an ordinary v1 record, so every existing
verifier still replays it.

This module is standard library only (no ``cryptography``): ``twenty48
verify`` checks commitment and derivation of every fair record without
paying for a crypto import; the signature is checked by
:mod:`twenty48_replay.fairplay.signing`, imported only when a trusted key is given.

Final API (what the server builds on)::

    new_server_seed() -> str                       # 64 lowercase hex, os.urandom(32)
    new_client_seed() -> str                       # the default client seed: 32 lowercase hex
    commitment(server_seed: str) -> str            # lowercase hex SHA-256 of the 64 ASCII chars
    game_seed(server_seed: str, client_seed: str) -> str  # lowercase hex HMAC-SHA256
    validate_server_seed(text) -> str              # RecordError(field="server_seed")
    validate_client_seed(text) -> str              # 1-128 code points; RecordError("client_seed")
    canonical_bytes(record_dict) -> bytes          # the signed bytes: record without "signature"
    FairInfo(commitment, server_seed, client_seed, key_id, game_id, started, ended)
        .to_dict() / FairInfo.from_dict(obj)       # RecordError naming "fair.<key>"
    TIMESTAMP_PATTERN                              # a real date and time (SPEC 11.4), as regex
    validate_timestamp(value, field) -> str        # RecordError unless a real date and time
    timestamp_instant(text) -> (seconds, nanos)    # since 1970 UTC: compare times as instants
    fair_check.fair_info(record: Record) -> FairInfo | None
    fair_check.check_fair(record: Record, trusted: SignatureChecker | None = None) -> FairCheck
        # FairCheck.status: "self-seeded" | "fair" | "unchecked" | "not fair"
        # FairCheck.signature: "checked" | "unchecked" | None (self-seeded)
        # FairCheck.reasons: tuple[str, ...], FairCheck.codes: tuple[Reason, ...]
    SIGNATURE_HEX_LENGTH = 128, KEY_ID_HEX_LENGTH = 16
    key_id_of(public_key: bytes) -> str          # first 16 hex of SHA-256 of the raw key

    replay.verify(record, trusted=None) -> VerifyResult   # replay + check_fair in one:
        # .valid is False for "not fair"; .fair / .signature as in FairCheck;
        # the fair reasons follow the replay reasons.  Store.import_record and
        # `twenty48 import` use it, so a not-fair record is never stored.

The record reader (:mod:`twenty48_replay.core.record`) calls
:func:`validate_fair_fields`, so a malformed ``fair`` object or
``signature`` is an unreadable record, like any other ill-typed field.
This module therefore never imports the record: the checks of a whole
:class:`Record` are :mod:`twenty48_replay.core.fair_check`'s, a floor above.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from collections.abc import Mapping
from typing import Any, Final, Protocol

import attrs

from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.reasons import Reason

SERVER_SEED_BYTES: Final = 32
MAX_CLIENT_SEED_LENGTH: Final = 128
MAX_GAME_ID_LENGTH: Final = 128
KEY_ID_HEX_LENGTH: Final = 16
SIGNATURE_HEX_LENGTH: Final = 128
#: Integers in the canonical form stay within what every JSON reader holds exactly.
MAX_CANONICAL_INTEGER: Final = 2**53
FAIR_KEYS: Final = (
    "commitment",
    "server_seed",
    "client_seed",
    "key_id",
    "game_id",
    "started",
    "ended",
)
_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_KEY_ID: Final = re.compile(r"[0-9a-f]{16}")
_SIGNATURE: Final = re.compile(r"[0-9a-f]{128}")
#: A real date and time (SPEC 11.4): months 01-12, days that exist in that month
#: (29 February in leap years of the proleptic Gregorian calendar only), hours 00-23,
#: minutes and seconds 00-59 (no leap second), offsets -23:59 to +23:59.  The schema's
#: ``$defs/time`` pattern is this text between ``^`` and ``$`` (a test compares them).
#: Always matched whole (``fullmatch``): with ``match`` and ``$``, ``...Z\n`` would pass.
TIMESTAMP_PATTERN: Final = (
    r"(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))"
    r"|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?"
    r"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
_TIMESTAMP: Final = re.compile(TIMESTAMP_PATTERN)

# ---------------------------------------------------------------- seeds


def new_server_seed() -> str:
    """A fresh server seed: 32 bytes from the OS, as 64 lowercase hex characters."""
    return os.urandom(SERVER_SEED_BYTES).hex()


def new_client_seed() -> str:
    """The client's default seed: 16 random bytes as 32 lowercase hex characters."""
    return secrets.token_hex(16)


def validate_server_seed(text: object, field: str = "server_seed") -> str:
    """A server seed is exactly 64 lowercase hex characters; raises :class:`RecordError`."""
    if not isinstance(text, str) or _HEX64.fullmatch(text) is None:
        raise RecordError(Reason("fair.not_hex64"), field=field)
    return text


def validate_client_seed(text: object, field: str = "client_seed") -> str:
    """A client seed is 1-128 code points encodable as UTF-8; raises :class:`RecordError`."""
    if not isinstance(text, str):
        raise RecordError(Reason("fair.not_string"), field=field)
    if not text:
        raise RecordError(Reason("fair.empty"), field=field)
    if len(text) > MAX_CLIENT_SEED_LENGTH:
        raise RecordError(
            Reason("fair.too_long", {"length": len(text), "limit": MAX_CLIENT_SEED_LENGTH}),
            field=field,
        )
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordError(
            Reason("fair.not_utf8_at", {"character": exc.start + 1}), field=field
        ) from None
    return text


def commitment(server_seed: str) -> str:
    """Lowercase hex SHA-256 of the server seed's 64 ASCII characters."""
    return hashlib.sha256(validate_server_seed(server_seed).encode("ascii")).hexdigest()


def game_seed(server_seed: str, client_seed: str) -> str:
    """The game's v1 seed: hex HMAC-SHA256(key=server seed ASCII, msg=client seed UTF-8)."""
    key = validate_server_seed(server_seed).encode("ascii")
    message = validate_client_seed(client_seed).encode("utf-8")
    return hmac.digest(key, message, "sha256").hex()


def key_id_of(public_key: bytes) -> str:
    """A key's id: the first 16 lowercase hex characters of SHA-256 of its raw 32 bytes."""
    return hashlib.sha256(public_key).hexdigest()[:KEY_ID_HEX_LENGTH]


# ---------------------------------------------------------------- canonical bytes


_ESCAPES: Final[dict[int, str]] = {
    **{c: f"\\u{c:04x}" for c in range(0x20)},
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0C: "\\f",
    0x0D: "\\r",
    0x22: '\\"',
    0x5C: "\\\\",
}


def _string(text: str, where: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordError(
            Reason("canonical.lone_surrogate", {"character": exc.start + 1}), field=where
        ) from None
    return '"' + text.translate(_ESCAPES) + '"'


def _utf16_order(key: str) -> bytes:
    """Sort key: UTF-16 code units, as RFC 8785 says (big-endian bytes compare the same)."""
    return key.encode("utf-16-be")


def _canonical(value: Any, where: str, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int) and not isinstance(value, float):
        if abs(value) > MAX_CANONICAL_INTEGER:
            raise RecordError(Reason("canonical.beyond", {"value": value}), field=where)
        out.append(str(int(value)))
    elif isinstance(value, float):
        raise RecordError(Reason("canonical.fraction", {"value": value}), field=where)
    elif isinstance(value, str):
        out.append(_string(value, where))
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _canonical(item, f"{where}[{i}]", out)
        out.append("]")
    elif isinstance(value, Mapping):
        for key in value:
            if not isinstance(key, str):
                raise RecordError(Reason("canonical.key", {"key": key}), field=where)
            _string(key, f"{where}.{key}" if where else key)
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_order)):
            if i:
                out.append(",")
            out.append(_string(key, where))
            out.append(":")
            _canonical(value[key], f"{where}.{key}" if where else key, out)
        out.append("}")
    else:
        raise RecordError(Reason("canonical.not_json", {"type": type(value).__name__}), field=where)


def canonical_bytes(record_dict: Mapping[str, Any]) -> bytes:
    """The bytes that are signed: the record object without ``signature``, canonical.

    RFC 8785 (JCS) restricted to integers (schema/SPEC.md, section 11.5):
    keys sorted by UTF-16 code units at every level, no whitespace, strings
    escaped only where JSON requires (``"``, ``\\``, U+0000-U+001F, short
    forms where they exist, else ``\\u00xx`` in lowercase hex), UTF-8.
    Raises :class:`RecordError` for a non-integer number, an integer beyond
    ±2^53 or a lone surrogate: such a record cannot be signed or verified.
    """
    body = {key: value for key, value in record_dict.items() if key != "signature"}
    out: list[str] = []
    _canonical(body, "", out)
    return "".join(out).encode("utf-8")


# ---------------------------------------------------------------- the fair object


def _timestamp(value: object, field: str) -> str:
    if not isinstance(value, str) or _TIMESTAMP.fullmatch(value) is None:
        raise RecordError(Reason("fair.time"), field=field)
    return value


def validate_timestamp(value: object, field: str) -> str:
    """A time of SPEC 11.4 (``fair.started``, a key's ``from``); raises :class:`RecordError`."""
    return _timestamp(value, field)


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days from 1970-01-01 to a proleptic Gregorian date (any year, no datetime limits)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def timestamp_instant(text: str) -> tuple[int, int]:
    """The instant a valid timestamp names: (seconds since 1970-01-01T00:00:00Z, nanoseconds).

    Exact, offsets applied, so two timestamps compare as instants by comparing
    these pairs (``2026-01-01T01:00:00+01:00`` equals ``2026-01-01T00:00:00Z``);
    year 0000 and 9999 with any offset work (no ``datetime`` range to leave).
    Raises :class:`RecordError` for text that is not a timestamp of SPEC 11.4.
    """
    _timestamp(text, "timestamp")
    days = _days_from_civil(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    seconds = days * 86400 + int(text[11:13]) * 3600 + int(text[14:16]) * 60 + int(text[17:19])
    rest = text[19:]
    nanos = 0
    if rest.startswith("."):
        end = 1
        while rest[end] in "0123456789":
            end += 1
        digits = rest[1:end]
        nanos = int(digits.ljust(9, "0"))
        rest = rest[end:]
    if rest != "Z":
        offset = int(rest[1:3]) * 3600 + int(rest[4:6]) * 60
        seconds -= offset if rest[0] == "+" else -offset
    return seconds, nanos


def _game_id(value: object, field: str) -> str | int:
    if isinstance(value, int) and not isinstance(value, bool | float):
        if not 0 <= value <= MAX_CANONICAL_INTEGER:
            raise RecordError(Reason("fair.game_id_range", {"value": value}), field=field)
        return value
    if isinstance(value, str) and 1 <= len(value) <= MAX_GAME_ID_LENGTH:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RecordError(Reason("fair.not_utf8"), field=field) from None
        return value
    raise RecordError(Reason("fair.game_id", {"limit": MAX_GAME_ID_LENGTH}), field=field)


@attrs.frozen(slots=True)
class FairInfo:
    """The ``fair`` object of a finished fair record (schema/SPEC.md, section 11.4)."""

    commitment: str
    server_seed: str
    client_seed: str
    key_id: str
    game_id: str | int
    started: str
    ended: str

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, keys in the spec's order."""
        return {key: getattr(self, key) for key in FAIR_KEYS}

    @classmethod
    def from_dict(cls, obj: object) -> FairInfo:
        """Read and check a ``fair`` object; raises :class:`RecordError` naming ``fair.<key>``."""
        if not isinstance(obj, Mapping):
            raise RecordError(Reason("fair.not_object"), field="fair")
        for key in obj:
            if key not in FAIR_KEYS:
                raise RecordError(Reason("fair.unknown_key"), field=f"fair.{key}")
        for key in FAIR_KEYS:
            if key not in obj:
                raise RecordError(Reason("record.missing"), field=f"fair.{key}")
        key_id = obj["key_id"]
        if not isinstance(key_id, str) or _KEY_ID.fullmatch(key_id) is None:
            raise RecordError(Reason("fair.key_id"), field="fair.key_id")
        return cls(
            commitment=validate_server_seed(obj["commitment"], "fair.commitment"),
            server_seed=validate_server_seed(obj["server_seed"], "fair.server_seed"),
            client_seed=validate_client_seed(obj["client_seed"], "fair.client_seed"),
            key_id=key_id,
            game_id=_game_id(obj["game_id"], "fair.game_id"),
            started=_timestamp(obj["started"], "fair.started"),
            ended=_timestamp(obj["ended"], "fair.ended"),
        )


def validate_signature_text(value: object) -> str:
    """A signature is 128 lowercase hex characters (64 bytes); raises :class:`RecordError`."""
    if not isinstance(value, str) or _SIGNATURE.fullmatch(value) is None:
        raise RecordError(Reason("fair.signature_text"), field="signature")
    return value


def validate_fair_fields(data: Mapping[str, Any]) -> None:
    """What the record reader checks of ``fair`` and ``signature`` (structure only).

    A ``signature`` needs a ``fair`` object, and a signed record must have
    canonical bytes (integers only, no lone surrogates).
    """
    if "fair" in data:
        FairInfo.from_dict(data["fair"])
    if "signature" in data:
        validate_signature_text(data["signature"])
        if "fair" not in data:
            raise RecordError(Reason("fair.signature_alone"), field="signature")
        canonical_bytes(data)


# ---------------------------------------------------------------- checking


class SignatureChecker(Protocol):
    """What :func:`check_fair` needs of a trusted key (:class:`signing.TrustedKey`)."""

    @property
    def key_id(self) -> str: ...

    def verify(self, record_dict: Mapping[str, Any]) -> tuple[Reason, ...]: ...
