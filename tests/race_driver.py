"""A separate process that appends moves to one game, for the concurrency tests.

Usage: python race_driver.py DB GAME_ID MOVES GO_FILE
It loads the game, waits for GO_FILE to exist (so every driver starts from
the same stale state), then plays MOVES[state.moves] until the game has
len(MOVES) moves.  On a conflict it reloads and carries on.  It prints one
JSON line: moves it appended, conflicts it met, and the first conflict message.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from twenty48_replay import Direction
from twenty48_replay.errors import ConflictError
from twenty48_replay.store import Store


def main() -> int:
    db, game_id, moves, go_file = sys.argv[1], int(sys.argv[2]), sys.argv[3], Path(sys.argv[4])
    appended = conflicts = 0
    message = None
    with Store(db) as store:
        session = store.open_game(game_id)
        while not go_file.exists():
            time.sleep(0.001)
        while session.state.moves < len(moves):
            try:
                session.play(Direction(moves[session.state.moves]))
                appended += 1
            except ConflictError as exc:
                conflicts += 1
                message = message or str(exc)
                session = store.open_game(game_id)
    print(json.dumps({"appended": appended, "conflicts": conflicts, "message": message}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
