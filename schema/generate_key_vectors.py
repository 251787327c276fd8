"""Fair-play vectors about keys and times (SPEC 11.4, 11.6, 11.9), for generate_fair_vectors.py.

Run through ``python schema/generate_fair_vectors.py``; deterministic like it.

* ``ed25519.json``: raw signature cases (key, signature, message, verdict) for
  the strict verification of SPEC 11.6: small-order and non-canonical keys,
  R and S rules, and a mixed-order key where only the cofactorless equation
  gives the expected verdict.  Signatures ``cryptography`` cannot make are
  built here with :mod:`twenty48_replay.fairplay.ed25519`'s arithmetic.
* ``key-files/``: files that are or are not key files (PEM with text around
  it, a BOM, two blocks, the well-known document with duplicate keys, NaN,
  over 64 KiB ...) and ``key-files/expected.json``.
* ``keysets/``: key set documents (rotation, revocation) and records signed
  at various times by various keys, with their verdicts.
* ``timestamps/``: signed records whose ``fair`` times are or are not real
  dates and times, with their verdicts.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from twenty48_replay.bulk.batch import verify_raw
from twenty48_replay.bulk.sources import RawRecord
from twenty48_replay.core.errors import KeyFileError
from twenty48_replay.core.fair import canonical_bytes
from twenty48_replay.fairplay import ed25519
from twenty48_replay.fairplay.keyset import KeyPeriod, key_set_document
from twenty48_replay.fairplay.signing import (
    SPKI_PREFIX,
    ServerKey,
    TrustedKey,
    TrustedKeySet,
    read_key_file,
    verify_signature,
)

Verdict = Callable[[bytes, TrustedKey | TrustedKeySet | None], dict[str, Any]]
#: RFC 8032, section 7.1, TEST 3 secret key: the key set's revoked key.
THIRD_SEED = bytes.fromhex("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7")
#: A key no document lists.
UNLISTED_SEED = hashlib.sha256(b"twenty48-replay vector key nobody lists").digest()


def dump_json(path: Path, obj: Any, *, ascii_only: bool = False) -> bytes:
    """``obj`` as indented JSON; ``ascii_only`` escapes every non-ASCII character (\\uXXXX),
    for files whose strings hold C1 or bidirectional controls that should not sit raw in them."""
    data = (json.dumps(obj, ensure_ascii=ascii_only, indent=1) + "\n").encode("utf-8")
    path.write_bytes(data)
    return data


def fresh_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for old in path.iterdir():
        old.unlink()
    return path


def pem_of(raw: bytes, width: int = 64) -> str:
    body = base64.b64encode(SPKI_PREFIX + raw).decode("ascii")
    lines = [body[i : i + width] for i in range(0, len(body), width)]
    return "-----BEGIN PUBLIC KEY-----\n" + "\n".join(lines) + "\n-----END PUBLIC KEY-----\n"


def well_known_of(raw: bytes) -> dict[str, str]:
    return {
        "algorithm": "Ed25519",
        "key_id": hashlib.sha256(raw).hexdigest()[:16],
        "public_key": raw.hex(),
    }


# ---------------------------------------------------------------- curve points


def secret_scalar(seed: bytes) -> int:
    """The secret scalar a of an RFC 8032 private key (section 5.1.5)."""
    h = bytearray(hashlib.sha512(seed).digest()[:32])
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    return int.from_bytes(h, "little")


def small_order_points() -> list[bytes]:
    """The eight points of small order, canonically encoded, [i]T for a T of order 8."""
    y = 2
    while True:
        point = ed25519.decode_point(y.to_bytes(32, "little"))
        if point is not None:
            torsion = ed25519.scalar_mult(ed25519.L, point)
            if not ed25519.is_identity(ed25519.scalar_mult(4, torsion)):
                break
        y += 1
    return [ed25519.encode_point(ed25519.scalar_mult(i, torsion)) for i in range(8)]


def order_of(encoded: bytes) -> int:
    point = ed25519.decode_point(encoded)
    assert point is not None
    return next(n for n in (1, 2, 4, 8) if ed25519.is_identity(ed25519.scalar_mult(n, point)))


def sign_raw(a: int, public: bytes, message: bytes, r: int) -> bytes:
    """R = [r]B, S = r + k a (mod L): a signature for any scalar, key and nonce."""
    r_bytes = ed25519.encode_point(ed25519.scalar_mult(r, ed25519.BASE))
    k = ed25519.challenge(r_bytes, public, message)
    return r_bytes + ((r + k * a) % ed25519.L).to_bytes(32, "little")


def divisible_by(n: int) -> Callable[[int], bool]:
    """A test of a challenge k: whether n divides it."""
    return lambda k: k % n == 0


def message_where(test: Callable[[int], bool], r_bytes: bytes, public: bytes, label: str) -> bytes:
    """The first message ``label #i`` whose challenge k passes ``test``."""
    i = 0
    while True:
        message = f"{label} #{i}".encode()
        if test(ed25519.challenge(r_bytes, public, message)):
            return message
        i += 1


# ---------------------------------------------------------------- ed25519.json


def ed25519_cases(key_seed: bytes, other_seed: bytes) -> dict[str, Any]:
    cases: list[dict[str, Any]] = []

    def case(
        why: str, public: bytes, signature: bytes, message: bytes, key_ok: bool, valid: bool
    ) -> None:
        key_problem = ed25519.public_key_problem(public)
        assert (key_problem is None) == key_ok, (why, key_problem)
        assert (verify_signature(public, signature, message) is None) == valid, why
        cases.append(
            {
                "why": why,
                "public_key": public.hex(),
                "signature": signature.hex(),
                "message": message.hex(),
                "key": "accepted" if key_ok else "refused",
                "valid": valid,
            }
        )

    key = ServerKey.from_private_bytes(key_seed)
    other = ServerKey.from_private_bytes(other_seed)
    a = secret_scalar(key_seed)
    assert ed25519.encode_point(ed25519.scalar_mult(a, ed25519.BASE)) == key.public_key
    case("RFC 8032 7.1 test 1 (empty message)", key.public_key, key.sign(b""), b"", True, True)
    case("RFC 8032 7.1 test 2", other.public_key, other.sign(b"\x72"), b"\x72", True, True)
    case(
        "test 2's signature with test 1's key",
        key.public_key,
        other.sign(b"\x72"),
        b"\x72",
        True,
        False,
    )
    good = key.sign(b"twenty48")
    s = int.from_bytes(good[32:], "little")
    plus_l = good[:32] + (s + ed25519.L).to_bytes(32, "little")
    case(
        "S + L: the equation holds, but S is not below L",
        key.public_key,
        plus_l,
        b"twenty48",
        True,
        False,
    )

    identity = ed25519.encode_point(ed25519.IDENTITY)
    zero = bytes(32)
    # R = identity, S = 0 verifies under [S]B = R + [k]A whenever [k]A is the identity.
    for encoded in small_order_points():
        n = order_of(encoded)
        message = message_where(divisible_by(n), identity, encoded, "any record")
        case(
            f"public key of order {n} ({'the identity point' if n == 1 else 'small order'}): "
            "R = identity, S = 0 satisfies the equation for this message, the key is refused",
            encoded,
            identity + zero,
            message,
            False,
            False,
        )

    p = ed25519.P
    non_canonical = [
        ("y = p + 1: the identity, encoded non-canonically", (p + 1).to_bytes(32, "little")),
        ("y = p: y >= p", p.to_bytes(32, "little")),
        ("y = 2^255 - 1: y >= p", (2**255 - 1).to_bytes(32, "little")),
        ("x = 0 with the sign bit set (y = 1)", (1 | 1 << 255).to_bytes(32, "little")),
    ]
    y = 2
    while ed25519.decode_point(y.to_bytes(32, "little")) is not None:
        y += 1
    non_canonical.append((f"y = {y}: no x exists, not a curve point", y.to_bytes(32, "little")))
    for why, encoded in non_canonical:
        case(f"public key {why}", encoded, identity + zero, b"", False, False)

    message = b"small-order R"
    k = ed25519.challenge(identity, key.public_key, message)
    small_r = identity + (k * a % ed25519.L).to_bytes(32, "little")
    case(
        "R is the identity (small order R is allowed): the equation holds",
        key.public_key,
        small_r,
        message,
        True,
        True,
    )
    bad_r_bytes = (p + 1).to_bytes(32, "little")
    k = ed25519.challenge(bad_r_bytes, key.public_key, message)
    bad_r = bad_r_bytes + (k * a % ed25519.L).to_bytes(32, "little")
    case(
        "R is the identity encoded non-canonically (y = p + 1): refused, though the "
        "equation would hold with R reduced",
        key.public_key,
        bad_r,
        message,
        True,
        False,
    )

    # A mixed-order key: A = [a]B + T with T of order 8.  [S]B = R + [k]A holds only when
    # [k]T is the identity (k divisible by 8); [8][S]B = [8]R + [8][k]A always holds.
    torsion = ed25519.decode_point(small_order_points()[1])
    assert torsion is not None
    mixed_a = (
        int.from_bytes(hashlib.sha256(b"twenty48 mixed-order key").digest(), "little") % ed25519.L
    )
    mixed = ed25519.encode_point(
        ed25519.point_add(ed25519.scalar_mult(mixed_a, ed25519.BASE), torsion)
    )
    r = int.from_bytes(hashlib.sha256(b"twenty48 mixed-order nonce").digest(), "little") % ed25519.L
    r_bytes = ed25519.encode_point(ed25519.scalar_mult(r, ed25519.BASE))
    off = message_where(lambda k: k % 8 != 0, r_bytes, mixed, "mixed-order key")
    on = message_where(lambda k: k % 8 == 0, r_bytes, mixed, "mixed-order key")
    case(
        "mixed-order key, k not divisible by 8: the cofactored equation holds, the cofactorless "
        "one does not: invalid",
        mixed,
        sign_raw(mixed_a, mixed, off, r),
        off,
        True,
        False,
    )
    case(
        "mixed-order key, k divisible by 8: both equations hold: valid",
        mixed,
        sign_raw(mixed_a, mixed, on, r),
        on,
        True,
        True,
    )
    return {
        "equation": "cofactorless: [S]B = R + [k]A, k = SHA-512(R || A || M) mod L (RFC 8032 5.1.7 "
        "without the optional multiplication by 8); A and R decoded as RFC 8032 5.1.3 says "
        "(y < p; x = 0 with the sign bit set refused); A not of small order; S < L",
        "cases": cases,
    }


# ---------------------------------------------------------------- key-files/


def private_pem(seed: bytes) -> str:
    return ServerKey.from_private_bytes(seed).private_pem().decode("ascii")


def key_file_cases(folder: Path, key_seed: bytes, other_seed: bytes) -> None:
    """Write key-files/: candidate key files and what a reader must make of each."""
    fresh_dir(folder)
    key = ServerKey.from_private_bytes(key_seed)
    other = ServerKey.from_private_bytes(other_seed)
    pem = pem_of(key.public_key)
    doc = json.dumps(key.well_known(), indent=1) + "\n"
    small = small_order_points()
    body = base64.b64encode(SPKI_PREFIX + key.public_key).decode("ascii")
    assert body.endswith("o=")
    files: list[tuple[str, str, bytes]] = [
        ("pem.pem", "the PEM block alone (key.pem)", pem.encode()),
        ("pem-crlf.pem", "CRLF line ends", pem.replace("\n", "\r\n").encode()),
        ("pem-bom.pem", "one BOM at the start", b"\xef\xbb\xbf" + pem.encode()),
        (
            "pem-text-around.pem",
            "explanatory text before and after the block (RFC 7468 allows it)",
            (
                "Score server key of example.org, fetched 2026-11-30.\nED25519 Public-Key:\n\n"
                + pem
                + "\nEnd of key.\n"
            ).encode(),
        ),
        (
            "pem-wrapped.pem",
            "base64 in short lines with trailing spaces and tabs",
            (
                "-----BEGIN PUBLIC KEY-----  \n"
                + "\n".join(body[i : i + 10] + " \t" for i in range(0, len(body), 10))
                + "\n-----END PUBLIC KEY-----"
            ).encode(),
        ),
        ("pem-no-newline.pem", "no line end after the END line", pem.rstrip("\n").encode()),
        (
            "pem-two-blocks.pem",
            "two public key blocks: which key is meant?",
            (pem + pem_of(other.public_key)).encode(),
        ),
        ("pem-same-block-twice.pem", "the same block twice", (pem + pem).encode()),
        ("pem-private.pem", "a private key", private_pem(key_seed).encode()),
        (
            "pem-public-and-private.pem",
            "a public key block, then a private key block",
            (pem + private_pem(key_seed)).encode(),
        ),
        (
            "pem-certificate-before.pem",
            "another kind of PEM block before the public key",
            ("-----BEGIN CERTIFICATE-----\nMAA=\n-----END CERTIFICATE-----\n" + pem).encode(),
        ),
        ("pem-double-bom.pem", "two BOMs at the start", b"\xef\xbb\xbf\xef\xbb\xbf" + pem.encode()),
        (
            "pem-indented.pem",
            "boundary lines indented",
            "".join("  " + line + "\n" for line in pem.splitlines()).encode(),
        ),
        (
            "pem-cr-only.pem",
            "CR-only line ends (boundaries are not lines of their own)",
            pem.replace("\n", "\r").encode(),
        ),
        (
            "pem-non-canonical-base64.pem",
            "the last base64 digit has unused bits set",
            pem.replace(body, body[:-2] + "p=").encode(),
        ),
        (
            "pem-bad-base64.pem",
            "a character outside base64",
            pem.replace(body, body[:10] + "*" + body[11:]).encode(),
        ),
        (
            "pem-header.pem",
            "an RFC 1421 header line inside the block",
            pem.replace("KEY-----\n", "KEY-----\nComment: test key\n", 1).encode(),
        ),
        (
            "pem-x25519.pem",
            "an X25519 key (OID 1.3.101.110), not Ed25519",
            pem.replace(
                body,
                base64.b64encode(
                    bytes.fromhex("302a300506032b656e032100") + key.public_key
                ).decode(),
            ).encode(),
        ),
        ("pem-identity.pem", "the identity point as key", pem_of(small[0]).encode()),
        ("pem-small-order.pem", "a point of order 8 as key", pem_of(small[1]).encode()),
        (
            "pem-non-canonical-key.pem",
            "y >= p (the identity as y = p + 1)",
            pem_of((ed25519.P + 1).to_bytes(32, "little")).encode(),
        ),
        (
            "pem-latin1-text.pem",
            "text before the block that is not UTF-8",
            b"Cl\xe9 du serveur\n" + pem.encode(),
        ),
        (
            "hex.txt",
            "the 64 hex digits of the key alone (no key file form)",
            key.public_key.hex().encode(),
        ),
        ("empty.pem", "an empty file", b""),
        ("well-known.json", "the well-known document (well-known.json)", doc.encode()),
        ("well-known-bom.json", "the document after one BOM", b"\xef\xbb\xbf" + doc.encode()),
        (
            "well-known-leading-space.json",
            "whitespace before the document",
            b"\n\t " + doc.encode(),
        ),
        (
            "well-known-other-keys.json",
            "unknown top-level keys are ignored",
            json.dumps({"comment": "hi", **key.well_known(), "n": [1, 2.5]}).encode(),
        ),
        (
            "well-known-duplicate-key.json",
            "a duplicate key",
            doc.replace('"algorithm"', '"key_id": "x", "algorithm"', 1).encode(),
        ),
        (
            "well-known-duplicate-public-key.json",
            "public_key twice (another key first)",
            doc.replace(
                '"algorithm"', f'"public_key": "{other.public_key_hex}", "algorithm"', 1
            ).encode(),
        ),
        (
            "well-known-nan.json",
            "NaN in an unknown key",
            doc.replace("{", '{"x": NaN,', 1).encode(),
        ),
        (
            "well-known-huge-float.json",
            "1e400 in an unknown key",
            doc.replace("{", '{"x": 1e400,', 1).encode(),
        ),
        ("well-known-trailing.json", "text after the document", (doc + "#\n").encode()),
        ("well-known-two-documents.json", "two documents", (doc + doc).encode()),
        (
            "well-known-deep.json",
            "an unknown key nested 2,000 levels deep",
            doc.replace("{", '{"x": ' + "[" * 2000 + "]" * 2000 + ",", 1).encode(),
        ),
        (
            "well-known-depth-100.json",
            "an unknown key nested so that the document is 100 levels deep (the limit)",
            doc.replace("{", '{"x": ' + "[" * 99 + "]" * 99 + ",", 1).encode(),
        ),
        (
            "well-known-depth-101.json",
            "an unknown key nested so that the document is 101 levels deep (one over)",
            doc.replace("{", '{"x": ' + "[" * 100 + "]" * 100 + ",", 1).encode(),
        ),
        (
            "well-known-depth-101-objects.json",
            "101 levels of objects, not arrays",
            doc.replace("{", '{"x": ' + '{"y": ' * 100 + "0" + "}" * 100 + ",", 1).encode(),
        ),
        (
            "well-known-brackets-in-string.json",
            "200 brackets inside a string: text, not nesting",
            doc.replace("{", '{"x": "' + "[{" * 100 + '\\"]",', 1).encode(),
        ),
        (
            "well-known-wrong-id.json",
            "key_id of another key",
            json.dumps({**key.well_known(), "key_id": other.key_id}).encode(),
        ),
        (
            "well-known-uppercase.json",
            "public_key in uppercase hex",
            json.dumps({**key.well_known(), "public_key": key.public_key_hex.upper()}).encode(),
        ),
        (
            "well-known-algorithm.json",
            "algorithm other than Ed25519",
            json.dumps({**key.well_known(), "algorithm": "ed25519"}).encode(),
        ),
        (
            "well-known-identity.json",
            "the identity point as key",
            json.dumps(well_known_of(small[0])).encode(),
        ),
        (
            "well-known-not-utf8.json",
            "a string that is not UTF-8",
            doc.encode().replace(b'"Ed25519"', b'"Ed25519", "x": "\xff"', 1),
        ),
        ("well-known-array.json", "a JSON array", b"[" + doc.encode() + b"]"),
    ]
    filler = "This line is text around the key block, ignored by readers.\n"
    head = filler * ((65536 - len(pem)) // len(filler))
    at_cap = (head + "x" * (65536 - len(pem) - len(head) - 1) + "\n" + pem).encode()
    assert len(at_cap) == 65536
    files.append(("pem-64kib.pem", "exactly 65,536 bytes (text before the block)", at_cap))
    files.append(("pem-over-64kib.pem", "65,537 bytes", b"x" + at_cap))
    padded_doc = json.dumps({**key.well_known(), "pad": ""})
    padded_doc = padded_doc.replace('"pad": ""', '"pad": "' + "x" * (65537 - len(padded_doc)) + '"')
    assert len(padded_doc) == 65537
    files.append(
        ("well-known-over-64kib.json", "the document in 65,537 bytes", padded_doc.encode())
    )
    expected = []
    for name, why, data in files:
        (folder / name).write_bytes(data)
        try:
            found = read_key_file(data, "FILE")
        except KeyFileError as exc:
            error: str | None = str(exc).removeprefix("FILE: ")
            key_id = None
        else:
            error = None
            key_id = found.key_id
        expected.append({"file": name, "why": why, "key_id": key_id, "error": error})
    accepted = {e["file"] for e in expected if e["error"] is None}
    assert accepted == {
        "pem.pem",
        "pem-crlf.pem",
        "pem-bom.pem",
        "pem-text-around.pem",
        "pem-wrapped.pem",
        "pem-no-newline.pem",
        "pem-64kib.pem",
        "well-known.json",
        "well-known-bom.json",
        "well-known-leading-space.json",
        "well-known-other-keys.json",
        "well-known-depth-100.json",
        "well-known-brackets-in-string.json",
    }, accepted
    # The identity key and the one signature that fits every record with it.
    forged_key_id = hashlib.sha256(small[0]).hexdigest()[:16]
    dump_json(
        folder / "expected.json",
        {
            "rule": "SPEC 11.6: at most 65,536 bytes of UTF-8, one BOM at the start ignored; "
            "first non-whitespace character '{': the well-known document, read as strictly as "
            "a record and nested at most 100 levels (the document object is level 1); "
            "otherwise exactly one PEM PUBLIC KEY block, text around it ignored",
            "identity_key_id": forged_key_id,
            "cases": expected,
        },
    )


# ---------------------------------------------------------------- keysets/


def resigned(base: dict[str, Any], key: ServerKey, ended: str, started: str) -> dict[str, Any]:
    """``base`` with ``fair`` naming ``key`` and the times, signed by ``key``."""
    record = copy.deepcopy(base)
    record.pop("signature", None)
    record["fair"]["key_id"] = key.key_id
    record["fair"]["started"] = started
    record["fair"]["ended"] = ended
    return key.sign_record(record)


def key_set_vectors(
    folder: Path, signed: dict[str, Any], key_seed: bytes, other_seed: bytes, verdict: Verdict
) -> None:
    """Write keysets/: documents, records, expected.json."""
    fresh_dir(folder)
    current = ServerKey.from_private_bytes(key_seed)
    old = ServerKey.from_private_bytes(other_seed)
    revoked = ServerKey.from_private_bytes(THIRD_SEED)
    unlisted = ServerKey.from_private_bytes(UNLISTED_SEED)
    rotation = "2026-06-01T00:00:00Z"
    periods = [
        KeyPeriod(
            revoked.public_key,
            "2025-01-01T00:00:00Z",
            "2026-01-01T00:00:00Z",
            True,
            "the key file was copied off the old host on 2025-12-24",
        ),
        KeyPeriod(current.public_key, rotation),
        KeyPeriod(old.public_key, "2026-01-01T00:00:00Z", rotation),
    ]
    document = key_set_document(periods)
    keyset_bytes = dump_json(folder / "keyset.json", document)
    assert [k["key_id"] for k in document["keys"]] == [current.key_id, old.key_id, revoked.key_id]

    bad: list[tuple[str, str, Callable[[dict[str, Any]], None]]] = []

    def nested(levels: int) -> Any:
        value: Any = []
        for _ in range(levels - 1):
            value = [value]
        return value

    def entry(doc: dict[str, Any], key_id: str) -> dict[str, Any]:
        found: dict[str, Any] = next(k for k in doc["keys"] if k["key_id"] == key_id)
        return found

    def edit(name: str, why: str, change: Callable[[dict[str, Any]], None]) -> None:
        bad.append((name, why, change))

    edit(
        "bad-two-in-use.json",
        "two keys with until null",
        lambda d: entry(d, old.key_id).update(until=None),
    )
    edit(
        "bad-none-in-use.json",
        "no key with until null",
        lambda d: entry(d, current.key_id).update(until="2027-01-01T00:00:00Z"),
    )
    edit(
        "bad-current-revoked.json",
        "the key in use is revoked",
        lambda d: entry(d, current.key_id).update(revoked=True, reason="leaked"),
    )
    edit(
        "bad-current-not-top.json",
        "the key in use is not the top-level key",
        lambda d: d.update(key_id=old.key_id, public_key=old.public_key_hex),
    )
    edit(
        "bad-no-reason.json",
        "revoked without a reason",
        lambda d: entry(d, revoked.key_id).pop("reason"),
    )
    edit(
        "bad-empty-reason.json",
        "an empty reason",
        lambda d: entry(d, revoked.key_id).update(reason=""),
    )
    edit(
        "bad-reason-not-revoked.json",
        "a reason for a key that is not revoked",
        lambda d: entry(d, old.key_id).update(reason="old"),
    )
    edit(
        "bad-revoked-string.json",
        'revoked is "yes"',
        lambda d: entry(d, old.key_id).update(revoked="yes"),
    )
    edit(
        "bad-from-after-until.json",
        "from after until",
        lambda d: entry(d, old.key_id).update(**{"from": "2026-07-01T00:00:00Z"}),
    )
    edit(
        "bad-month-13.json",
        "until in month 13",
        lambda d: entry(d, old.key_id).update(until="2026-13-01T00:00:00Z"),
    )
    edit(
        "bad-missing-until.json",
        "an entry without until",
        lambda d: entry(d, old.key_id).pop("until"),
    )
    edit(
        "bad-unknown-member.json",
        "an entry with a member the format does not have",
        lambda d: entry(d, old.key_id).update(comment="x"),
    )
    edit(
        "bad-listed-twice.json",
        "one key listed twice",
        lambda d: d["keys"].append(dict(entry(d, old.key_id))),
    )
    edit(
        "bad-wrong-id.json",
        "an entry's key_id is not its key's",
        lambda d: entry(d, old.key_id).update(key_id=revoked.key_id),
    )

    def small_order_entry(doc: dict[str, Any]) -> None:
        raw = small_order_points()[3]
        doc["keys"].append(
            {
                "key_id": hashlib.sha256(raw).hexdigest()[:16],
                "public_key": raw.hex(),
                "from": "2024-01-01T00:00:00Z",
                "until": "2024-02-01T00:00:00Z",
                "revoked": False,
            }
        )

    edit("bad-small-order.json", "an entry holding a small-order key", small_order_entry)
    edit("bad-empty-keys.json", "an empty keys array", lambda d: d.update(keys=[]))
    edit("bad-keys-object.json", "keys is an object", lambda d: d.update(keys={}))
    edit(
        "bad-keys-null.json",
        '"keys": null: a key set that lists nothing, not a document without keys',
        lambda d: d.update(keys=None),
    )
    edit(
        "bad-deep.json",
        "an unknown top-level key nested so that the document is 101 levels deep",
        lambda d: d.update(x=nested(100)),
    )
    documents = [{"file": "keyset.json", "why": "current, retired and revoked keys", "error": None}]
    for name, why, change in bad:
        doc = copy.deepcopy(document)
        change(doc)
        data = dump_json(folder / name, doc)
        try:
            read_key_file(data, "FILE")
        except KeyFileError as exc:
            documents.append({"file": name, "why": why, "error": str(exc).removeprefix("FILE: ")})
        else:
            raise AssertionError(f"{name} was accepted")

    trusted_set = read_key_file(keyset_bytes, "keyset.json")
    assert isinstance(trusted_set, TrustedKeySet)
    trusted_current = current.trusted()
    records = [
        (
            "current-key.json",
            "the current key, in use at ended",
            current,
            "2026-11-30T12:04:31.250Z",
            "fair",
        ),
        (
            "current-key-at-rotation.json",
            "the current key at the rotation instant (from is inclusive)",
            current,
            rotation,
            "fair",
        ),
        (
            "current-key-before.json",
            "the current key, ended before it was in use",
            current,
            "2026-05-31T23:59:59.999Z",
            "not fair",
        ),
        ("old-key.json", "the retired key, in use at ended", old, "2026-03-15T09:30:00Z", "fair"),
        (
            "old-key-at-rotation.json",
            "the retired key at the rotation instant (until is inclusive)",
            old,
            rotation,
            "fair",
        ),
        (
            "old-key-offset.json",
            "the retired key, ended at the rotation instant written +02:00",
            old,
            "2026-06-01T02:00:00+02:00",
            "fair",
        ),
        (
            "old-key-after.json",
            "the retired key, ended 1 ns after it was retired",
            old,
            "2026-06-01T00:00:00.000000001Z",
            "not fair",
        ),
        (
            "old-key-after-offset.json",
            "the retired key, 01:00:00-01:00 on rotation day (02:00 UTC)",
            old,
            "2026-06-01T01:00:00-01:00",
            "not fair",
        ),
        (
            "revoked-key.json",
            "the revoked key, within its time",
            revoked,
            "2025-06-01T00:00:00Z",
            "not fair",
        ),
        (
            "unlisted-key.json",
            "a key the set does not list",
            unlisted,
            "2026-11-30T12:00:00Z",
            "not fair",
        ),
    ]
    cases = []
    for name, why, key, ended, status in records:
        record = resigned(signed, key, ended, "2025-01-01T00:00:00Z")
        data = dump_json(folder / name, record)
        with_set = verdict(data, trusted_set)
        assert with_set["fair"] == status, (name, with_set)
        cases.append(
            {
                "file": name,
                "changed": why,
                "with_key_set": with_set,
                "with_current_key": verdict(data, trusted_current),
            }
        )
    tampered = resigned(signed, old, "2026-03-15T09:30:00Z", "2025-01-01T00:00:00Z")
    tampered["score"] += 4
    data = dump_json(folder / "old-key-tampered.json", tampered)
    cases.append(
        {
            "file": "old-key-tampered.json",
            "changed": "the retired key, in use at ended, score raised by 4 after signing",
            "with_key_set": verdict(data, trusted_set),
            "with_current_key": verdict(data, trusted_current),
        }
    )
    unsigned = {
        k: v
        for k, v in resigned(signed, old, "2026-03-15T09:30:00Z", "2025-01-01T00:00:00Z").items()
        if k != "signature"
    }
    data = dump_json(folder / "old-key-unsigned.json", unsigned)
    cases.append(
        {
            "file": "old-key-unsigned.json",
            "changed": "the retired key named, the signature removed",
            "with_key_set": verdict(data, trusted_set),
            "with_current_key": verdict(data, trusted_current),
        }
    )
    control = control_reason_vectors(folder, periods, revoked, verdict)
    documents.append({"file": control["key_set"], "why": control["why"], "error": None})
    dump_json(
        folder / "expected.json",
        {
            "key_set": "keyset.json",
            "current_key": "../key.pem",
            "rule": "the key fair.key_id names must be listed, not revoked, and in use at "
            "fair.ended (from <= ended <= until, compared as instants); then the signature is "
            "checked with it",
            "without_key_sets": "a verifier that does not read key sets refuses every document "
            "here as unusable (each has a keys member, even bad-keys-null.json); it never "
            "reads one as its top-level key alone",
            "documents": documents,
            "cases": cases,
            "control_reason": control,
        },
        ascii_only=True,
    )


#: A revocation reason with control characters (C0, DEL, C1, a line separator, a bidi
#: override): readers accept it, and carry it as it is into ``reasons`` (SPEC 11.6).
CONTROL_REASON = (
    "copied off the old host\tby someone\nwe do not know \x1b[2J\x07 \x7f \x85 \u2028 "
    "\u202e (see the announcement)"
)


def control_reason_vectors(
    folder: Path, periods: list[KeyPeriod], revoked: ServerKey, verdict: Verdict
) -> dict[str, Any]:
    """keyset-control-reason.json: keyset.json with a reason full of control characters."""
    changed = [
        attrs.evolve(p, reason=CONTROL_REASON) if p.public_key == revoked.public_key else p
        for p in periods
    ]
    name = "keyset-control-reason.json"
    data = dump_json(folder / name, key_set_document(changed), ascii_only=True)
    trusted = read_key_file(data, name)
    assert isinstance(trusted, TrustedKeySet)
    record = (folder / "revoked-key.json").read_bytes()
    result = verdict(record, trusted)
    codes = verify_raw(RawRecord("-", 1, record), trusted)["reason_codes"]
    assert result["reasons"][0].endswith(": " + CONTROL_REASON), result
    return {
        "key_set": name,
        "why": "keyset.json with a revocation reason holding a tab, a newline, ESC, BEL, DEL, "
        "NEL, U+2028 and U+202E",
        "reason": CONTROL_REASON,
        "file": "revoked-key.json",
        "with_key_set": result,
        "reason_codes": codes,
    }


# ---------------------------------------------------------------- timestamps/

TIMESTAMP_CASES: list[tuple[str, str, str, bool]] = [
    ("leap-day-2024.json", "29 February of a leap year", "2024-02-29T12:00:00Z", True),
    ("leap-day-2000.json", "29 February 2000 (divisible by 400)", "2000-02-29T12:00:00Z", True),
    ("offset-max.json", "offset +23:59", "2026-11-30T12:00:00+23:59", True),
    ("offset-min.json", "offset -23:59", "2026-11-30T12:00:00-23:59", True),
    ("fraction-9.json", "9 fraction digits", "2026-11-30T23:59:59.999999999Z", True),
    ("year-0000.json", "year 0000 (a leap year)", "0000-02-29T00:00:00Z", True),
    ("month-13.json", "month 13", "2026-13-01T00:00:00Z", False),
    ("month-00.json", "month 00", "2026-00-10T00:00:00Z", False),
    ("day-00.json", "day 00", "2026-11-00T00:00:00Z", False),
    ("february-30.json", "30 February", "2026-02-30T00:00:00Z", False),
    ("february-29-2026.json", "29 February of a common year", "2026-02-29T00:00:00Z", False),
    (
        "february-29-1900.json",
        "29 February 1900 (divisible by 100, not 400)",
        "1900-02-29T00:00:00Z",
        False,
    ),
    ("april-31.json", "31 April", "2026-04-31T00:00:00Z", False),
    ("hour-24.json", "hour 24", "2026-11-30T24:00:00Z", False),
    ("hour-25.json", "hour 25", "2026-11-30T25:00:00Z", False),
    ("minute-60.json", "minute 60", "2026-11-30T12:60:00Z", False),
    ("leap-second.json", "second 60 (no leap seconds)", "2016-12-31T23:59:60Z", False),
    ("offset-24.json", "offset +24:00", "2026-11-30T12:00:00+24:00", False),
    ("offset-minute-60.json", "offset -00:60", "2026-11-30T12:00:00-00:60", False),
    ("fraction-10.json", "10 fraction digits", "2026-11-30T12:00:00.1234567890Z", False),
    ("lowercase-z.json", "lowercase z", "2026-11-30T12:00:00z", False),
    (
        "trailing-newline.json",
        "a newline after the time (a regex's $ may match before it: match the whole string)",
        "2026-11-30T12:00:00Z\n",
        False,
    ),
    ("trailing-crlf.json", "CR LF after the time", "2026-11-30T12:00:00+01:00\r\n", False),
    ("leading-newline.json", "a newline before the time", "\n2026-11-30T12:00:00Z", False),
    ("trailing-space.json", "a space after the time", "2026-11-30T12:00:00Z ", False),
    (
        "trailing-line-separator.json",
        "U+2028 (LINE SEPARATOR) after the time",
        "2026-11-30T12:00:00Z\u2028",
        False,
    ),
]


def timestamp_vectors(
    folder: Path, signed: dict[str, Any], key_seed: bytes, verdict: Verdict
) -> None:
    """Write timestamps/: signed records whose fair.ended is each case; readable or not."""
    fresh_dir(folder)
    key = ServerKey.from_private_bytes(key_seed)
    trusted = key.trusted()
    cases = []
    for name, why, value, real in TIMESTAMP_CASES:
        record = copy.deepcopy(signed)
        record.pop("signature")
        record["fair"]["ended"] = value
        # Signed as a careless server would: a reader that took the time would call it fair.
        record["signature"] = key.sign(canonical_bytes(record)).hex()
        data = dump_json(folder / name, record)
        result = verdict(data, trusted)
        assert (result["valid"] is not None) == real, (name, result)
        cases.append({"file": name, "why": why, "value": value, "real": real, "with_key": result})
    dump_json(
        folder / "expected.json",
        {
            "rule": "SPEC 11.4: fair.started and fair.ended are real dates and times: months "
            "01-12, days that exist in the month (proleptic Gregorian leap years), hours "
            "00-23, minutes and seconds 00-59 (no leap second), offsets -23:59 to +23:59; "
            "the whole string, nothing before or after it (no trailing newline)",
            "trusted_key": "../key.pem",
            "cases": cases,
        },
        ascii_only=True,
    )


def verdict_of(data: bytes, trusted: TrustedKey | TrustedKeySet | None) -> dict[str, Any]:
    """``twenty48 verify --json`` without file and index (the reasons and error included)."""
    result = verify_raw(RawRecord("-", 1, data), trusted)
    if result["valid"] is None:
        return {"valid": None, "error": str(result["error"]).removeprefix("-:1: ")}
    return {k: result[k] for k in ("valid", "fair", "signature", "reasons")}
