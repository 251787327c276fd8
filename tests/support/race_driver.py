"""A separate process that appends moves to one game, for the concurrency tests.

Usage: python race_driver.py DB GAME_IDS MOVES GO_FILE   (GAME_IDS: comma-separated)
It loads the games, says so by creating ``ready-<pid>`` beside GO_FILE,
waits for GO_FILE to exist (so every driver starts from the same stale
states), then, going round the games, plays
MOVES[state.moves] until every game has len(MOVES) moves.  On a conflict it
reloads that game and carries on.  It prints one JSON line: moves it
appended, conflicts it met, and the first conflict message.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from twenty48_replay import Direction
from twenty48_replay.core.errors import ConflictError
from twenty48_replay.store import Store


def main() -> int:
    db, ids, moves, go_file = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
    appended = conflicts = 0
    message = None
    with Store(db) as store:
        sessions = [store.open_game(int(game_id)) for game_id in ids.split(",")]
        go_file.with_name(f"ready-{os.getpid()}").touch()
        while not go_file.exists():
            time.sleep(0.001)
        while sessions:
            for session in list(sessions):
                if session.state.moves >= len(moves):
                    sessions.remove(session)
                    continue
                try:
                    session.play(Direction(moves[session.state.moves]))
                    appended += 1
                except ConflictError as exc:
                    conflicts += 1
                    message = message or str(exc)
                    sessions[sessions.index(session)] = store.open_game(session.id)
    print(json.dumps({"appended": appended, "conflicts": conflicts, "message": message}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
