"""Ed25519 keys of a score server: signing finished fair records, and checking them.

The only module that uses ``cryptography``, and only inside the functions
that sign or verify, so importing it (to read a key file, say) costs
nothing; ``twenty48 verify`` imports it only when ``--trust`` is given.

Final API::

    ServerKey.load_or_create(path) -> ServerKey    # PKCS#8 PEM, file mode 0600, made atomically
    ServerKey.load(path) / ServerKey.generate() / ServerKey.from_private_bytes(seed32)
        .key_id: str            # first 16 hex of SHA-256(raw 32-byte public key)
        .public_key: bytes      # raw 32 bytes;  .public_key_hex: str
        .well_known() -> dict   # /.well-known/twenty48-key: algorithm, key_id, public_key
        .public_pem() -> bytes  # SubjectPublicKeyInfo PEM, for --trust FILE
        .sign_record(record_dict) -> dict   # a new dict: the record plus "signature" (128 hex)
        .trusted() -> TrustedKey
    TrustedKey(public_key: bytes)    # refuses a non-canonical or small-order key
        .from_file(path) / .from_pem(bytes) / .from_well_known(obj) ; .key_id
        .verify(record_dict) -> tuple[str, ...]   # reasons; () when the signature is good
    TrustedKeySet(keys: keyset.KeySet)  # a well-known document listing keys (rotation)
        .key_id ; .verify(record_dict) -> tuple[str, ...]
    read_key_file(data: bytes, where: str) -> TrustedKey | TrustedKeySet  # the one rule
    load_trusted(path_or_url: str) -> TrustedKey | TrustedKeySet  # KeyFileError (exit 2)
    verify_signature(public_key, signature, message) -> Reason | None  # why not, or None

Key files (schema/SPEC.md, section 11.6): the private key is PKCS#8 PEM,
unencrypted, mode 0600.  A private key file that group or others may read
is refused (as ssh does): the key signs every ranked game, and a key that
leaked cannot be told apart from the server.  A public key file and a
fetched well-known document are read by one rule (:func:`read_key_file`):
at most 64 KiB of UTF-8, one BOM at the start ignored, then either the JSON
document (read as strictly as a record) or text holding exactly one PEM
``PUBLIC KEY`` block.

Signatures are checked as SPEC 11.6 says: the public key must be a
canonical point not of small order, R a canonical point and S below L
(:mod:`twenty48_replay.fairplay.ed25519`, checked here first), then the
cofactorless equation (OpenSSL through ``cryptography``).
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import secrets
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from twenty48_replay.core.errors import KeyFileError, RecordError, os_problem
from twenty48_replay.core.fair import (
    SIGNATURE_HEX_LENGTH,
    canonical_bytes,
    key_id_of,
    validate_signature_text,
)
from twenty48_replay.core.i18n import N_
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import loads_strict
from twenty48_replay.fairplay.ed25519 import public_key_problem, signature_problem
from twenty48_replay.fairplay.keyset import KeySet, read_key_set

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ALGORITHM: Final = "Ed25519"
WELL_KNOWN_PATH: Final = "/.well-known/twenty48-key"
MAX_KEY_FILE_BYTES: Final = 64 * 1024
FETCH_TIMEOUT: Final = 10.0
#: Redirects one fetch of a key follows (SPEC 11.6): enough for http -> https -> www.
MAX_REDIRECTS: Final = 5
#: The statuses a fetch follows as redirects; any other status but 200 refuses the answer.
REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
#: The media type of the well-known document, the only one a fetched answer may have.
KEY_MEDIA_TYPE: Final = "application/json"
#: DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410); the raw key follows.
SPKI_PREFIX: Final = bytes.fromhex("302a300506032b6570032100")
_PUBLIC_PEM_HEAD: Final = b"-----BEGIN PUBLIC KEY-----"
_PUBLIC_PEM_TAIL: Final = b"-----END PUBLIC KEY-----"


def _kind(mode: int) -> str:
    """What a non-regular file is, for the error line."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def _open_regular(path: Path) -> tuple[int, int]:
    """A read-only descriptor of ``path`` and its mode; refuses anything but a regular file.

    Opened without blocking (a named pipe would otherwise wait for a writer)
    and checked on the open descriptor, so what is checked is what is read.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise KeyFileError(
            N_("cannot read key file {path}: {error}"), path=path, error=os_problem(exc)
        ) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as exc:
        os.close(fd)
        raise KeyFileError(
            N_("cannot read key file {path}: {error}"), path=path, error=os_problem(exc)
        ) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise KeyFileError(N_("key file {path} is {kind}, not a file"), path=path, kind=_kind(mode))
    return fd, mode


def _read_capped(path: Path, fd: int | None = None) -> bytes:
    """At most 64 KiB + 1 byte of a regular file (the extra byte tells a larger file)."""
    if fd is None:
        fd, _mode = _open_regular(path)
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read(MAX_KEY_FILE_BYTES + 1)
    except OSError as exc:
        raise KeyFileError(
            N_("cannot read key file {path}: {error}"), path=path, error=os_problem(exc)
        ) from None


def _read_bounded(path: Path, fd: int | None = None) -> bytes:
    """At most 64 KiB of a regular file; a larger one is refused."""
    data = _read_capped(path, fd)
    if len(data) > MAX_KEY_FILE_BYTES:
        raise KeyFileError(
            N_("key file {path} is over {limit} bytes: not a key"),
            path=path,
            limit=MAX_KEY_FILE_BYTES,
        )
    return data


# ---------------------------------------------------------------- the server's key


class ServerKey:
    """The server's private signing key (Ed25519)."""

    __slots__ = ("_private", "public_key")

    def __init__(self, private: Ed25519PrivateKey) -> None:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._private = private
        self.public_key: bytes = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def key_id(self) -> str:
        """First 16 hex characters of SHA-256 of the raw public key."""
        return key_id_of(self.public_key)

    @property
    def public_key_hex(self) -> str:
        """The raw 32-byte public key as 64 lowercase hex characters."""
        return self.public_key.hex()

    @classmethod
    def generate(cls) -> ServerKey:
        """A new random key (not stored anywhere)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_bytes(cls, seed: bytes) -> ServerKey:
        """The key of a 32-byte private seed (RFC 8032), e.g. the test vectors' key."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    def private_pem(self) -> bytes:
        """The private key as unencrypted PKCS#8 PEM (what the key file holds)."""
        from cryptography.hazmat.primitives.serialization import (
            Encoding,
            NoEncryption,
            PrivateFormat,
        )

        return self._private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())

    def public_pem(self) -> bytes:
        """The public key as SubjectPublicKeyInfo PEM, a file ``verify --trust`` reads."""
        body = base64.encodebytes(SPKI_PREFIX + self.public_key).replace(b"\n", b"")
        return _PUBLIC_PEM_HEAD + b"\n" + body + b"\n" + _PUBLIC_PEM_TAIL + b"\n"

    def well_known(self) -> dict[str, str]:
        """The body of ``GET /.well-known/twenty48-key``."""
        return {"algorithm": ALGORITHM, "key_id": self.key_id, "public_key": self.public_key_hex}

    def trusted(self) -> TrustedKey:
        """The public half, as a verifier holds it."""
        return TrustedKey(self.public_key)

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        signature: bytes = self._private.sign(data)
        return signature

    def sign_record(self, record_dict: Mapping[str, Any]) -> dict[str, Any]:
        """A new dict: the record (any old signature dropped) plus ``signature`` last.

        Refuses (:class:`RecordError`) a record without a ``fair`` object
        naming this key, or one without canonical bytes (a non-integer number).
        """
        fair = record_dict.get("fair")
        if not isinstance(fair, Mapping) or fair.get("key_id") != self.key_id:
            raise RecordError(
                Reason("fair.signer_key", {"key_id": self.key_id}), field="fair.key_id"
            )
        out = {key: value for key, value in record_dict.items() if key != "signature"}
        out["signature"] = self.sign(canonical_bytes(out)).hex()
        return out

    @classmethod
    def load(cls, path: Path) -> ServerKey:
        """Read a private key file; refuses a directory or other non-regular file, then
        one that group or others may read."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
        from cryptography.hazmat.primitives.serialization import load_pem_private_key

        fd, mode = _open_regular(path)
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            os.close(fd)
            raise KeyFileError(
                N_(
                    "private key file {path} is open to group or others "
                    "(mode {mode}); run: chmod 600 {path}"
                ),
                path=path,
                mode=f"{stat.S_IMODE(mode):04o}",
            )
        data = _read_bounded(path, fd)
        try:
            key = load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise KeyFileError(
                N_("{path} is not an unencrypted PEM private key: {error}"), path=path, error=exc
            ) from None
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyFileError(
                N_("{path} holds a {kind}, not an Ed25519 key"), path=path, kind=type(key).__name__
            )
        return cls(key)

    @classmethod
    def load_or_create(cls, path: Path) -> ServerKey:
        """The key in ``path``, made first if the file does not exist.

        Creation is atomic and never exposes the key: it is written to a
        temporary file opened with mode 0600, synced, then hard-linked to
        ``path`` (which fails if another process made the key meanwhile; then
        that key is used, so several workers always share one key).
        """
        if path.exists():
            return cls.load(path)
        key = cls.generate()
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except OSError as exc:
            raise KeyFileError(
                N_("cannot create key file {path}: {error}"), path=path, error=os_problem(exc)
            ) from None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(key.private_pem())
                f.flush()
                os.fsync(f.fileno())
            try:
                os.link(tmp, path)
            except FileExistsError:
                return cls.load(path)
            except OSError as exc:
                raise KeyFileError(
                    N_("cannot create key file {path}: {error}"), path=path, error=os_problem(exc)
                ) from None
            with contextlib.suppress(OSError):
                dir_fd = os.open(path.parent, os.O_RDONLY)
                try:
                    os.fsync(dir_fd)
                finally:
                    os.close(dir_fd)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        return key


# ---------------------------------------------------------------- a verifier's key


def verify_signature(public_key: bytes, signature: bytes, message: bytes) -> Reason | None:
    """Why ``signature`` is not ``public_key``'s Ed25519 signature of ``message``; None if it is.

    SPEC 11.6: the key a canonical point not of small order, R canonical,
    S below L (checked here, as OpenSSL does not check them all), then
    RFC 8032's cofactorless equation [S]B = R + [k]A (OpenSSL).
    """
    return public_key_problem(public_key) or _checked_key_verifies(public_key, signature, message)


def _checked_key_verifies(public_key: bytes, signature: bytes, message: bytes) -> Reason | None:
    """:func:`verify_signature` for a key already checked (a :class:`TrustedKey`'s, a key
    set's): the key check costs more than the signature check, so it is done once."""
    problem = signature_problem(signature)
    if problem is not None:
        return problem
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except InvalidSignature:
        return Reason("signature.mismatch")
    return None


def _record_signature(record_dict: Mapping[str, Any]) -> tuple[bytes, bytes] | Reason:
    """The record's signature and canonical bytes, or why it has none (a reason)."""
    try:
        signature = bytes.fromhex(validate_signature_text(record_dict.get("signature")))
        data = canonical_bytes(record_dict)
    except RecordError as exc:
        return exc.problem
    assert len(signature) * 2 == SIGNATURE_HEX_LENGTH
    return signature, data


@attrs.frozen(slots=True)
class TrustedKey:
    """A public key a verifier trusts; picklable (raw bytes), so verify workers get it.

    Refuses (:class:`KeyFileError`) a key that is not the canonical encoding
    of a curve point or is of small order: with the identity point as key,
    one fixed signature would make every record "fair".
    """

    public_key: bytes = attrs.field()

    @public_key.validator
    def _check(self, _attribute: object, value: bytes) -> None:
        problem = public_key_problem(value)
        if problem is not None:
            raise KeyFileError(N_("{problem}"), problem=problem)

    @property
    def key_id(self) -> str:
        """First 16 hex characters of SHA-256 of the raw public key."""
        return key_id_of(self.public_key)

    @classmethod
    def from_well_known(cls, obj: object) -> TrustedKey:
        """The current key of a parsed well-known document (checked whole, ``keys`` too)."""
        return cls(read_key_set(obj).current)

    @classmethod
    def from_pem(cls, data: bytes) -> TrustedKey:
        """From text holding exactly one SubjectPublicKeyInfo PEM block of an Ed25519 key."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise KeyFileError(N_("not UTF-8 text")) from None
        return cls(_pem_public_key(text.removeprefix("\ufeff")))

    @classmethod
    def from_bytes(cls, data: bytes, where: str) -> TrustedKey:
        """The current key of a key file's bytes (:func:`read_key_file`; a key set's
        other keys are dropped: :func:`load_trusted` keeps them)."""
        found = read_key_file(data, where)
        return found if isinstance(found, TrustedKey) else cls(found.keys.current)

    @classmethod
    def from_file(cls, path: Path) -> TrustedKey:
        """From a file: a PEM public key, or the JSON of ``/.well-known/twenty48-key``."""
        return cls.from_bytes(_read_capped(path), str(path))

    def verify(self, record_dict: Mapping[str, Any]) -> tuple[Reason, ...]:
        """Why the record's signature is not this key's over its canonical bytes; () if it is."""
        fair = record_dict.get("fair")
        named = fair.get("key_id") if isinstance(fair, Mapping) else None
        if named != self.key_id:
            return (Reason("key.other", {"key_id": _shown(named), "trusted": self.key_id}),)
        return _verify_with(self.public_key, record_dict)


def _shown(key_id: object) -> str | None:
    """A record's ``fair.key_id`` as a reason's parameter (as f-strings showed it)."""
    return key_id if key_id is None or isinstance(key_id, str) else str(key_id)


def _verify_with(public_key: bytes, record_dict: Mapping[str, Any]) -> tuple[Reason, ...]:
    signed = _record_signature(record_dict)
    if isinstance(signed, Reason):
        return (signed,)
    problem = _checked_key_verifies(public_key, *signed)
    if problem is None:
        return ()
    return (Reason("signature.invalid", {"key_id": key_id_of(public_key), "problem": problem}),)


@attrs.frozen(slots=True)
class TrustedKeySet:
    """A key set a verifier trusts (SPEC 11.6, rotation): each key for the time it was in use.

    The record's ``fair.key_id`` picks the key; it must be listed, not
    revoked, and in use at ``fair.ended``; then the signature is checked
    with it.  Picklable, like :class:`TrustedKey`.
    """

    keys: KeySet

    @property
    def key_id(self) -> str:
        """The current key's id (named when a record has no signature)."""
        return self.keys.key_id

    def verify(self, record_dict: Mapping[str, Any]) -> tuple[Reason, ...]:
        """Why no listed key vouches for the record; () if one does."""
        fair = record_dict.get("fair")
        named = fair.get("key_id") if isinstance(fair, Mapping) else None
        ended = fair.get("ended") if isinstance(fair, Mapping) else None
        refusal = self.keys.refusal(named, ended)
        if refusal is not None:
            return (refusal,)
        period = self.keys.period(str(named))
        assert period is not None
        return _verify_with(period.public_key, record_dict)


# ---------------------------------------------------------------- key files and documents

_PEM_BEGIN: Final = "-----BEGIN "
_PEM_END: Final = "-----END "
_BASE64_WHITESPACE: Final = str.maketrans("", "", " \t\r\n")
_BASE64: Final = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def _pem_public_key(text: str) -> bytes:
    """The raw key of the one ``PUBLIC KEY`` PEM block in ``text`` (SPEC 11.6).

    Text before the BEGIN line and after the END line is ignored, as RFC 7468
    allows (explanations, ``openssl pkey -text`` output); boundary lines stand
    alone on their line (trailing spaces, tabs and CR allowed).  Any other
    boundary line (a second block, a certificate, a private key) is refused:
    which key would be meant is then a guess.
    """
    lines = [line.rstrip(" \t\r") for line in text.split("\n")]
    boundaries = [i for i, line in enumerate(lines) if line.startswith(("-----BEGIN", "-----END"))]
    if any("PRIVATE KEY" in lines[i] for i in boundaries):
        raise KeyFileError(N_("this is a private key; give the server's public key"))
    if not boundaries:
        raise KeyFileError(
            N_(
                "not JSON (the well-known document) and not a PEM public key "
                "(-----BEGIN PUBLIC KEY-----)"
            )
        )
    if len(boundaries) != 2:
        raise KeyFileError(
            N_("{count} PEM boundary lines: a key file holds one PUBLIC KEY block"),
            count=len(boundaries),
        )
    first, last = boundaries
    if lines[first] != _PUBLIC_PEM_HEAD.decode() or lines[last] != _PUBLIC_PEM_TAIL.decode():
        raise KeyFileError(N_("not a PEM public key (-----BEGIN PUBLIC KEY-----)"))
    body = "".join(lines[first + 1 : last]).translate(_BASE64_WHITESPACE)
    der = base64.b64decode(body) if _BASE64.fullmatch(body) and len(body) % 4 == 0 else b""
    if not der or base64.b64encode(der).decode("ascii") != body:
        # Only the canonical base64 of some bytes: padding at the end only, unused bits 0.
        raise KeyFileError(N_("the PEM public key is not valid base64"))
    if len(der) != len(SPKI_PREFIX) + 32 or not der.startswith(SPKI_PREFIX):
        raise KeyFileError(N_("the PEM public key is not an Ed25519 key"))
    return der[len(SPKI_PREFIX) :]


def read_key_file(data: bytes, where: str) -> TrustedKey | TrustedKeySet:
    """The key in a key file's bytes or a fetched answer: one rule for both (SPEC 11.6).

    At most 64 KiB; UTF-8 (one BOM at the very start ignored); if the first
    character that is not whitespace is ``{`` the text is the well-known
    document, read as strictly as a record (no duplicate keys, no NaN, ...)
    and nested at most 100 levels (:func:`~twenty48_replay.fairplay.keyset.read_key_set`
    checks the parsed document; a deeper one than the parser goes it refuses
    in the same words), a plain key or a key set; otherwise it must hold
    exactly one PEM public key block.  Every refusal is one :class:`KeyFileError` naming ``where``.
    """
    try:
        if len(data) > MAX_KEY_FILE_BYTES:
            raise KeyFileError(N_("is over {limit} bytes: not a key"), limit=MAX_KEY_FILE_BYTES)
        try:
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            raise KeyFileError(N_("not UTF-8 text")) from None
        if not text.lstrip(" \t\r\n").startswith("{"):
            return TrustedKey(_pem_public_key(text))
        try:
            document = loads_strict(text, bom=False)
        except RecordError as exc:
            raise KeyFileError(
                N_("not a well-known key document: {problem}"), problem=exc.problem
            ) from None
        keys = read_key_set(document)
        return TrustedKeySet(keys) if keys.listed else TrustedKey(keys.current)
    except KeyFileError as exc:
        raise KeyFileError(N_("{where}: {problem}"), where=where, problem=exc) from None


def load_trusted(path_or_url: str) -> TrustedKey | TrustedKeySet:
    """The key named by ``verify --trust``: a file, or an http(s) server whose key is fetched.

    For a URL the key comes from ``<url>/.well-known/twenty48-key`` (or the
    URL itself if it already ends so), within 10 s in all and at most
    64 KiB read, from an answer SPEC 11.6 accepts (200, ``application/json``,
    at most 5 redirects, none from https to http: :func:`_download`); file
    and answer are read by the same rule (:func:`read_key_file`).  Every
    failure is one :class:`KeyFileError` line (exit 2).
    """
    if path_or_url.lower().startswith(("http://", "https://")):
        return _fetch(path_or_url)
    try:
        return read_key_file(_read_capped(Path(path_or_url)), path_or_url)
    except KeyFileError as exc:
        if ":" in path_or_url and not os.path.lexists(path_or_url):
            # "127.0.0.1:8048", "localhost:8048/", "ftp://...": meant as a server.
            raise KeyFileError(
                N_("{problem}; a server URL starts with http:// or https://, e.g. {example}"),
                problem=exc,
                example=f"http://{path_or_url.split('://')[-1]}",
            ) from None
        raise


def _fetch(url: str) -> TrustedKey | TrustedKeySet:
    """Fetch and parse the well-known key, the whole exchange bounded by FETCH_TIMEOUT.

    A socket timeout bounds each read, not the exchange: a server that
    sends one byte of its headers or body every few seconds kept ``verify``
    waiting for hours.  The download runs in a daemon thread that is given
    up after FETCH_TIMEOUT seconds (the process then ends with exit 2, and
    the thread with it).
    """
    import threading

    target = url if url.rstrip("/").endswith(WELL_KNOWN_PATH) else url.rstrip("/") + WELL_KNOWN_PATH
    outcome: list[bytes | KeyFileError] = []

    def download() -> None:
        try:
            outcome.append(_download(target))
        except KeyFileError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=download, name="twenty48-key-fetch", daemon=True)
    worker.start()
    worker.join(FETCH_TIMEOUT)
    if not outcome:
        raise KeyFileError(
            N_("cannot fetch the key from {target}: no whole answer within {seconds} s"),
            target=target,
            seconds=f"{FETCH_TIMEOUT:g}",
        )
    data = outcome[0]
    if isinstance(data, KeyFileError):
        raise data
    return read_key_file(data, target)


def _download(target: str) -> bytes:
    """The key's body at ``target`` (at most MAX_KEY_FILE_BYTES + 1 bytes), or KeyFileError.

    SPEC 11.6 says which answers a fetch accepts, so that every verifier
    gets the same key or the same refusal from the same server: status 200
    with one ``Content-Type`` of media type ``application/json`` and no
    compression; 301, 302, 303, 307 and 308 are followed here (urllib's own
    redirect handling is switched off: it would follow ten, to ftp, and
    from https down to http), at most :data:`MAX_REDIRECTS` times, to http
    or https URLs only and never from https back to plain http.  Anything
    else is one error line.
    """
    import urllib.request

    class NoRedirects(urllib.request.HTTPRedirectHandler):
        """Hands every redirect back as an HTTPError, for the loop below to judge."""

        def http_error_302(self, req: Any, fp: Any, code: int, msg: str, headers: Any) -> None:
            return None

        http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    opener = urllib.request.build_opener(NoRedirects)
    url = target
    for hops in range(MAX_REDIRECTS + 1):
        answer = _get(opener, url, target)
        if isinstance(answer, bytes):
            return answer
        status, location = answer
        if hops == MAX_REDIRECTS:
            break
        url = _redirected(url, status, location, target)
    raise KeyFileError(
        N_("cannot fetch the key from {target}: more than {limit} redirects"),
        target=target,
        limit=MAX_REDIRECTS,
    )


def _get(opener: Any, url: str, target: str) -> bytes | tuple[int, str | None]:
    """One GET of ``url``: the accepted answer's body, or a redirect's (status, Location).

    ``http.client`` reports a malformed answer (no status line, more than
    100 headers, a header line over 64 KiB, a broken chunk) with
    ``HTTPException``, which is not an ``OSError``: it is caught here, so a
    hostile server gives one error line, not a traceback.
    """
    import http.client
    import urllib.error
    import urllib.request

    request = urllib.request.Request(url, headers={"Accept": KEY_MEDIA_TYPE})
    try:
        with opener.open(request, timeout=FETCH_TIMEOUT) as response:
            _check_answer(response.status, response.headers, target)
            data: bytes = response.read(MAX_KEY_FILE_BYTES + 1)
            return data
    except urllib.error.HTTPError as exc:
        try:
            if exc.code in REDIRECT_STATUSES:
                return exc.code, exc.headers.get("Location")
        finally:
            exc.close()
        raise KeyFileError(
            N_("cannot fetch the key from {target}: HTTP {status}"), target=target, status=exc.code
        ) from None
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        reason = getattr(exc, "reason", None) or exc
        if isinstance(reason, http.client.HTTPException):
            reason = f"not a valid HTTP answer ({type(reason).__name__}: {reason})"
        raise KeyFileError(
            N_("cannot fetch the key from {target}: {error}"), target=target, error=reason
        ) from None


def _check_answer(status: int, headers: Any, target: str) -> None:
    """Refuse an answer other than 200, ``application/json``, uncompressed (SPEC 11.6)."""
    if status != 200:
        raise KeyFileError(
            N_("cannot fetch the key from {target}: HTTP {status}"), target=target, status=status
        )
    types = headers.get_all("Content-Type") or []
    if len(types) != 1:
        raise KeyFileError(
            N_(
                "cannot fetch the key from {target}: the answer has {count} Content-Type "
                "headers; a key is served with one, application/json"
            ),
            target=target,
            count=len(types),
        )
    media = types[0].split(";", 1)[0].strip(" \t").lower()
    if media != KEY_MEDIA_TYPE:
        raise KeyFileError(
            N_("cannot fetch the key from {target}: the answer is {media}, not application/json"),
            target=target,
            media=repr(types[0]),
        )
    codings = [
        coding.strip(" \t").lower()
        for value in headers.get_all("Content-Encoding") or []
        for coding in value.split(",")
    ]
    if any(coding not in ("", "identity") for coding in codings):
        raise KeyFileError(
            N_(
                "cannot fetch the key from {target}: the answer is compressed ({coding}); "
                "a key is served as it is"
            ),
            target=target,
            coding=", ".join(codings),
        )


def _redirected(url: str, status: int, location: str | None, target: str) -> str:
    """Where a redirect from ``url`` leads, if SPEC 11.6 lets a fetch follow it."""
    from urllib.parse import urljoin, urlsplit

    if location is None or not location.strip():
        raise KeyFileError(
            N_("cannot fetch the key from {target}: HTTP {status} redirects without a Location"),
            target=target,
            status=status,
        )
    try:
        new = urljoin(url, location.strip())
        scheme = urlsplit(new).scheme.lower()
    except ValueError as exc:
        raise KeyFileError(
            N_("cannot fetch the key from {target}: {error}"), target=target, error=exc
        ) from None
    if scheme not in ("http", "https"):
        raise KeyFileError(
            N_(
                "cannot fetch the key from {target}: redirected to a URL that is not http(s): {url}"
            ),
            target=target,
            url=new,
        )
    if scheme == "http" and urlsplit(url).scheme.lower() == "https":
        raise KeyFileError(
            N_("cannot fetch the key from {target}: redirected from https to plain http: {url}"),
            target=target,
            url=new,
        )
    return new
