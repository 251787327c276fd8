"""The Ed25519 checks that RFC 8032 leaves to the verifier, done before ``cryptography`` verifies.

OpenSSL (under ``cryptography``) implements the verification equation but
not all of SPEC section 11.6's strictness: it takes a public key of small
order (with the identity point as key, the signature R = identity, S = 0
verifies *every* message) and does not insist on canonical encodings.  The
checks here are plain integer arithmetic on the curve (standard library
only, a few hundred microseconds per key), so what a record's verdict rests
on is written out in this repository:

* points decode exactly as RFC 8032 section 5.1.3 says: y < p, and x = 0
  with the sign bit set is refused (the two ways a 32-byte string can be a
  non-canonical encoding of a point);
* a public key must decode and must not be of small order ([8]A is not the
  identity): the eight points of small order are refused, the identity included;
* a signature's R must be a canonical encoding (an R that is no point
  fails the equation, which compares encodings), and S must be below the
  group order L.

With those, every cofactorless verifier (RFC 8032 section 5.1.7 without the
optional multiplication by 8: [S]B = R + [k]A) gives the same answer.
:func:`scalar_mult` and :func:`encode_point` serve the vector generator
too (it builds mixed-order keys and signatures ``cryptography`` cannot make).

Final API::

    P, L, BASE, IDENTITY
    decode_point(data: bytes) -> Point | None      # RFC 8032 5.1.3, canonical only
    encode_point(point) -> bytes
    point_add(a, b), scalar_mult(n, point), is_small_order(point)
    public_key_problem(key: bytes) -> Reason | None   # why this is no usable public key
    signature_problem(signature: bytes) -> Reason | None   # R not a point, S >= L
    challenge(r: bytes, a: bytes, message: bytes) -> int   # SHA-512(R || A || M) mod L
"""

from __future__ import annotations

import hashlib
from typing import Final

from twenty48_replay.core.reasons import Reason

#: The field prime and the order of the base point (RFC 8032 section 5.1).
P: Final = 2**255 - 19
L: Final = 2**252 + 27742317777372353535851937790883648493
_D: Final = -121665 * pow(121666, P - 2, P) % P
_SQRT_M1: Final = pow(2, (P - 1) // 4, P)

#: A point in extended coordinates (X, Y, Z, T) with x = X/Z, y = Y/Z, x*y = T/Z.
Point = tuple[int, int, int, int]

IDENTITY: Final[Point] = (0, 1, 1, 0)


def _recover_x(y: int, sign: int) -> int | None:
    """x of the point with this y and sign bit (RFC 8032 5.1.3 steps 2-4), or None."""
    y2 = y * y % P
    u = (y2 - 1) % P
    v = (_D * y2 + 1) % P
    # x = (u/v)^((p+3)/8) with one exponentiation: u v^3 (u v^7)^((p-5)/8).
    v3 = v * v * v % P
    x = u * v3 * pow(u * v3 * v3 * v, (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == (P - u) % P and u:
        x = x * _SQRT_M1 % P
    elif vx2 != u:
        return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return x


def decode_point(data: bytes) -> Point | None:
    """The point encoded by 32 bytes, or None if they encode none canonically."""
    if len(data) != 32:
        return None
    number = int.from_bytes(data, "little")
    sign = number >> 255
    y = number & ((1 << 255) - 1)
    if y >= P:
        return None
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % P)


def encode_point(point: Point) -> bytes:
    """The canonical 32-byte encoding (RFC 8032 section 5.1.2)."""
    x_num, y_num, z, _t = point
    z_inv = pow(z, P - 2, P)
    x = x_num * z_inv % P
    y = y_num * z_inv % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def point_add(a: Point, b: Point) -> Point:
    """a + b (RFC 8032 section 5.1.4, complete for every pair of points)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    e1 = (y1 - x1) * (y2 - x2) % P
    e2 = (y1 + x1) * (y2 + x2) % P
    c = 2 * t1 * t2 * _D % P
    d = 2 * z1 * z2 % P
    e, f, g, h = e2 - e1, d - c, d + c, e2 + e1
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def scalar_mult(n: int, point: Point) -> Point:
    """[n]point, for n >= 0 (double and add; not constant time: public values only)."""
    result = IDENTITY
    addend = point
    while n > 0:
        if n & 1:
            result = point_add(result, addend)
        addend = point_add(addend, addend)
        n >>= 1
    return result


def is_identity(point: Point) -> bool:
    """Whether ``point`` is the neutral element (x = 0, y = 1)."""
    x, y, z, _t = point
    return x % P == 0 and (y - z) % P == 0


def is_small_order(point: Point) -> bool:
    """Whether [8]point is the identity: one of the eight points of order 1, 2, 4 or 8."""
    return is_identity(scalar_mult(8, point))


_BASE_Y: Final = 4 * pow(5, P - 2, P) % P
_base_x = _recover_x(_BASE_Y, 0)
assert _base_x is not None
BASE: Final[Point] = (_base_x, _BASE_Y, 1, _base_x * _BASE_Y % P)


def public_key_problem(key: bytes) -> Reason | None:
    """Why ``key`` is no usable Ed25519 public key (SPEC 11.6), or None if it is one."""
    if len(key) != 32:
        return Reason("key.length", {"length": len(key)})
    point = decode_point(key)
    if point is None:
        return Reason("key.not_canonical")
    if is_small_order(point):
        return Reason("key.small_order")
    return None


def signature_problem(signature: bytes) -> Reason | None:
    """Why a 64-byte signature fails before any equation: R not canonical, S not below L.

    R's two non-canonical forms (y >= p; x = 0, that is y = 1 or p - 1, with
    the sign bit set) are found without decoding; an R that is no curve
    point at all fails the equation, whose result is compared with R's bytes.
    """
    if len(signature) != 64:
        return Reason("signature.length", {"length": len(signature)})
    r = int.from_bytes(signature[:32], "little")
    y = r & ((1 << 255) - 1)
    if y >= P or (r >> 255 and y in (1, P - 1)):
        return Reason("signature.r_not_canonical")
    if int.from_bytes(signature[32:], "little") >= L:
        return Reason("signature.s_not_canonical")
    return None


def challenge(r: bytes, a: bytes, message: bytes) -> int:
    """k = SHA-512(R || A || M) mod L, the challenge of RFC 8032 section 5.1.7 step 2."""
    return int.from_bytes(hashlib.sha512(r + a + message).digest(), "little") % L
