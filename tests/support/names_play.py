"""Registered names on a real server: look-alikes, a database, one exchange, a finished game."""

from __future__ import annotations

import json
from typing import Any

from support.server_client import play_some, raw
from twenty48_replay.fairplay.client import Client, RemoteGame

#: The seven leaderboard rows that all read "alice" in a browser (issue 18).
LOOK_ALIKES: dict[str, int] = {
    "alice\u3164": 422,  # HANGUL FILLER
    "\u115falice": 422,  # HANGUL CHOSEONG FILLER
    "alice\u2800": 422,  # BRAILLE PATTERN BLANK
    "al\u034fice": 422,  # COMBINING GRAPHEME JOINER
    "alice\ufe0f": 422,  # VARIATION SELECTOR-16
    "\u0430lice": 409,  # CYRILLIC SMALL LETTER A
    "alic\u0435": 409,  # CYRILLIC SMALL LETTER IE
}


class Exchange:
    """Every request made and answer received, for the leak scan."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.answers: list[bytes] = []

    def send(
        self, method: str, path: str, body: object = None, secret: str | None = None
    ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if secret is not None:
            headers["Authorization"] = f"Bearer {secret}"
        payload = None if body is None else json.dumps(body).encode("utf-8")
        status, _headers, answer = raw(self.url, method, path, payload, headers)
        self.answers.append(answer)
        return status, json.loads(answer)

    def refused(
        self, status: int, path: str, body: object, secret: str | None = None
    ) -> dict[str, Any]:
        got, answer = self.send("POST", path, body, secret)
        assert got == status, (path, body, got, answer)
        assert isinstance(answer, dict), answer
        assert isinstance(answer["error"], str), answer
        assert answer["error"], answer
        return answer


#: These tests register more names from one address than the default ``register-name``
#: limit lets through (burst 5); the limit itself is tested below.
MANY_NAMES = ("--rate-limit", "register-name=1000/s:1000")


def finish_a_game(client: Client, player: str, secret: str | None, moves: int) -> int:
    game = RemoteGame(client, player, secret=secret)
    play_some(game, moves)
    game.finish()
    return game.id
