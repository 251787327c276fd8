"""The test harness itself: a port taken between choosing and listening is chosen again.

CI runs two test suites side by side on one machine; before this, one of them could lose the port
it chose to the other and fail a test that had nothing to do with ports.
"""

from __future__ import annotations

import socket
from pathlib import Path

from support.server_harness import ServerProcess, free_port


def test_free_port_is_free_on_every_address_and_below_the_ephemeral_range() -> None:
    port = free_port()
    assert 20000 <= port < 32000
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", port))


def test_a_port_taken_before_the_server_listens_is_chosen_again(tmp_path: Path) -> None:
    server = ServerProcess(str(tmp_path / "ports.sqlite3"), tmp_path, "--no-analysis")
    taken = server.port
    with socket.socket() as thief:
        thief.bind(("127.0.0.1", taken))
        thief.listen()
        with server:
            assert server.port != taken
            assert server.url == f"http://127.0.0.1:{server.port}"
    said = server.logs[0].read_text()
    assert "address already in use" in said
