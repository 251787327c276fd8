"""Leak scans: every form in which a server's private key could escape into an answer or a log.

A test collects what the server and the commands said (answers, headers, log
lines, stdout and stderr) and asserts that none of it holds a secret in any
of the encodings a careless line of code would produce: the PEM body, and the
raw 32-byte Ed25519 seed as bytes, hex (either case) and base64 (standard or
URL-safe, with or without padding).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable

from cryptography.hazmat.primitives import serialization

from twenty48_replay.fairplay.signing import ServerKey


def private_key_forms(key: ServerKey) -> list[bytes]:
    """The private key as it could appear in text: PEM body, raw seed, hex, base64."""
    pem = key.private_pem()
    private = serialization.load_pem_private_key(pem, password=None)
    seed = private.private_bytes(
        serialization.Encoding.Raw,
        serialization.PrivateFormat.Raw,
        serialization.NoEncryption(),
    )
    assert len(seed) == 32
    body = b"".join(pem.splitlines()[1:-1])
    standard = base64.b64encode(seed)
    url_safe = base64.urlsafe_b64encode(seed)
    return [
        body,
        seed,
        seed.hex().encode(),
        seed.hex().upper().encode(),
        standard,
        standard.rstrip(b"="),
        url_safe,
        url_safe.rstrip(b"="),
    ]


def assert_no_leak(contents: Iterable[bytes | str], secrets: Iterable[bytes]) -> None:
    """No secret in any of ``contents`` (answers, headers, logs, command output)."""
    texts = [c.encode("utf-8", "surrogateescape") if isinstance(c, str) else c for c in contents]
    assert texts, "nothing collected to scan"
    for secret in secrets:
        assert len(secret) >= 16, secret  # a short needle would find noise
        for index, content in enumerate(texts):
            assert secret not in content, f"secret found in scanned content #{index}"
