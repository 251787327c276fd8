"""A trusted key that cannot be used is said in the reader's language (issue 20 s.3 point 2).

``verify --trust FILE`` with a bad key file printed English inside Danish
output: KeyFileError was built from f-strings.  It is now built from a
marked template and its parameters: the English line is what it always was,
the Danish one is translated, nested problems (the JSON reader's) with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli

#: A key file's text, the English line's problem and the Danish one's.
CASES = [
    (
        "hello",
        "not JSON (the well-known document) and not a PEM public key (-----BEGIN PUBLIC KEY-----)",
        "ikke JSON (well-known-dokumentet) og ikke en offentlig PEM-nøgle "
        "(-----BEGIN PUBLIC KEY-----)",
    ),
    (
        '{"algorithm": "Ed25519", "public_key": "zz"}',
        "public_key must be 64 lowercase hex characters",
        "public_key skal være 64 små hex-tegn",
    ),
    (
        '{"algorithm": "Ed25519", "public_key": 1, "public_key": 2}',
        "not a well-known key document: duplicate key 'public_key'",
        "ikke et well-known-nøgledokument: ",
    ),
    (
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
        "this is a private key; give the server's public key",
        "dette er en privat nøgle; angiv serverens offentlige nøgle",
    ),
    (
        '{"algorithm": "Ed25519"}',
        "public_key must be 64 lowercase hex characters",
        "public_key skal være 64 små hex-tegn",
    ),
]


@pytest.mark.parametrize(("text", "english", "danish"), CASES)
def test_a_bad_key_file_is_refused_in_the_readers_language(
    tmp_path: Path, text: str, english: str, danish: str
) -> None:
    key = tmp_path / "key.txt"
    key.write_text(text, encoding="utf-8")
    record = str(EXAMPLES / "valid.json")
    said = run_cli("verify", "--trust", str(key), record)
    assert said.returncode == 2
    assert said.stderr == f"twenty48: error: {key}: {english}\n"
    sagt = run_cli("--lang", "da", "verify", "--trust", str(key), record)
    assert sagt.returncode == 2
    assert sagt.stderr.startswith(f"twenty48: fejl: {key}: {danish}"), sagt.stderr
    assert english not in sagt.stderr


def test_a_missing_key_file_is_said_in_danish(tmp_path: Path) -> None:
    missing = tmp_path / "nope.pem"
    sagt = run_cli("--lang", "da", "verify", "--trust", str(missing), str(EXAMPLES / "valid.json"))
    assert sagt.returncode == 2
    assert sagt.stderr.startswith(f"twenty48: fejl: kan ikke læse nøglefilen {missing}: ")


def test_key_file_error_keeps_english_for_machines_and_translates_for_people() -> None:
    from twenty48_replay.core import i18n
    from twenty48_replay.core.errors import KeyFileError, RecordError
    from twenty48_replay.core.i18n import N_
    from twenty48_replay.core.reasons import Reason

    inner = RecordError(Reason("json.duplicate_key", {"key": "a"}))
    error = KeyFileError(
        N_("{where}: {problem}"),
        where="k.json",
        problem=KeyFileError(N_("not a well-known key document: {problem}"), problem=inner.problem),
    )
    assert str(error) == "k.json: not a well-known key document: duplicate key 'a'"
    i18n.set_language("da")
    try:
        assert error.translated() == "k.json: ikke et well-known-nøgledokument: dobbelt nøgle 'a'"
        assert str(error) == "k.json: not a well-known key document: duplicate key 'a'"
    finally:
        i18n.set_language(i18n.ENGLISH)


def test_the_server_s_own_key_file_is_refused_in_danish(tmp_path: Path) -> None:
    """``serve --key`` with a key file it cannot use: the one line in the reader's language."""
    from support.server_harness import free_port

    junk = tmp_path / "junk.pem"
    junk.write_text("not a key\n", encoding="utf-8")
    junk.chmod(0o600)
    shared = tmp_path / "shared.pem"
    shared.write_text("x", encoding="utf-8")
    shared.chmod(0o644)
    database = tmp_path / "new.sqlite3"
    cases = [
        (junk, "is not an unencrypted PEM private key", "er ikke en ukrypteret privat PEM-nøgle"),
        (shared, "is open to group or others", "er åben for gruppe eller andre"),
        (tmp_path / "none" / "k.pem", "cannot create key file", "kan ikke oprette nøglefilen"),
    ]
    port = str(free_port())
    for key, english, danish in cases:
        for language, words, other in (("en", english, danish), ("da", danish, english)):
            done = run_cli(
                "--lang", language, "serve", "--db", str(database), "--key", str(key),
                "--port", port, timeout=60,
            )  # fmt: skip
            assert done.returncode == 2, (key, done.stderr)
            line = done.stderr.strip()
            assert words in line, (language, line)
            assert other not in line, (language, line)
            assert not database.exists()
