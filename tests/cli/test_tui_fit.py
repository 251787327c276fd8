"""Every screen fits 80x24, 60x20 and 40x15 in English and Danish, read off the rendered screen.

* The key bar: each key it shows is whole on the screen's last row; a key
  the screen offers and the bar leaves out is on the help card, and the bar
  then says ``? Keys``.  Nothing is wider than the terminal and no screen
  needs a scrollbar.
* The help and rules cards: a key and the start of its text share a row,
  a description that wraps hangs under its first word, and no wrapped line
  holds a single word.
* An invalid record's reasons wrap inside the window at every size; where
  they do not all fit, the banner says which key shows them all.
* A fair game offers only what it takes: no New game, no Hint, q asks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from support.screens import (
    BOTH,
    EACH_SIZE,
    assert_fits,
    play_app,
    replay_app,
    run,
    screen_lines,
)
from support.server_harness import ServerProcess
from textual.app import App
from textual.content import Content
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import ModalScreen, Screen
from textual.widgets import Button
from textual.widgets._footer import FooterKey

from twenty48_replay.core import i18n
from twenty48_replay.core.i18n import _
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.fairplay.client import Client, RemoteGame
from twenty48_replay.store import Store

if TYPE_CHECKING:
    from twenty48_cli.tui.play_app import PlayApp
    from twenty48_cli.tui.prose import KeyRow, Prose
    from twenty48_cli.tui.remote_app import RemoteGameScreen, RemotePlayApp, RemoteSession
    from twenty48_cli.tui.replay_app import ReplayApp
    from twenty48_cli.tui.screens import (
        RULES_TEXT,
        ConfirmEndScreen,
        GameOverScreen,
        HelpScreen,
        RulesScreen,
    )
    from twenty48_cli.tui.widgets import ScoreBox
else:
    from twenty48_cli.tui.play_app import PlayApp
    from twenty48_cli.tui.prose import KeyRow, Prose
    from twenty48_cli.tui.remote_app import RemoteGameScreen, RemotePlayApp, RemoteSession
    from twenty48_cli.tui.replay_app import ReplayApp
    from twenty48_cli.tui.screens import (
        RULES_TEXT,
        ConfirmEndScreen,
        GameOverScreen,
        HelpScreen,
        RulesScreen,
    )
    from twenty48_cli.tui.widgets import ScoreBox

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
#: How the help cards name a bound key, where it is not the key itself.
KEY_NAMES = {
    "up": "↑",
    "right": "→",
    "pagedown": "PgDn",
    "plus": "+",
    "question_mark": "?",
}


# ---------------------------------------------------------------------- the apps


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("fit-server")
    with ServerProcess(str(folder / "server.sqlite3"), folder, "--no-analysis") as process:
        yield process


def remote_app(server: ServerProcess, tmp_path: Path) -> RemotePlayApp:
    client = Client(server.url)
    store = Store(str(tmp_path / "local.sqlite3"))
    return RemotePlayApp(store, RemoteSession(RemoteGame(client, "fit")))


APPS = pytest.mark.parametrize("which", ["play", "replay", "remote"])


def make_app(which: str, tmp_path: Path, request: pytest.FixtureRequest) -> App[Any]:
    if which == "play":
        return play_app(tmp_path)
    if which == "replay":
        return replay_app()
    return remote_app(request.getfixturevalue("server"), tmp_path)


# ---------------------------------------------------------------------- checks


def bar_row(app: App[Any]) -> str:
    return screen_lines(app)[-1]


def shown_keys(screen: Screen[Any]) -> list[FooterKey]:
    return list(screen.query(FooterKey))


def offered_bindings(screen: Screen[Any]) -> dict[str, str]:
    """Key -> action of every binding the screen shows in a key bar (enabled or not)."""
    return {
        binding.key: binding.action
        for _namespace, binding, _enabled, _tooltip in screen.active_bindings.values()
        if binding.show
    }


def card_keys(card_blocks: list[Any]) -> list[str]:
    return [
        Content.from_markup(block.keys).plain for block in card_blocks if isinstance(block, KeyRow)
    ]


def key_on_card(key: str, names: list[str]) -> bool:
    shown = _("space") if key == "space" else KEY_NAMES.get(key, key)
    return any(shown in name.split() or shown in name for name in names)


@BOTH
@APPS
@EACH_SIZE
def test_every_key_offered_is_readable(
    tmp_path: Path,
    request: pytest.FixtureRequest,
    which: str,
    size: tuple[int, int],
    language: str,
) -> None:
    app = make_app(which, tmp_path, request)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        screen = app.screen
        assert_fits(app)
        row = bar_row(app)
        keys = shown_keys(screen)
        assert keys, "no key bar"
        shown_actions = {key.action for key in keys}
        for key in keys:
            entry = f"{key.key_display} {key.description}"
            assert entry in row, (entry, row)
            region = screen.find_widget(key).region
            assert Region(0, 0, *app.size).contains_region(region), entry
        offered = offered_bindings(screen)
        left_out = {k: a for k, a in offered.items() if a not in shown_actions}
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        names = card_keys(app.screen.card.blocks())
        for bound in offered:
            assert key_on_card(bound, names), (bound, names)
        if left_out:
            assert f"? {_('Keys')}" in row, (left_out, row)

    run(app, size, scenario)


# ---------------------------------------------------------------------- cards


def prose_rows(app: App[Any], prose: Prose) -> list[str]:
    """What a card's text widget draws, checked against the screen where it shows."""
    region = app.screen.find_widget(prose).region
    width = prose.content_region.width
    drawn = [line.plain for line in prose.lines(width)]
    lines = screen_lines(app)
    visible = app.screen.find_widget(prose).visible_region
    for y in range(visible.y, visible.bottom):
        on_screen = lines[y][region.x : region.x + width].strip()
        assert on_screen in {row.strip() for row in drawn}, (on_screen, drawn)
    return drawn


def whole_texts(blocks: list[Any]) -> set[str]:
    """Source texts that may stand alone on a row (a heading, a one-word description)."""
    texts: set[str] = set()
    for block in blocks:
        if isinstance(block, KeyRow):
            texts.add(Content.from_markup(block.text).plain.replace("\xa0", " ").strip())
        else:
            for line in Content.from_markup(block).plain.split("\n"):
                texts.add(line.replace("\xa0", " ").strip())
    return texts


def assert_card_reads_well(rows: list[str], blocks: list[Any]) -> None:
    keys = [Content.from_markup(block.keys).plain for block in blocks if isinstance(block, KeyRow)]
    alone = whole_texts(blocks)
    width = max((len(row) for row in rows), default=0)
    long_words = {word for text in alone for word in text.split() if len(word) > width // 2}
    column: int | None = None
    in_key_row = False
    for row in rows:
        text = row.rstrip()
        key = next((k for k in keys if text.startswith(k + " ")), None)
        if key is not None:
            body = text[len(key) :]
            assert body.strip(), f"key {key!r} without its text"
            column = len(text) - len(body.lstrip())
            in_key_row = True
            rest = body.strip()
        elif not text:
            in_key_row = False
            continue
        elif in_key_row and text.startswith(" "):
            assert column is not None
            indent = len(text) - len(text.lstrip())
            assert indent == column, f"{text!r} does not hang under column {column}"
            rest = text.strip()
        else:
            in_key_row = False
            rest = text.strip()
        words = rest.split()
        if len(words) == 1 and rest not in alone:
            # Only a piece of a word wider than the card (a 64-digit hash) stands alone.
            assert any(rest in word and len(word) > width for word in long_words), (
                f"a one-word line: {rest!r}"
            )


@BOTH
@APPS
@EACH_SIZE
def test_help_cards_hang_their_text_and_leave_no_word_alone(
    tmp_path: Path,
    request: pytest.FixtureRequest,
    which: str,
    size: tuple[int, int],
    language: str,
) -> None:
    app = make_app(which, tmp_path, request)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HelpScreen)
        assert_fits(app)
        prose = screen.query_one("#help-text", Prose)
        rows = prose_rows(app, prose)
        assert_card_reads_well(rows, prose.blocks)
        for other in screen.query(Prose):
            assert_card_reads_well(prose_rows(app, other), other.blocks)

    run(app, size, scenario)


@BOTH
@EACH_SIZE
def test_the_rules_card_leaves_no_word_alone(
    tmp_path: Path, size: tuple[int, int], language: str
) -> None:
    app = play_app(tmp_path)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        assert_fits(app)
        prose = app.screen.query_one("#rules-text", Prose)
        rows = prose_rows(app, prose)
        assert len(rows) > 10
        assert_card_reads_well(rows, [i18n._(RULES_TEXT)])

    run(app, size, scenario)


# ---------------------------------------------------------------------- invalid record


def long_reasons_record(tmp_path: Path) -> Path:
    """The valid example with its score, max tile and final board all claimed wrong."""
    record = Record.from_json((EXAMPLES / "valid.json").read_text("utf-8"))
    data = record.to_dict()
    data["score"] = data["score"] + 2
    data["max_tile"] = 1024
    board = data["final_board"]
    board[0][0], board[3][3] = board[3][3] or 2, board[0][0] or 4
    board[1][1] = 2048
    path = tmp_path / "three-reasons.json"
    path.write_text(Record.from_dict(data).to_json(indent=2), encoding="utf-8")
    return path


@BOTH
@EACH_SIZE
@pytest.mark.parametrize("record_file", ["tampered-swapped-move.json", "long"])
def test_an_invalid_records_reasons_wrap_inside_the_window(
    tmp_path: Path, size: tuple[int, int], language: str, record_file: str
) -> None:
    path = long_reasons_record(tmp_path) if record_file == "long" else EXAMPLES / record_file
    record = Record.from_json(path.read_text("utf-8"))
    reasons = list(verify(record).reasons)
    assert reasons
    app = ReplayApp(Timeline(record), path.name, reasons)
    words = " ".join(_("INVALID: {reasons}").format(reasons="; ".join(reasons)).split())

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("end")
        await pilot.pause()
        assert_fits(app)
        banner = app.screen.query_one("#banner", Prose)
        region = app.screen.find_widget(banner).region
        assert region.width == app.size[0], "the banner spans the window"
        lines = screen_lines(app)
        shown = " ".join(
            " ".join(lines[y][region.x : region.right].split())
            for y in range(region.y, region.bottom)
        )
        pointer = _("… i: every reason")
        if shown != words:
            assert shown.endswith(pointer), (shown, words)
            assert words.startswith(shown.removesuffix(pointer).rstrip()), (shown, words)
            await pilot.press("i")
            await pilot.pause()
            card = app.screen
            assert isinstance(card, HelpScreen)
            text = card.query_one("#help-text", Prose)
            everything = " ".join(
                " ".join(row.plain.split()) for row in text.lines(text.content_region.width)
            )
            for reason in reasons:
                assert " ".join(reason.split()) in everything, reason
        else:
            assert size != (40, 15) or len(words) < 40

    run(app, size, scenario)


def test_the_whole_reason_shows_at_80x24_and_60x20(tmp_path: Path) -> None:
    """The sizes the issue names: at 60x20 the reason of the swapped record is whole."""
    record = Record.from_json((EXAMPLES / "tampered-swapped-move.json").read_text("utf-8"))
    reasons = list(verify(record).reasons)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        text = " ".join(" ".join(line.split()) for line in screen_lines(app))
        for reason in reasons:
            assert reason in text, (reason, text)

    for size in ((80, 24), (60, 20)):
        run(ReplayApp(Timeline(record), "swapped", reasons), size, scenario)


# ---------------------------------------------------------------------- fair play


@BOTH
@EACH_SIZE
def test_a_fair_game_offers_no_new_game_and_no_hint(
    tmp_path: Path, server: ServerProcess, size: tuple[int, int], language: str
) -> None:
    app = remote_app(server, tmp_path)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        offered = offered_bindings(app.screen)
        assert "n" not in offered
        assert "t" not in offered
        descriptions = [key.description for key in shown_keys(app.screen)]
        for refused in (_("New game"), _("Hint")):
            assert refused not in descriptions
        assert any(d in (_("End and sign"), _("End")) for d in descriptions), descriptions

    run(app, size, scenario)


def finished_fair_game(server: ServerProcess) -> RemoteSession:
    """A fair game played on the server until no move is left."""
    client = Client(server.url)
    game = RemoteGame(client, "fit")
    order = "LDRU"
    while not game.state.over:
        board = game.state.board
        letter = next(
            d for d in order if d in {direction.letter for direction in board.valid_directions()}
        )
        game.play(letter)
    return RemoteSession(game)


@BOTH
def test_a_fair_games_game_over_card_offers_only_end_and_sign(
    tmp_path: Path, server: ServerProcess, language: str
) -> None:
    session = finished_fair_game(server)
    with Store(str(tmp_path / "local.sqlite3")) as store:
        app = RemotePlayApp(store, session)

        async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
            assert isinstance(app.screen, GameOverScreen)
            labels = [str(button.label) for button in app.screen.query(Button)]
            assert labels == [_("End and sign (q)")], labels
            await pilot.press("n")
            await pilot.pause()
            assert isinstance(app.screen, GameOverScreen), "n is no key of this card"
            await pilot.press("q")
            await pilot.pause()
            assert not app.is_running, "after game over q ends at once: nothing to ask"

        run(app, (80, 24), scenario)


@BOTH
def test_q_in_a_fair_game_asks_before_ending_and_signing(
    tmp_path: Path, server: ServerProcess, language: str
) -> None:
    app = remote_app(server, tmp_path)
    game_id = app.session.id  # the server's id

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("left", "down", "right", "up")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ConfirmEndScreen)
        question = _("End and sign game {id} now? Its score counts as it stands.").format(
            id=game_id
        )
        prose = screen.query_one("#confirm-text", Prose)
        drawn = " ".join(" ".join(row.split()) for row in prose_rows(app, prose))
        assert drawn == question, drawn
        await pilot.press("enter")  # the focus is on Keep playing
        await pilot.pause()
        assert app.is_running
        assert not isinstance(app.screen, ModalScreen)
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running
        assert not isinstance(app.screen, ModalScreen)
        await pilot.press("q", "q")
        await pilot.pause()
        assert not app.is_running

    run(app, (80, 24), scenario)


@BOTH
def test_the_fair_help_says_why_hints_are_off(
    tmp_path: Path, server: ServerProcess, language: str
) -> None:
    app = remote_app(server, tmp_path)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        await pilot.press("question_mark")
        await pilot.pause()
        prose = app.screen.query_one("#help-text", Prose)
        text = " ".join(str(prose.content).split())
        reason = {
            "en": "a hint is the solver's move, so a game played with hints would be the "
            "solver's game, not yours",
            "da": "et tip er computerens træk, så et spil spillet med tip ville være "
            "computerens spil, ikke dit",
        }[language]
        assert reason in text, text
        # At 40x15 the screen has no room for the server or the commitment; the card has.
        assert isinstance(app, RemotePlayApp)
        game_screen = app.game_screen
        assert isinstance(game_screen, RemoteGameScreen)
        session = game_screen.remote
        assert session.game.commitment in text
        where = _("fair game {id} on {url}").format(id=session.id, url=server.url)
        assert where in text, text

    run(app, (40, 15), scenario)


@BOTH
@EACH_SIZE
def test_after_game_over_move_and_hint_show_as_unavailable(
    tmp_path: Path, size: tuple[int, int], language: str
) -> None:
    """A move or a hint would do nothing: their keys are struck through, the rest are not."""
    from twenty48_replay.core.board import Direction
    from twenty48_replay.core.game import GameState

    with Store(str(tmp_path / "games.sqlite3")) as store:
        state = GameState.new("over-fit")
        session = store.new_game("over-fit")
        order = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)
        while not state.over:
            direction = next(d for d in order if d in state.board.valid_directions())
            state, _gained, _spawn = state.play(direction)
            session.play(direction)
        app = PlayApp(store, store.open_game(session.id))

        async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
            assert isinstance(app.screen, GameOverScreen)
            await pilot.press("escape")
            await pilot.pause()
            await pilot.pause()
            keys = shown_keys(app.screen)
            idle = {k.action for k in keys if k.action.startswith(("move", "hint"))}
            assert idle, "the move and hint keys are shown, as unavailable"
            for key in keys:
                unavailable = key.action in idle
                assert key.has_class("-disabled") == unavailable, key.action
                if unavailable:  # struck through, not dimmed (dim text reads below 4.5:1)
                    assert key.styles.text_style.strike, key.action
            assert "quit_game" in {k.action for k in keys}
            row = bar_row(app)
            for key in shown_keys(app.screen):
                assert f"{key.key_display} {key.description}" in row, row

        run(app, size, scenario)


# ---------------------------------------------------------------------- the boxes


def box_words(app: App[Any], box: ScoreBox) -> str:
    """The words the screen shows inside a box (its border and title left out)."""
    inside = box.content_region
    lines = screen_lines(app)
    return " ".join(
        " ".join(lines[y][inside.x : inside.right].split()) for y in range(inside.y, inside.bottom)
    ).strip()


@BOTH
@EACH_SIZE
def test_the_replay_boxes_show_their_whole_text(size: tuple[int, int], language: str) -> None:
    """MOVE, SCORE, PLAYED and SPAWNED show every word they hold, at every step shown.

    At 40x15 a box is ten columns wide and two rows high: "two opening
    tiles" lost "tiles", and the Danish "to startbrikker" was cut to
    "startbrikk".
    """
    app = replay_app()

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        for _step in range(12):  # the opening, then moves in every direction
            assert_fits(app)
            for box in app.screen.query(ScoreBox):
                text = " ".join(str(box.content).split())
                assert box_words(app, box) == text, (box.id, text, box_words(app, box))
            await pilot.press("right")
            await pilot.pause()

    run(app, size, scenario)


@pytest.mark.parametrize("language", ["da"], indirect=True)
def test_danish_dialogs_name_the_escape_key_in_danish(tmp_path: Path, language: str) -> None:
    """Issue 20 s.3: the fair game's confirm dialog said "(escape)" in Danish; so did the help."""
    app = play_app(tmp_path)

    async def scenario(app: App[Any], pilot: Pilot[Any]) -> None:
        app.push_screen(ConfirmEndScreen(108, 1234, 99))
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "Spil videre (Esc)" in shown, shown
        assert "escape" not in shown.lower(), shown
        await pilot.press("escape")
        await pilot.pause()
        for key in ("question_mark", "r"):
            await pilot.press(key)
            await pilot.pause()
            shown = "\n".join(screen_lines(app))
            assert "Esc" in shown, shown
            assert "escape" not in shown.lower(), shown
            await pilot.press("escape")
            await pilot.pause()

    run(app, (80, 24), scenario)
