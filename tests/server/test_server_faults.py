"""The score server under faults and concurrency (issue 10, section 4): SIGKILL under load,
restarts, and two worker processes on one PostgreSQL database."""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path
from typing import Any

from support.common import run_cli
from support.pg import fresh_database
from support.server_client import server_log_letters
from support.server_harness import ServerProcess, free_port

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.fairplay.client import Client, ServerError

ORDER = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)


def valid_move(rows: list[list[int]], rng: random.Random) -> str | None:
    board = Board.from_rows(rows)
    choices = [d.letter for d in ORDER if board.slide(d).changed]
    return rng.choice(choices) if choices else None


class Player:
    """One game driven by one thread; remembers every acknowledged move."""

    def __init__(
        self, url: str, db: str, game_id: int, token: str, rows: list[list[int]], seed: int
    ):
        self.url = url
        self.db = db
        self.id = game_id
        self.token = token
        self.rows = rows
        self.log = ""  # the game's log as this client knows it
        self.acked: list[tuple[int, str]] = []  # every acknowledged (n, move)
        self.rng = random.Random(seed)
        self.error: BaseException | None = None

    def resync(self, client: Client) -> None:
        """After a restart: every acknowledged move is in the log, at its n."""
        state = client.game(self.id)
        letters = server_log_letters(self.db, self.id)
        assert state["moves"] == len(letters) >= len(self.log)
        for n, letter in self.acked:
            assert letters[n - 1] == letter, (self.id, n)
        # A move applied but not acknowledged (in flight at the kill) is the server's now.
        assert letters.startswith(self.log)
        self.log = letters
        self.rows = state["board"]

    def play(self, stop: threading.Event) -> None:
        client = Client(self.url, retries=0, timeout=5)
        try:
            while not stop.is_set():
                letter = valid_move(self.rows, self.rng)
                if letter is None:
                    return
                n = len(self.log) + 1
                try:
                    answer = client.move(self.id, self.token, n, letter)
                except ServerError as exc:
                    if exc.status is None:
                        return  # the server is gone
                    raise
                self.acked.append((n, letter))
                self.log += letter
                self.rows = answer["board"]
                if answer["finished"]:
                    return
        except BaseException as exc:
            self.error = exc
        finally:
            client.close()


def test_sigkill_under_load_loses_no_acknowledged_move(db: str, tmp_path: Path) -> None:
    port = free_port()
    # Scripted players at full speed: the rate limits (for people) are off, as in benchmarks.
    server = ServerProcess(db, tmp_path, "--no-analysis", "--rate-limits", "off", port=port).start()
    setup = Client(server.url)
    players = []
    for i in range(8):
        created = setup.new_game(f"p{i}")
        opening = setup.start(created["id"], created["token"], f"seed {i}")
        players.append(Player(server.url, db, created["id"], created["token"], opening["board"], i))
    setup.close()
    rng = random.Random(10)
    kills = 0
    for _round in range(10):
        stop = threading.Event()
        threads = [threading.Thread(target=p.play, args=(stop,)) for p in players]
        for thread in threads:
            thread.start()
        time.sleep(rng.uniform(0.3, 1.0))
        server.kill()
        kills += 1
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
        for p in players:
            assert p.error is None, p.error
        server.start()
        client = Client(server.url)
        for p in players:
            p.resync(client)  # every acknowledged move survived, the game goes on
        client.close()
    assert kills == 10
    total = sum(len(p.acked) for p in players)
    assert total > 100, total  # there was load to lose
    # After the last restart each game still takes moves.
    client = Client(server.url)
    for p in players:
        letter = valid_move(p.rows, p.rng)
        if letter is not None:
            client.move(p.id, p.token, len(p.log) + 1, letter)
    client.close()
    server.stop()
    checked = run_cli("check", "--db", db)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_two_workers_on_postgresql_keep_every_log_exact(tmp_path: Path) -> None:
    """Moves of one game arrive at either process, some twice at once: each is applied once."""
    databases = fresh_database()
    db = next(databases)
    try:
        with ServerProcess(
            db, tmp_path, "--no-analysis", "--workers", "2", "--rate-limits", "off"
        ) as server:
            setup = Client(server.url)
            games = []
            for i in range(6):
                created = setup.new_game(f"w{i}")
                opening = setup.start(created["id"], created["token"], f"two workers {i}")
                games.append((created["id"], created["token"], opening["board"]))
            setup.close()
            played: dict[int, str] = {}
            errors: list[BaseException] = []

            def drive(game_id: int, token: str, rows: list[list[int]], seed: int) -> None:
                rng = random.Random(seed)
                letters = ""
                try:
                    for n in range(1, 61):
                        letter = valid_move(rows, rng)
                        if letter is None:
                            break
                        answers: list[dict[str, Any]] = []

                        def send(
                            letter: str = letter, n: int = n, answers: list[Any] = answers
                        ) -> None:
                            client = Client(server.url)  # a new connection: either worker
                            try:
                                answers.append(client.move(game_id, token, n, letter))
                            finally:
                                client.close()

                        racers = [threading.Thread(target=send) for _ in range(2)]
                        for racer in racers:
                            racer.start()
                        for racer in racers:
                            racer.join()
                        assert len(answers) == 2
                        assert answers[0] == answers[1]
                        letters += letter
                        rows = answers[0]["board"]
                        if answers[0]["finished"]:
                            break
                except BaseException as exc:
                    errors.append(exc)
                played[game_id] = letters

            threads = [
                threading.Thread(target=drive, args=(gid, token, rows, k))
                for k, (gid, token, rows) in enumerate(games)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=300)
            assert not errors, errors
        for game_id, letters in played.items():
            assert server_log_letters(db, game_id) == letters
        checked = run_cli("check", "--db", db)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        for _ in databases:  # drops the database
            pass
