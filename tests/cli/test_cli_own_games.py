"""Issue 13, points 1-5: own games, own best, dates, as a player meets them on the command line.

Real subprocesses on a real SQLite file; the OS user (the default player) is
set through ``LOGNAME``, which ``getpass.getuser`` reads first.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from support.common import run_cli

from twenty48_cli.tui.play_app import PlayApp
from twenty48_cli.tui.widgets import ScoreBox
from twenty48_replay import Direction, GameState, Record, verify
from twenty48_replay.store import Store

ANN = {"LOGNAME": "ann", "TZ": "UTC"}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "own.sqlite3")


def listed(db: str, *args: str) -> list[dict[str, Any]]:
    result = run_cli("list", "--db", db, "--json", *args)
    assert result.returncode == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


def null_first(seed: str) -> str:
    """A letter that changes nothing on the opening board of ``seed``."""
    board = GameState.new(seed).board
    return next(ch for ch in "UDLR" if not board.slide(Direction(ch)).changed)


def greedy(seed: str, count: int) -> str:
    state = GameState.new(seed)
    out: list[str] = []
    while len(out) < count and not state.over:
        letter = next(ch for ch in "LDRU" if state.board.slide(Direction(ch)).changed)
        state, _, _ = state.play(Direction(letter))
        out.append(letter)
    return "".join(out)


def test_a_refused_play_stores_nothing(db: str) -> None:
    """13.1: a refused ``play`` leaves no new empty game for ``play`` and ``hint`` to pick."""
    bad = run_cli("play", "--db", db, "--seed", "zz", "--moves", "Q", env=ANN)
    assert bad.returncode == 2
    assert "letter 'Q' at position 1" in bad.stderr
    no_terminal = run_cli("play", "--db", db, "--new", env=ANN)  # stdin is not a terminal
    assert no_terminal.returncode == 2
    assert "needs a terminal" in no_terminal.stderr
    null = run_cli("play", "--db", db, "--seed", "null-1", "--moves", null_first("null-1"), env=ANN)
    assert null.returncode == 1
    assert "no game was stored" in null.stderr
    assert listed(db) == []
    hint = run_cli("hint", "--db", db, env=ANN)
    assert hint.returncode == 1
    assert "no unfinished game to hint" in hint.stderr


def test_play_and_hint_resume_the_current_players_game(db: str) -> None:
    """13.2: after autoplay, plain ``play`` (and ``hint``) take the player's own game."""
    mine = run_cli("play", "--db", db, "--seed", "mine", "--moves", "L", env=ANN)
    assert mine.returncode == 0, mine.stderr
    auto = run_cli("autoplay", "--db", db, "--seed", "bot", "--until", "16", env=ANN, timeout=300)
    assert auto.returncode == 0, auto.stderr
    assert "reached 16: 1/1" in auto.stdout
    assert "2048" not in auto.stdout
    # The solver's game stopped at 16 unfinished, and is the latest played.
    assert [(g["player"], g["over"]) for g in listed(db)] == [("solver", False), ("ann", False)]
    state = GameState.new("mine").play(Direction.LEFT)[0]
    letter = next(ch for ch in "UDLR" if state.board.slide(Direction(ch)).changed)
    again = run_cli("play", "--db", db, "--moves", letter, env=ANN)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("game 1 ")
    hint = run_cli("hint", "--db", db, env=ANN)
    assert hint.returncode == 0, hint.stderr
    assert hint.stdout.startswith("game 1:")
    solver = run_cli("hint", "--db", db, "--player", "solver", "--json", env=ANN)
    assert solver.returncode == 0, solver.stderr
    assert "game 2 is now marked as assisted" in solver.stderr
    bob = run_cli("play", "--db", db, "--player", "bob", "--moves", "", env=ANN)
    assert bob.stdout.startswith("game 3 ")  # bob has no unfinished game: a new one
    table = run_cli("list", "--db", db, env=ANN).stdout.splitlines()
    assert table[0].split() == ["id", "played", "player", "score", "max", "moves", "state"]
    assert [line.split()[3] for line in table[1:]] == ["bob", "ann", "solver"]


def test_best_in_play_is_the_players_own(tmp_path: Path) -> None:
    """13.3: BEST counts the player's games only, not imported ones of others."""
    with Store(str(tmp_path / "best.sqlite3")) as store:
        letters = greedy("someone", 10_000)
        score = verify(Record("someone", letters, 0)).score
        store.import_record(Record("someone", letters, score, extra={"player": "vector"}))
        old = store.new_game("ann-old", player="ann")
        for letter in greedy("ann-old", 12):
            old.play(Direction(letter))
        session = store.new_game("ann-new", player="ann")
        assert 0 < old.state.score < score
        seen: list[int] = []

        async def run() -> None:
            app = PlayApp(store, session)
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                seen.append(app.query_one("#best", ScoreBox).value)

        asyncio.run(run())
        assert seen == [old.state.score]


def test_imported_games_keep_their_records_dates(db: str, tmp_path: Path) -> None:
    """13.4: ``list`` and ``show`` give the record's own start and end, not the import time."""
    letters = greedy("dated", 10_000)
    record = Record(
        "dated",
        letters,
        verify(Record("dated", letters, 0)).score,
        extra={
            "player": "ann",
            "started": "2024-05-01T12:00:00Z",
            "finished": "2024-05-01T12:34:56Z",
        },
    )
    path = tmp_path / "dated.json"
    path.write_text(record.to_json())
    assert run_cli("import", "--db", db, str(path), env=ANN).returncode == 0
    table = run_cli("list", "--db", db, env=ANN).stdout.splitlines()
    assert table[1].split()[1:3] == ["2024-05-01", "12:34"]
    shown = run_cli("show", "--db", db, "1", env=ANN).stdout.splitlines()
    assert shown[1] == "started 2024-05-01 12:00  finished 2024-05-01 12:34"
    undated = tmp_path / "undated.json"
    letters = greedy("undated", 20)
    undated.write_text(
        Record("undated", letters, verify(Record("undated", letters, 0)).score).to_json()
    )
    assert run_cli("import", "--db", db, str(undated), env=ANN).returncode == 0
    shown = run_cli("show", "--db", db, "2", env=ANN).stdout.splitlines()
    assert shown[1].startswith("imported ")
    assert shown[1].endswith("(its record gives no start or end time)")


def test_list_with_no_match_says_so(db: str) -> None:
    """13.5: a filter that matches nothing is not an empty database."""
    assert run_cli("play", "--db", db, "--seed", "one", "--moves", "L", env=ANN).returncode == 0
    result = run_cli("list", "--db", db, "--player", "solver", env=ANN)
    assert result.returncode == 0
    assert result.stderr == "no game matches --player 'solver'\n"
    result = run_cli("list", "--db", db, "--state", "won", env=ANN)
    assert result.stderr == "no game matches --state won\n"
    empty = run_cli("list", "--db", str(Path(db).with_name("empty.sqlite3")), env=ANN)
    assert empty.stderr == "no games yet: start one with 'twenty48 play'\n"
