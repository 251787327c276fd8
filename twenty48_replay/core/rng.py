"""Spawn RNG version 1: where the next tile appears, as a pure function of the seed.

The contract (schema/SPEC.md, section 5): spawn number ``k`` draws
``d = HMAC-SHA256(UTF-8(seed), k as 8-byte big-endian)``; the cell is
``empties[uint64(d[0:8]) % len(empties)]`` and the tile is a 4 when
``uint64(d[8:16]) % 10 == 0``, else a 2.  Nothing here uses Python's
``random``: any language with HMAC-SHA256 reproduces every game.

HMAC is computed by hand from SHA-256 with the key's inner and outer states
hashed once per seed, which is about three times faster than ``hmac.digest``
per call; the test vectors in schema/ and a test against :mod:`hmac` pin it
to the same bytes.  CPython's own SHA-256 (``_sha2``/``_sha256``) is used when
present: copying its small state is cheaper than copying an OpenSSL context,
which matters for a 64-byte message.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from struct import Struct
from typing import Final

from twenty48_replay.core import native
from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.reasons import Reason

try:  # CPython 3.12+
    from _sha2 import sha256 as _sha256_new  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # pragma: no cover - depends on the interpreter
    try:  # CPython 3.11
        from _sha256 import sha256 as _sha256_new  # type: ignore[import-not-found,no-redef,unused-ignore]
    except ImportError:
        _sha256_new = hashlib.sha256

RNG_VERSION: Final = 1
MAX_SEED_LENGTH: Final = 128
_BLOCK: Final = 64
_COUNTER: Final = Struct(">Q")
_DRAW: Final = Struct(">QQ")
_MAX_COUNTER: Final = 2**64 - 1
_core: Final = native.core  # the native core's HMAC, or None (twenty48_replay.core.native)
_IPAD: Final = bytes(x ^ 0x36 for x in range(256))
_OPAD: Final = bytes(x ^ 0x5C for x in range(256))


def new_seed() -> str:
    """A fresh default seed: 32 random lowercase hex characters."""
    return secrets.token_hex(16)


def seed_key(seed: str) -> bytes:
    """The HMAC key of a seed, after checking the seed against the contract."""
    if not isinstance(seed, str):
        raise RecordError(Reason("seed.not_string", {"type": type(seed).__name__}), field="seed")
    if not seed:
        raise RecordError(Reason("seed.empty"), field="seed")
    if len(seed) > MAX_SEED_LENGTH:
        raise RecordError(
            Reason("seed.too_long", {"length": len(seed), "limit": MAX_SEED_LENGTH}), field="seed"
        )
    try:
        return seed.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise RecordError(
            Reason("seed.not_utf8", {"character": exc.start + 1}), field="seed"
        ) from None


class SpawnRng:
    """The spawn draws of one seed; ``draw(k)`` is pure, the object only caches."""

    __slots__ = ("_inner", "_key", "_outer", "seed")

    def __init__(self, seed: str) -> None:
        key = seed_key(seed)
        self._key: Final = key
        if len(key) > _BLOCK:
            key = _sha256_new(key).digest()
        key = key.ljust(_BLOCK, b"\0")
        self.seed: Final = seed
        self._inner = _sha256_new(key.translate(_IPAD))
        self._outer = _sha256_new(key.translate(_OPAD))

    def digest(self, k: int) -> bytes:
        """HMAC-SHA256 of spawn number ``k`` (32 bytes)."""
        if _core is not None and type(k) is int and 0 <= k <= _MAX_COUNTER:
            native_digest: bytes = _core.hmac(self._key, k)
            return native_digest
        inner = self._inner.copy()
        inner.update(_COUNTER.pack(k))
        outer = self._outer.copy()
        outer.update(inner.digest())
        digest: bytes = outer.digest()
        return digest

    def draw(self, k: int) -> tuple[int, bool]:
        """The raw draw of spawn ``k``: (cell selector, whether the tile is a 4)."""
        selector, value_draw = _DRAW.unpack_from(self.digest(k))
        return selector, value_draw % 10 == 0

    def spawn(self, k: int, empties: Sequence[int]) -> tuple[int, int]:
        """Cell index and tile value of spawn ``k`` among the given empty cells."""
        if not empties:
            raise ValueError("no empty cell to spawn into")
        selector, four = self.draw(k)
        return empties[selector % len(empties)], 4 if four else 2

    def __repr__(self) -> str:
        return f"SpawnRng({self.seed!r})"
