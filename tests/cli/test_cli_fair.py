"""`twenty48 verify` on fair records, with and without --trust, as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.common import VECTORS, load_json, one_line_error

FAIR = VECTORS / "fair"
EXPECTED: dict[str, Any] = load_json(FAIR / "expected.json")
RECORD = FAIR / "record.json"
KEY_PEM = str(FAIR / "key.pem")
TAMPERED = [c for c in EXPECTED["cases"] if c["file"] != "record.json"]


def test_fair_record_passes_verify_trust(cli: Any) -> None:
    result = cli("verify", "--trust", KEY_PEM, str(RECORD))
    assert result.returncode == 0, result.stdout + result.stderr
    assert ": valid: " in result.stdout
    assert result.stdout.rstrip().endswith("· fair, signature checked")
    obj = json.loads(cli("verify", "--json", "--trust", KEY_PEM, str(RECORD)).stdout)
    assert (obj["valid"], obj["fair"], obj["signature"], obj["reasons"]) == (
        True,
        "fair",
        "checked",
        [],
    )
    well_known = cli("verify", "--json", "--trust", str(FAIR / "well-known.json"), str(RECORD))
    assert json.loads(well_known.stdout)["fair"] == "fair"


def test_fair_record_without_a_key_is_unchecked(cli: Any) -> None:
    result = cli("verify", str(RECORD))
    assert result.returncode == 0, result.stderr
    assert "fair play unchecked (no --trust key for the signature)" in result.stdout
    obj = json.loads(cli("verify", "--json", str(RECORD)).stdout)
    assert (obj["fair"], obj["signature"]) == ("unchecked", "unchecked")


def test_plain_record_stays_valid_and_is_self_seeded(cli: Any) -> None:
    plain = str(VECTORS / "records" / "valid.json")
    for args in ((plain,), ("--trust", KEY_PEM, plain)):
        result = cli("verify", *args)
        assert result.returncode == 0, result.stderr
        assert result.stdout.rstrip().endswith("· self-seeded")
        obj = json.loads(cli("verify", "--json", *args).stdout)
        assert (obj["valid"], obj["fair"], obj["signature"]) == (True, "self-seeded", None)


@pytest.mark.parametrize("case", TAMPERED, ids=lambda c: c["file"])
def test_every_change_fails_verify_trust_with_a_reason(cli: Any, case: dict[str, Any]) -> None:
    path = str(FAIR / case["file"])
    result = cli("verify", "--json", "--trust", KEY_PEM, path)
    assert result.returncode == 1, result.stdout + result.stderr
    obj = json.loads(result.stdout)
    assert obj["valid"] is False
    assert obj["fair"] == "not fair"
    assert obj["reasons"] == case["with_key"]["reasons"]
    assert any(r.startswith("fair: ") for r in obj["reasons"])
    text = cli("verify", "--trust", KEY_PEM, path)
    assert text.returncode == 1
    assert ": INVALID: " in text.stdout
    assert text.stdout.rstrip().endswith("· not fair")


def test_other_key_is_named(cli: Any) -> None:
    result = cli("verify", "--trust", KEY_PEM, str(FAIR / "other-key.json"))
    assert result.returncode == 1
    other = load_json(FAIR / "other-key.json")["fair"]["key_id"]
    assert f"signed by key {other}, not by the trusted key {EXPECTED['key_id']}" in result.stdout


def test_a_batch_with_workers_checks_every_signature(cli: Any, tmp_path: Path) -> None:
    good = json.dumps(load_json(RECORD), ensure_ascii=False)
    bad = json.dumps(load_json(FAIR / "tampered-ended.json"), ensure_ascii=False)
    lines = [bad if i % 5 == 3 else good for i in range(600)]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = cli("verify", "--json", "--jobs", "2", "--trust", KEY_PEM, str(batch))
    assert result.returncode == 1
    objs = [json.loads(x) for x in result.stdout.splitlines()]
    assert [o["fair"] for o in objs] == ["not fair" if i % 5 == 3 else "fair" for i in range(600)]


def test_malformed_fair_object_is_unreadable_naming_the_field(cli: Any, tmp_path: Path) -> None:
    data = load_json(RECORD)
    data["fair"]["commitment"] = data["fair"]["commitment"].upper()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = cli("verify", str(path))
    assert result.returncode == 2
    assert "field 'fair.commitment'" in result.stderr


def test_unusable_trust_key_file_is_one_line_exit_2(cli: Any, tmp_path: Path) -> None:
    result = cli("verify", "--trust", str(tmp_path / "missing.pem"), str(RECORD))
    assert result.returncode == 2
    assert "missing.pem" in one_line_error(result.stderr)
    assert result.stdout == ""
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key")
    result = cli("verify", "--trust", str(junk), str(RECORD))
    assert result.returncode == 2
    assert "not a PEM public key" in one_line_error(result.stderr)


def test_trust_key_that_is_not_a_regular_file_is_refused_as_such(cli: Any, tmp_path: Path) -> None:
    """A directory or a named pipe (which would block a plain open) is named for what it is."""
    import os

    os.mkfifo(tmp_path / "pipe.pem")
    for path, kind in ((tmp_path, "a directory"), (tmp_path / "pipe.pem", "a named pipe")):
        result = cli("verify", "--trust", str(path), str(RECORD), timeout=30)
        assert result.returncode == 2
        assert f"{path} is {kind}, not a file" in one_line_error(result.stderr)


# ---------------------------------------------------------------- --trust URL


@pytest.mark.slow
def test_trust_url_fetches_the_well_known_key(
    cli: Any, key_server: tuple[str, dict[str, Any]]
) -> None:
    url, routes = key_server
    routes["/.well-known/twenty48-key"] = (200, (FAIR / "well-known.json").read_bytes())
    for given in (url, url + "/", url + "/.well-known/twenty48-key"):
        result = cli("verify", "--json", "--trust", given, str(RECORD))
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["fair"] == "fair"
    bad = cli("verify", "--trust", url, str(FAIR / "tampered-score.json"))
    assert bad.returncode == 1


@pytest.mark.slow
def test_trust_url_failures_are_one_line_exit_2(
    cli: Any, key_server: tuple[str, dict[str, Any]]
) -> None:
    url, routes = key_server
    missing = cli("verify", "--trust", url, str(RECORD))
    assert missing.returncode == 2
    assert "HTTP 404" in one_line_error(missing.stderr)
    routes["/.well-known/twenty48-key"] = (200, b"[" * 70_000)
    huge = cli("verify", "--trust", url, str(RECORD))
    assert huge.returncode == 2
    assert "over 65536 bytes" in one_line_error(huge.stderr)
    # A document starts with "{" (SPEC 11.6); anything else is read as PEM text.
    routes["/.well-known/twenty48-key"] = (200, b'{"keys": ' + b"[" * 60_000)
    deep = cli("verify", "--trust", url, str(RECORD))
    assert deep.returncode == 2
    assert "nested too deeply" in one_line_error(deep.stderr)
    routes["/.well-known/twenty48-key"] = (200, b"<html>")
    html = cli("verify", "--trust", url, str(RECORD))
    assert html.returncode == 2
    assert "not JSON" in one_line_error(html.stderr)


def test_unreachable_trust_url_is_one_line_exit_2(cli: Any) -> None:
    import socket

    with socket.socket() as sock:  # a port with nothing listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = cli("verify", "--trust", f"http://127.0.0.1:{port}", str(RECORD))
    assert result.returncode == 2
    assert "cannot fetch the key" in one_line_error(result.stderr)


# ---------------------------------------------------------------- start-up cost


def imported_modules(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "twenty48_cli", "verify", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return result.stderr


def test_verify_loads_cryptography_only_to_check_a_signature() -> None:
    plain = str(VECTORS / "records" / "valid.json")
    assert "cryptography" not in imported_modules(plain)
    assert "cryptography" not in imported_modules(str(RECORD))
    assert "cryptography" not in imported_modules("--trust", KEY_PEM, plain)
    assert "cryptography" in imported_modules("--trust", KEY_PEM, str(RECORD))


# ---------------------------------------------------------------- the store keeps fair records


@pytest.mark.slow
def test_import_refuses_a_not_fair_record_and_keeps_a_fair_one_verifiable(
    cli: Any, tmp_path: Path
) -> None:
    db = str(tmp_path / "t.sqlite3")
    bad = cli("import", "--db", db, str(FAIR / "tampered-commitment.json"))
    assert bad.returncode == 1
    assert "INVALID, not imported: fair: commitment" in bad.stderr
    good = cli("import", "--db", db, str(RECORD))
    assert good.returncode == 0, good.stderr
    exported = tmp_path / "out.json"
    assert cli("export", "--db", db, "1", "-o", str(exported)).returncode == 0
    again = cli("verify", "--json", "--trust", KEY_PEM, str(exported))
    assert again.returncode == 0, again.stdout
    assert json.loads(again.stdout)["fair"] == "fair"


# ---------------------------------------------------------------- --trust URL, hostile servers


@pytest.fixture
def raw_server() -> Iterator[tuple[str, dict[str, Any]]]:
    """A TCP server on a free port that answers every connection with ``answer["bytes"]``,
    then, if ``answer["drip"]``, one byte of it per second for as long as the client reads.
    """
    import socket

    answer: dict[str, Any] = {"bytes": b"", "drip": b""}
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    stop = threading.Event()

    def serve(connection: socket.socket) -> None:
        with connection:
            connection.settimeout(60)
            try:
                connection.recv(65536)
                connection.sendall(answer["bytes"])
                for byte in answer["drip"]:
                    if stop.wait(1):
                        break
                    connection.sendall(bytes([byte]))
            except OSError:
                pass

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}", answer
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize(
    ("answer", "named"),
    [
        (b"HELLO\r\n\r\n", "BadStatusLine"),
        (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n{}", "more than 100 headers"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70_000 + b"\r\n\r\n{}", "LineTooLong"),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
            "IncompleteRead",
        ),
        (b"HTTP/1.1 302 Found\r\nLocation: ftp://127.0.0.1:1/k\r\n\r\n", "not http(s)"),
    ],
    ids=["no-status-line", "many-headers", "long-header", "bad-chunk", "redirect-to-ftp"],
)
def test_malformed_http_answer_is_one_line_exit_2(
    cli: Any, raw_server: tuple[str, dict[str, Any]], answer: bytes, named: str
) -> None:
    """http.client's HTTPException is no OSError: each of these was a traceback (exit 1)."""
    url, server = raw_server
    server["bytes"] = answer
    result = cli("verify", "--trust", url, str(RECORD))
    assert result.returncode == 2, result.stderr
    line = one_line_error(result.stderr)
    assert "cannot fetch the key" in line
    assert named in line


@pytest.mark.slow
def test_slow_drip_server_is_given_up_after_the_fetch_timeout(
    cli: Any, raw_server: tuple[str, dict[str, Any]]
) -> None:
    """One byte a second never trips a per-read timeout; verify waited for hours before."""
    import time

    url, server = raw_server
    server["bytes"] = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 600\r\n\r\n"
    )
    server["drip"] = b" " * 600
    started = time.monotonic()
    result = cli("verify", "--trust", url, str(RECORD), timeout=60)
    assert result.returncode == 2, result.stderr
    assert "no whole answer within 10 s" in one_line_error(result.stderr)
    assert time.monotonic() - started < 40


@pytest.mark.slow
def test_a_signed_record_ended_early_reads_as_ended_not_playing(cli: Any, tmp_path: Path) -> None:
    """People read "ended" for a sealed game (it takes no move); JSON keeps its fields;
    ``list --state unfinished`` holds only games that can still be played."""
    db = str(tmp_path / "t.sqlite3")
    assert cli("import", "--db", db, str(RECORD)).returncode == 0
    assert cli("play", "--db", db, "--seed", "x", "--moves", "L").returncode == 0
    rows = cli("list", "--db", db).stdout.splitlines()
    assert rows[-1].endswith("ended (signed)"), rows
    assert "playing" in rows[-2], rows
    assert "ended" in cli("show", "1", "--db", db).stdout.splitlines()[2]
    shown = json.loads(cli("show", "--json", "1", "--db", db).stdout)
    assert (shown["state"], shown["sealed"]) == ("playing", True)
    unfinished = cli("list", "--json", "--state", "unfinished", "--db", db).stdout
    assert [json.loads(line)["id"] for line in unfinished.splitlines()] == [2]
    danish = cli("--lang", "da", "list", "--db", db).stdout.splitlines()
    assert danish[-1].endswith("afsluttet (underskrevet)"), danish


@pytest.mark.slow
def test_a_signed_record_kept_locally_is_sealed(cli: Any, tmp_path: Path) -> None:
    """A fair game ended before game over is never resumed and takes no local move, so its
    signature stays good; list and show label it (a new key, the old ones unchanged)."""
    from twenty48_replay.core.errors import SealedGameError
    from twenty48_replay.store import Store

    db = str(tmp_path / "t.sqlite3")
    assert cli("import", "--db", db, str(RECORD)).returncode == 0
    listed = json.loads(cli("list", "--json", "--db", db).stdout)
    assert (listed["id"], listed["over"], listed["sealed"]) == (1, False, True)
    shown = json.loads(cli("show", "--json", "1", "--db", db).stdout)
    assert (shown["state"], shown["sealed"]) == ("playing", True)
    assert "(signed)" in cli("list", "--db", db).stdout
    assert "signed fair-play record" in cli("show", "1", "--db", db).stdout
    # Plain play starts a new game instead of resuming the signed one.  Its seed is
    # random: when UP does not change its opening (both tiles in the top row; the
    # command then stores nothing), DOWN does.
    resumed = cli("play", "--db", db, "--moves", "U")
    if "does not change the board; no game was stored" in resumed.stderr:
        resumed = cli("play", "--db", db, "--moves", "D")
    assert resumed.returncode in (0, 1), resumed.stderr
    assert resumed.stdout.startswith("game 2 "), resumed.stderr
    # --game on it is refused in one line, exit 1, with nothing stored.
    refused = cli("play", "--db", db, "--game", "1", "--moves", "U")
    assert refused.returncode == 1
    assert one_line_error(refused.stderr) == (
        "twenty48: error: game 1 is a signed fair-play record; it takes no more moves"
    )
    assert refused.stdout == ""
    with Store(db) as store:
        session = store.open_game(1)
        assert session.sealed
        with pytest.raises(SealedGameError):
            session.play(session.state.board.valid_directions()[0])
        with pytest.raises(SealedGameError):
            session.mark_assisted()
        latest = store.resume_latest()
        assert latest is not None
        assert (latest.id, latest.sealed) == (2, False)
    exported = tmp_path / "out.json"
    assert cli("export", "--db", db, "1", "-o", str(exported)).returncode == 0
    assert json.loads(exported.read_text())["moves"] == load_json(RECORD)["moves"]
    again = cli("verify", "--json", "--trust", KEY_PEM, str(exported))
    assert again.returncode == 0, again.stdout
    assert json.loads(again.stdout)["fair"] == "fair"
