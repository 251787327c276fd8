"""A fair game's bearer token: stored only as its hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac


def token_hash(token: str) -> str:
    """How a bearer token is stored: the hex SHA-256 of its UTF-8 bytes."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with the stored hash."""
    return hmac.compare_digest(token_hash(token), stored_hash)
