"""Real nginx in front of a real ``twenty48 serve``: the shipped site file, made local.

:class:`NginxProcess` runs Debian's nginx in a temporary folder, on free
ports, with ``deploy/nginx/twenty48.conf`` included as shipped except for
what only a deployment knows (its ports, certificate and log paths; each
replacement must match exactly once, so the test breaks when the file
drifts) and a self-signed certificate for 127.0.0.1 made at start.  When
the tests run as root, nginx runs as ``nobody`` all the same, as an
operator's nginx workers would.

Without nginx the tests skip, unless ``TWENTY48_REQUIRE_NGINX`` is set
(``.ci/run`` sets it), in which case they fail.
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from support.server_harness import free_port

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "twenty48.conf"
REQUIRE_VAR = "TWENTY48_REQUIRE_NGINX"
NOBODY = 65534


def nginx_path() -> str:
    """Debian's nginx, or skip (fail under ``TWENTY48_REQUIRE_NGINX``) when it is missing."""
    found = shutil.which("nginx") or shutil.which("/usr/sbin/nginx")
    if found is None:
        reason = "nginx is not installed (apt-get install nginx)"
        if os.environ.get(REQUIRE_VAR):
            pytest.fail(f"{reason}, but {REQUIRE_VAR} is set")
        pytest.skip(reason)
    assert found is not None
    return found


def make_certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost, valid for a day: (cert, key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "twenty48 test proxy")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.DNSName("localhost"),
                    x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
                    x509.IPAddress(ipaddress.IPv6Address("::1")),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path = folder / "proxy-cert.pem"
    key_path = folder / "proxy-key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    return cert_path, key_path


def replace_once(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new``; ``old`` must occur exactly once."""
    count = text.count(old)
    assert count == 1, f"{SITE.name}: expected {old!r} once, found it {count} times"
    return text.replace(old, new)


def local_site(
    folder: Path,
    *,
    upstream: int,
    http_port: int,
    https_port: int,
    cert: Path,
    key: Path,
    ipv6: bool = False,
    second: int | None = None,
) -> str:
    """The shipped site file with this machine's ports, certificate and log paths.

    ``ipv6``: HTTPS is also on ``[::1]`` (the shipped ``[::]:443``, made local).
    ``second``: the port of a second serve, in the upstream line the file ships
    commented out (as docs/operating.md, "Rolling restarts", has the operator do).
    """
    text = SITE.read_text(encoding="utf-8")
    https_v6 = f"    listen [::1]:{https_port} ssl http2;\n" if ipv6 else ""
    second_line = "#server 127.0.0.1:8049;" if second is None else f"server 127.0.0.1:{second};"
    for old, new in (
        ("server 127.0.0.1:8048;", f"server 127.0.0.1:{upstream};"),
        ("#server 127.0.0.1:8049;", second_line),
        ("    listen 80;\n", f"    listen 127.0.0.1:{http_port};\n"),
        ("    listen [::]:80;\n", ""),
        ("    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{https_port} ssl http2;\n"),
        ("    listen [::]:443 ssl http2;\n", https_v6),
        ("/etc/letsencrypt/live/game.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/game.example.org/privkey.pem", str(key)),
        ("/var/log/nginx/twenty48.access.log", str(folder / "access.log")),
        ("/var/log/nginx/twenty48.error.log", str(folder / "error.log")),
        ("root /var/www/html;", f"root {folder / 'webroot'};"),
    ):
        text = replace_once(text, old, new)
    return text


def main_config(folder: Path, open_files: int) -> str:
    """nginx.conf for the test: what docs/operating.md asks of /etc/nginx/nginx.conf."""
    temp = folder / "temp"
    return f"""
worker_processes auto;
pid {folder}/nginx.pid;
error_log {folder}/nginx-error.log notice;
worker_rlimit_nofile {open_files};
events {{
    worker_connections {min(16384, open_files // 2)};
}}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    access_log off;
    include {folder}/twenty48.conf;
}}
"""


class NginxProcess:
    """nginx on free ports of 127.0.0.1 proxying to ``upstream_port`` (a running serve).

    ``ipv6``: HTTPS on ``[::1]`` too, for clients with IPv6 addresses
    (:mod:`support.netns`).  ``second_port``: a second serve in the same upstream.
    """

    def __init__(
        self, upstream_port: int, *, ipv6: bool = False, second_port: int | None = None
    ) -> None:
        self.nginx = nginx_path()
        self.upstream_port = upstream_port
        self.second_port = second_port
        self.ipv6 = ipv6
        self.folder = Path(tempfile.mkdtemp(prefix="twenty48-nginx-"))
        self.http_port = free_port()
        self.https_port = free_port()
        self.url = f"https://127.0.0.1:{self.https_port}"
        self.cert, self.key = make_certificate(self.folder)
        self.process: subprocess.Popen[bytes] | None = None
        self.as_nobody = os.geteuid() == 0

    def client_context(self) -> ssl.SSLContext:
        """A TLS context that trusts this proxy's certificate (and nothing else)."""
        return ssl.create_default_context(cafile=str(self.cert))

    def start(self, timeout: float = 30) -> NginxProcess:
        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        open_files = min(65536, hard if hard != resource.RLIM_INFINITY else 65536)
        (self.folder / "temp").mkdir()
        (self.folder / "twenty48.conf").write_text(
            local_site(
                self.folder,
                upstream=self.upstream_port,
                http_port=self.http_port,
                https_port=self.https_port,
                cert=self.cert,
                key=self.key,
                ipv6=self.ipv6,
                second=self.second_port,
            )
        )
        config = self.folder / "nginx.conf"
        config.write_text(main_config(self.folder, open_files))
        if self.as_nobody:
            self.folder.chmod(0o755)
            for path in [self.folder, *self.folder.rglob("*")]:
                os.chown(path, NOBODY, NOBODY)
        command = [
            self.nginx,
            "-p",
            str(self.folder),
            "-c",
            str(config),
            "-e",
            str(self.folder / "nginx-error.log"),
            "-g",
            "daemon off;",
        ]
        check = subprocess.run(
            [*command, "-t"], capture_output=True, preexec_fn=self._drop, timeout=60
        )
        assert check.returncode == 0, check.stderr.decode(errors="replace")
        out = (self.folder / "nginx-stdout.log").open("wb")
        self.process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=self._drop
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"nginx stopped: {self.log_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.https_port), timeout=1):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    raise AssertionError(f"nginx not listening: {self.log_text()}") from None
                time.sleep(0.05)

    def _drop(self) -> None:
        """In the child: run as nobody when the tests run as root (never nginx as root)."""
        if self.as_nobody:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)

    def log_text(self) -> str:
        return "".join(
            path.read_text(errors="replace")
            for name in ("nginx-stdout.log", "nginx-error.log", "error.log")
            if (path := self.folder / name).exists()
        )

    def access_log(self) -> str:
        path = self.folder / "access.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful: finish what is in flight
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> NginxProcess:
        return self.start()

    def __exit__(self, *_exc: Any) -> None:
        self.stop()
