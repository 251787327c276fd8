"""Per-address quotas count an IPv6 client by its /64 and an IPv4-mapped address as its IPv4.

One IPv6 subscriber holds a whole /64: counted per address, it got a fresh
quota with every address it picked (40 addresses of one /64 registered 40
names where one IPv4 address gets 5).  The first test goes through the
shipped nginx site, as the systemd unit starts serve (``--forwarded-allow-ips
127.0.0.1``: serve counts the address nginx puts in X-Forwarded-For), with
clients that really connect from many addresses of one /64, in a network of
the test's own (:mod:`support.netns`).
"""

from __future__ import annotations

import json
import socket
from collections import Counter
from pathlib import Path

import pytest
from support.netns import connect_from, run_in_own_network
from support.nginx_harness import NginxProcess, nginx_path
from support.server_client import raw
from support.server_harness import ServerProcess

#: Real serve processes behind real nginx: the slow lane.
pytestmark = pytest.mark.slow

#: The clients' network (documentation prefix), and one address of another /64.
PREFIX = "2001:db8:48::/48"
SAME_64 = [f"2001:db8:48:1:{i:x}:{i * 7919 % 65536:x}:{i:x}:1" for i in range(1, 15)]
OTHER_64 = "2001:db8:48:2::1"


def tls_post(nginx: NginxProcess, source: str, path: str, body: bytes) -> tuple[int, bytes]:
    """One POST over TLS to nginx's ``[::1]`` from the IPv6 address ``source``."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    plain = connect_from(source, "::1", nginx.https_port)
    with nginx.client_context().wrap_socket(plain, server_hostname="127.0.0.1") as sock:
        sock.sendall(head + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


def statuses(answers: list[tuple[int, bytes]]) -> Counter[int]:
    return Counter(status for status, _body in answers)


def test_addresses_of_one_ipv6_64_share_every_quota_through_nginx(db: str, tmp_path: Path) -> None:
    nginx_path()

    def scenario() -> dict[str, list[tuple[int, bytes]]]:
        serve = ServerProcess(
            db,
            tmp_path,
            "--no-analysis",
            "--forwarded-allow-ips",
            "127.0.0.1",
            "--rate-limit",
            "create-game=600/h:8",
        )
        seen: dict[str, list[tuple[int, bytes]]] = {}
        with serve, NginxProcess(serve.port, ipv6=True) as nginx:
            seen["names"] = [
                tls_post(nginx, source, "/api/players", json.dumps({"name": f"net{i}"}).encode())
                for i, source in enumerate(SAME_64)
            ]
            seen["other names"] = [
                tls_post(nginx, OTHER_64, "/api/players", b'{"name": "elsewhere"}')
            ]
            seen["games"] = [
                tls_post(nginx, source, "/api/games", json.dumps({"player": f"g{i}"}).encode())
                for i, source in enumerate(SAME_64[:12])
            ]
            # Charged before the body is read: a body that is no record costs the same.
            seen["records"] = [
                tls_post(nginx, source, "/api/records", b"{}") for source in SAME_64[:13]
            ]
            seen["log"] = [(0, serve.log_text().encode())]
        return seen

    seen = run_in_own_network(PREFIX, scenario)
    assert statuses(seen["names"]) == {201: 5, 429: 9}, seen["names"]
    assert b"name registrations from this address" in seen["names"][-1][1]
    assert statuses(seen["other names"]) == {201: 1}, seen["other names"]
    assert statuses(seen["games"]) == {201: 8, 429: 4}, seen["games"]
    assert statuses(seen["records"])[429] == 3, seen["records"]
    assert 429 not in statuses(seen["records"][:10]), seen["records"]
    log = seen["log"][0][1].decode(errors="replace")
    assert f"{SAME_64[0]}:" in log  # serve saw each client's own address (nginx's header)


def test_an_ipv4_mapped_address_counts_as_its_ipv4_address(db: str, tmp_path: Path) -> None:
    with ServerProcess(
        db, tmp_path, "--no-analysis", "--forwarded-allow-ips", "127.0.0.1"
    ) as server:
        answers = [
            raw(
                server.url,
                "POST",
                "/api/players",
                json.dumps({"name": f"mapped{i}"}).encode(),
                {"X-Forwarded-For": "::ffff:203.0.113.9" if i % 2 else "203.0.113.9"},
            )
            for i in range(7)
        ]
        assert [status for status, _h, _b in answers] == [201] * 5 + [429] * 2
        fresh = raw(
            server.url,
            "POST",
            "/api/players",
            b'{"name": "neighbour"}',
            {"X-Forwarded-For": "203.0.113.10"},
        )
        assert fresh[0] == 201


def test_the_network_helper_gives_each_connection_its_own_source() -> None:
    """The test above is only as good as its clients' addresses: each is the one asked for."""

    def scenario() -> list[str]:
        listener = socket.create_server(("::1", 0), family=socket.AF_INET6)
        port = listener.getsockname()[1]
        found = []
        with listener:
            for source in SAME_64[:3]:
                with connect_from(source, "::1", port):
                    accepted, peer = listener.accept()
                    accepted.close()
                    found.append(peer[0])
        return found

    assert run_in_own_network(PREFIX, scenario) == SAME_64[:3]
