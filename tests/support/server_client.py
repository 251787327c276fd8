"""A real ``twenty48 serve`` in tests: raw HTTP, a few fair moves, the moves its log shows."""

from __future__ import annotations

import http.client

from sqlalchemy import create_engine, text

from twenty48_replay.fairplay.client import MoveRefusedError, RemoteGame


def raw(
    url: str,
    method: str,
    path: str,
    body: bytes | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """One request on a fresh connection; status, headers, body.

    A POST says it is JSON unless ``headers`` say otherwise (the server refuses
    one that does not, body or not: tests/server/test_server_guard.py).
    """
    host, port = url.removeprefix("http://").split(":")
    headers = dict(headers or {})
    if method == "POST":
        headers.setdefault("Content-Type", "application/json")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def play_some(game: RemoteGame, count: int) -> None:
    """Play up to ``count`` valid moves, cycling through the directions."""
    order = "LDRU"
    i = 0
    while game.state.moves < count and not game.finished:
        for k in range(4):
            try:
                game.play(order[(i + k) % 4])
                break
            except MoveRefusedError:
                continue
        i += 1


def server_log_letters(db: str, fair_id: int) -> str:
    engine = create_engine(db if "://" in db else f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            game_id = connection.execute(
                text("SELECT game_id FROM fair_games WHERE id = :i"), {"i": fair_id}
            ).scalar_one()
            rows = connection.execute(
                text("SELECT seq, direction FROM moves WHERE game_id = :g ORDER BY seq"),
                {"g": game_id},
            ).all()
    finally:
        engine.dispose()
    assert [seq for seq, _ in rows] == list(range(1, len(rows) + 1))
    return "".join(letter for _, letter in rows)
