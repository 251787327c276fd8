"""Both full-screen apps at 80x24, 60x20 and 40x15, and their colours at 256 and 16 colours.

What a player sees is checked on the rendered screen itself: the text of
every cell (the compositor's output, as a screenshot has it) is cut to the
region of a widget, and the score box's label and number must be in it, as
must every tile's number; the widgets must lie whole inside the terminal.
Colours are read from the styles the screen hands to Rich and converted the
way Rich converts them for a terminal of fewer colours.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from rich.color import ColorSystem
from support.screens import screen_lines
from textual.app import App
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from twenty48_cli.render import cell_name
from twenty48_cli.tui.play_app import PlayApp
from twenty48_cli.tui.replay_app import ReplayApp
from twenty48_cli.tui.widgets import BoardView, ScoreBox, Tile
from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.core.i18n import _, number
from twenty48_replay.core.record import Record
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.store import Store

ROOT = Path(__file__).resolve().parents[2]
VALID = ROOT / "examples" / "valid.json"
SIZES = [(80, 24), (60, 20), (40, 15)]
BOTH = pytest.mark.parametrize("language", ["en", "da"], indirect=True)
#: The boxes' labels as the player reads them, by language.
LABELS = {
    "en": {
        "score": "SCORE",
        "best": "BEST",
        "moves": "MOVES",
        "move": "MOVE",
        "played": "PLAYED",
        "spawned": "SPAWNED",
    },
    "da": {
        "score": "POINT",
        "best": "BEDSTE",
        "moves": "TRÆK",
        "move": "TRÆK",
        "played": "RETNING",
        "spawned": "NY BRIK",
    },
}


def crop(lines: list[str], region: Region) -> str:
    """The text inside ``region``, rows joined by newlines."""
    rows = lines[region.y : region.bottom]
    return "\n".join(row[region.x : region.right] for row in rows)


def find_text(lines: list[str], region: Region, text: str) -> tuple[int, int]:
    """Screen coordinates of ``text`` inside ``region``."""
    for y in range(region.y, region.bottom):
        x = lines[y].find(text, region.x, region.right)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} not in {crop(lines, region)!r}")


def assert_whole(app: App[Any], widget: Widget) -> Region:
    """``widget`` is on screen, not cut by its container or the terminal's edge."""
    geometry = app.screen.find_widget(widget)
    assert geometry.region.area > 0, f"{widget} is not shown"
    assert geometry.visible_region == geometry.region, f"{widget} is cut"
    assert Region(0, 0, *app.size).contains_region(geometry.region), f"{widget} is off screen"
    return geometry.region


def assert_board_whole(app: App[Any], lines: list[str]) -> None:
    """The board and each of its 16 tiles are whole, and each number is readable."""
    board = app.screen.query_one(BoardView)
    board_region = assert_whole(app, board)
    footer = app.screen.query_one("Footer")
    assert not board_region.overlaps(app.screen.find_widget(footer).region)
    tiles = list(board.query(Tile))
    assert len(tiles) == 16
    for tile in tiles:
        region = assert_whole(app, tile)
        assert board_region.contains_region(region)
        if tile.value:
            assert str(tile.value) in crop(lines, region), (tile.cell, crop(lines, region))


def assert_box(app: App[Any], lines: list[str], box_id: str, label: str, value: str) -> None:
    """A score box shows its whole label and whole value, clear of the key bar."""
    box = app.screen.query_one(f"#{box_id}", ScoreBox)
    region = assert_whole(app, box)
    footer = app.screen.query_one("Footer")
    assert not region.overlaps(app.screen.find_widget(footer).region), box_id
    text = crop(lines, region)
    assert label in text, (label, text)
    # A long value may wrap inside the box (compact layout): compare words.
    assert " ".join(value.split()) in " ".join(text.split()), (value, text)


def a_played_game(store: Store, letters: str = "LDRULDRDLLDDRRULLDRU") -> int:
    """A stored game with several tiles on the board (moves that change nothing skipped)."""
    session = store.new_game("layout", player="vector")
    for letter in letters:
        if Direction(letter) in session.state.board.valid_directions():
            session.play(Direction(letter))
    return session.id


def run_app(
    app: App[Any], size: tuple[int, int], scenario: Callable[[Pilot[Any]], Awaitable[None]]
) -> None:
    async def run() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await scenario(pilot)

    asyncio.run(run())


# ---------------------------------------------------------------------- layouts


@BOTH
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_play_shows_the_whole_board_and_every_score_box(
    tmp_path: Path, size: tuple[int, int], language: str
) -> None:
    with Store(str(tmp_path / "games.sqlite3")) as store:
        game_id = a_played_game(store)
        # The same player's best in the thousands: the widest number a box must hold here.
        store.import_record(Record.from_json(VALID.read_text(encoding="utf-8")))
        session = store.open_game(game_id)
        app = PlayApp(store, session)

        async def scenario(pilot: Pilot[Any]) -> None:
            lines = screen_lines(app)
            state = session.state
            assert_board_whole(app, lines)
            labels = LABELS[language]
            assert_box(app, lines, "score", labels["score"], number(state.score))
            assert_box(app, lines, "best", labels["best"], "7.008" if language == "da" else "7,008")
            assert_box(app, lines, "moves", labels["moves"], number(state.moves))
            assert any(str(session.id) in line for line in lines), "the game id is shown"

        run_app(app, size, scenario)


@BOTH
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_replay_shows_the_whole_board_and_every_box(size: tuple[int, int], language: str) -> None:
    record = Record.from_json(VALID.read_text(encoding="utf-8"))
    timeline = Timeline(record)
    app = ReplayApp(timeline, VALID.name, [])

    async def scenario(pilot: Pilot[Any]) -> None:
        await pilot.press("pagedown", "pagedown", "right")
        await pilot.pause()
        step = timeline[21]
        lines = screen_lines(app)
        assert_board_whole(app, lines)
        labels = LABELS[language]
        assert_box(app, lines, "move", labels["move"], "21")
        assert_box(app, lines, "score", labels["score"], number(step.score))
        assert step.move is not None
        assert_box(app, lines, "played", labels["played"], step.move.letter)
        spawned = _("{value} at {cell}").format(
            value=step.spawn.value, cell=cell_name(step.spawn.cell)
        )
        assert_box(app, lines, "spawned", labels["spawned"], spawned)

    run_app(app, size, scenario)


# ---------------------------------------------------------------------- colours


def board_with_empty_two_and_four() -> str:
    """Moves from seed "colours" to a board holding an empty cell, a 2 and a 4."""
    state = GameState.new("colours")
    letters = ""
    order = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)
    turn = 0
    while not {0, 2, 4} <= set(state.board):
        choices = [d for d in order if d in state.board.valid_directions()]
        direction = choices[turn % len(choices)]
        turn += 1
        state, _gained, _spawn = state.play(direction)
        letters += direction.letter
    return letters


@pytest.mark.parametrize(
    ("term", "system"),
    [("tmux-256color", ColorSystem.EIGHT_BIT), ("screen", ColorSystem.STANDARD)],
    ids=["256", "16"],
)
def test_empty_cells_and_small_tiles_stay_distinct_in_few_colours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, term: str, system: ColorSystem
) -> None:
    """As tmux sets TERM: the board, an empty cell, a 2 and a 4 all differ after conversion.

    And each number differs from its tile's colour, so it can be read.
    """
    monkeypatch.setenv("TERM", term)
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    letters = board_with_empty_two_and_four()
    with Store(str(tmp_path / "games.sqlite3")) as store:
        session = store.new_game("colours")
        for letter in letters:
            session.play(Direction(letter))
        app = PlayApp(store, session)
        assert app.console.color_system == {"tmux-256color": "256", "screen": "standard"}[term]

        async def scenario(pilot: Pilot[Any]) -> None:
            board = app.screen.query_one(BoardView)
            board_region = app.screen.find_widget(board).region
            seen: dict[str, Any] = {}
            lines = screen_lines(app)
            for tile in board.query(Tile):
                key = {0: "empty", 2: "2", 4: "4"}.get(tile.value)
                if key is None:
                    continue
                region = app.screen.find_widget(tile).region
                style = app.screen.get_style_at(region.x, region.y)
                assert style.bgcolor is not None
                background = style.bgcolor.downgrade(system)
                assert seen.setdefault(key, background) == background, "one value, one colour"
                if tile.value:
                    x, y = find_text(lines, region, str(tile.value))
                    number = app.screen.get_style_at(x, y)
                    assert number.color is not None
                    assert number.color.downgrade(system) != background, f"{key}: unreadable"
            gutter = app.screen.get_style_at(board_region.x, board_region.y)
            assert gutter.bgcolor is not None
            seen["board"] = gutter.bgcolor.downgrade(system)
            assert set(seen) == {"empty", "2", "4", "board"}
            colours = {key: (colour.number, colour.type) for key, colour in seen.items()}
            assert len(set(colours.values())) == 4, colours

        run_app(app, (80, 24), scenario)


@BOTH
def test_the_changed_elsewhere_status_line_is_whole_at_80_columns(
    tmp_path: Path, language: str
) -> None:
    """After a conflict the status line names what a move key offers, and none of it is cut."""
    with Store(str(tmp_path / "games.sqlite3")) as store:
        session = store.new_game("tui-1")
        elsewhere = store.open_game(session.id)
        played = next(d for d in Direction if d in elsewhere.state.board.valid_directions())
        elsewhere.play(played)
        app = PlayApp(store, session)
        want = _("this game changed elsewhere: press a move key for Reload / New game / Quit")

        async def scenario(pilot: Pilot[Any]) -> None:
            await pilot.press({"L": "left", "R": "right", "U": "up", "D": "down"}[played.letter])
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            lines = screen_lines(app)
            assert any(want in line for line in lines), "\n".join(lines)

        run_app(app, (80, 24), scenario)
