"""What an operator and a player read: results on stdout, the way out of a TLS failure.

``check`` and ``backup`` printed their result (the verdict, the summary) only on
stderr, so ``twenty48 check > report.txt`` kept the problems without the
verdict; now the result is on stdout, warnings on stderr, the exit codes as
before.  A certificate ``play --server`` does not trust now names the fix the
operator's guide gives (``SSL_CERT_FILE``), in English and in Danish.
"""

from __future__ import annotations

import datetime
import ipaddress
import socket
import sqlite3
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from support.common import EXAMPLES, run_cli

#: A real TLS server and CLI subprocesses: the slow lane.
pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def own_data_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


def test_check_prints_its_verdict_on_stdout(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    healthy = run_cli("check", "--db", db)
    assert healthy.returncode == 0, healthy.stderr
    assert healthy.stdout.splitlines()[-1].startswith("checked 1 games")
    assert healthy.stdout.splitlines()[-1].endswith(": healthy")
    assert healthy.stderr == ""
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("DROP TRIGGER IF EXISTS moves_no_update")
    connection.execute("UPDATE games SET score = score + 4")
    connection.commit()
    connection.close()
    damaged = run_cli("check", "--db", db)
    assert damaged.returncode == 1, damaged.stdout + damaged.stderr
    assert "problem" in damaged.stdout.splitlines()[-1]
    assert "checked" not in damaged.stderr


def test_backup_prints_its_summary_on_stdout(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    said = run_cli("backup", "--db", db, "-o", str(tmp_path / "copy.sqlite3"))
    assert said.returncode == 0, said.stderr
    assert said.stdout.startswith("backed up ")
    assert "backed up" not in said.stderr
    refused = run_cli("backup", "--db", db, "-o", str(tmp_path / "copy.sqlite3"))
    assert refused.returncode == 2
    assert refused.stdout == ""


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "twenty48 test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "ca.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTPS endpoint with a self-signed certificate (a private authority's, to the client)."""
    cert, key = _self_signed(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def answer() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(raw, server_side=True) as conn:
                    conn.recv(65536)
                    conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
            except (OSError, ssl.SSLError):
                raw.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        yield f"https://127.0.0.1:{port}", cert
    finally:
        listener.close()


def test_an_untrusted_certificate_names_the_guides_fix(tls_server: tuple[str, Path]) -> None:
    url, cert = tls_server
    english = run_cli("play", "--server", url, "--moves", "L", "--player", "ann")
    assert english.returncode == 2, english.stdout + english.stderr
    (line,) = english.stderr.strip().splitlines()
    assert "certificate verify failed" in line
    assert "SSL_CERT_FILE=ca.pem" in line
    assert "operator's guide" in line
    danish = run_cli("--lang", "da", "play", "--server", url, "--moves", "L", "--player", "ann")
    assert danish.returncode == 2
    assert "SSL_CERT_FILE=ca.pem" in danish.stderr
    assert "driftsvejledningen" in danish.stderr
    # The fix works: with the authority's certificate the TLS failure is gone.
    trusted = run_cli(
        "play", "--server", url, "--moves", "L", "--player", "ann", env={"SSL_CERT_FILE": str(cert)}
    )
    assert "SSL_CERT_FILE" not in trusted.stderr
    assert "certificate" not in trusted.stderr
