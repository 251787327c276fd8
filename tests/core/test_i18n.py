"""Languages: the catalogs, the choice of language, and the TUI in English and Danish.

The catalog checks keep translations from being forgotten: every message
the sources mark for translation must have a Danish text with the same
placeholders, and the committed compiled catalog must be exactly what the
committed ``.po`` compiles to (so nobody edits one and forgets the other).
"""

from __future__ import annotations

import asyncio
import io
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from textual.content import Content
from textual.widgets import Button, Static

from twenty48_cli.tui.play_app import PlayApp
from twenty48_cli.tui.replay_app import ReplayApp
from twenty48_cli.tui.screens import RULES_TEXT, GameOverScreen, RulesScreen
from twenty48_replay.core import i18n
from twenty48_replay.core.board import Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.core.record import Record
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.store import Store

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "twenty48_replay"
CATALOG = PACKAGE / "locale" / "da" / "LC_MESSAGES"
VALID = ROOT / "examples" / "valid.json"
PLACEHOLDER = re.compile(r"\{[a-z_]*\}")


def source_messages() -> dict[str | tuple[str, ...], str]:
    """Every message the sources mark (``_``, ``N_``, ``ngettext``), with where it is."""
    found: dict[str | tuple[str, ...], str] = {}
    for folder in (PACKAGE, ROOT / "cli"):
        for filename, lineno, message, _comments, _context in extract_from_dir(
            str(folder), method_map=[("**.py", "python")], keywords=DEFAULT_KEYWORDS
        ):
            key = message if isinstance(message, str) else tuple(message)
            found.setdefault(key, f"{folder.name}/{filename}:{lineno}")
    return found


# ---------------------------------------------------------------------- catalogs


def test_every_message_in_the_sources_has_a_danish_text() -> None:
    catalog = read_po((CATALOG / "twenty48.po").open("rb"), locale="da")
    messages = source_messages()
    assert len(messages) > 100
    missing = []
    for key, where in messages.items():
        msgid = key if isinstance(key, str) else key[0]
        entry = catalog.get(msgid)
        string = None if entry is None else entry.string
        texts: list[str] = [string] if isinstance(string, str) else list(string or [])
        if entry is None or entry.fuzzy or not all(texts):
            missing.append(f"{where}: {msgid!r}")
            continue
        # A plural's singular may leave out the count ("the move before it"):
        # each text uses only the message's placeholders, and together all of them.
        forms = [key] if isinstance(key, str) else list(key)
        wanted = {name for form in forms for name in PLACEHOLDER.findall(form)}
        used = [set(PLACEHOLDER.findall(text)) for text in texts]
        assert all(names <= wanted for names in used), (where, msgid, texts)
        assert set().union(*used) == wanted, (where, msgid, texts)
    assert not missing, "untranslated:\n" + "\n".join(missing)


def test_the_catalog_holds_no_message_the_sources_dropped() -> None:
    catalog = read_po((CATALOG / "twenty48.po").open("rb"), locale="da")
    in_sources = {key if isinstance(key, str) else key[0] for key in source_messages()}
    ids = [message.id if isinstance(message.id, str) else message.id[0] for message in catalog]
    stale = [msgid for msgid in ids if msgid and msgid not in in_sources]
    assert not stale, stale


def test_the_committed_mo_is_the_compiled_po() -> None:
    catalog = read_po((CATALOG / "twenty48.po").open("rb"), locale="da")
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    assert (CATALOG / "twenty48.mo").read_bytes() == compiled.getvalue(), (
        "run: pybabel compile -d twenty48_replay/locale -D twenty48"
    )


def test_the_wheel_carries_the_compiled_catalog() -> None:
    """pyproject's package data names the .mo files (a regular install gets them)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"locale/*/LC_MESSAGES/*.mo"' in text


# ---------------------------------------------------------------------- choosing


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "da_DK.UTF-8"}, "da"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LC_ALL": "da_DK.UTF-8", "LANG": "en_US.UTF-8"}, "da"),
        ({"LC_ALL": "C", "LANG": "da_DK.UTF-8"}, "en"),
        ({"LANGUAGE": "da:en", "LANG": "C.UTF-8"}, "da"),
        ({"LANGUAGE": "", "LC_MESSAGES": "da_DK", "LANG": "en_US"}, "da"),
        ({"TWENTY48_LANG": "en", "LANG": "da_DK.UTF-8"}, "en"),
        ({"TWENTY48_LANG": "da", "LANG": "en_US.UTF-8"}, "da"),
        ({"TWENTY48_LANG": "klingon", "LANG": "da_DK.UTF-8"}, "da"),
    ],
)
def test_the_default_language_follows_the_environment(
    environ: dict[str, str], expected: str
) -> None:
    assert i18n.language_from_environment(environ) == expected


def test_danish_text_numbers_and_unknown_languages() -> None:
    try:
        i18n.set_language("da")
        assert i18n.current_language() == "da"
        assert i18n._("New game") == "Nyt spil"
        assert i18n._("a message nobody translated") == "a message nobody translated"
        assert i18n.ngettext("{n} move", "{n} moves", 2) == "{n} træk"
        assert i18n.number(1234567) == "1.234.567"
        i18n.set_language("en")
        assert i18n._("New game") == "New game"
        assert i18n.ngettext("{n} move", "{n} moves", 1) == "{n} move"
        assert i18n.number(1234567) == "1,234,567"
        with pytest.raises(ValueError, match="en, da"):
            i18n.set_language("de")
        assert i18n.current_language() == "en"
    finally:
        i18n.set_language("en")


# ---------------------------------------------------------------------- the apps

BOTH = pytest.mark.parametrize("language", ["en", "da"], indirect=True)

#: What each language must show (a few phrases per screen, as a player reads them).
EXPECTED: dict[str, dict[str, Any]] = {
    "en": {
        "footer": ["Move", "New game", "Hint", "Rules", "Help", "Quit"],
        "info": "game {id} · seed over-1",
        "over": ["Game over!", "Final score", "New game (n)", "Quit (q)"],
        "status": "game over: n new game, q quit",
        "rules": ["The rules of 2048", "nine times in ten", "one time in ten", "2048", "score"],
        "replay": ["replay · valid.json", "472 moves", "MOVE", "PLAYED", "SPAWNED", "of 472"],
        "replay_help": "one move forward / back",
    },
    "da": {
        "footer": ["Flyt", "Nyt spil", "Tip", "Regler", "Hjælp", "Afslut"],
        "info": "spil {id} · seed over-1",
        "over": ["Spillet er slut!", "Du fik", "point", "Nyt spil (n)", "Afslut (q)"],
        "status": "spillet er slut: n nyt spil, q afslut",
        "rules": ["Reglerne i 2048", "ni ud af ti gange", "én ud af ti gange", "brik", "point"],
        "replay": [
            "genafspilning · valid.json",
            "472 træk",
            "TRÆK",
            "RETNING",
            "NY BRIK",
            "af 472",
        ],
        "replay_help": "ét træk frem / tilbage",
    },
}


def shown(widget: Static) -> str:
    """The text a Static shows, markup applied."""
    visual = widget.visual
    return visual.plain if isinstance(visual, Content) else str(visual)


def screen_text(app: Any) -> str:
    """All text of the current screen's Statics and buttons, and the key bar's descriptions."""
    parts = [shown(widget) for widget in app.screen.query(Static)]
    parts += [str(button.label) for button in app.screen.query(Button)]
    parts += [str(key.description) for key in app.screen.query("FooterKey")]
    return "\n".join(parts)


def finished_game(store: Store, seed: str) -> int:
    """A game played to its end with a fixed order of moves; returns its id."""
    state = GameState.new(seed)
    session = store.new_game(seed)
    order = (Direction.LEFT, Direction.DOWN, Direction.RIGHT, Direction.UP)
    while not state.over:
        direction = next(d for d in order if d in state.board.valid_directions())
        state, _gained, _spawn = state.play(direction)
        session.play(direction)
    return session.id


@BOTH
def test_play_game_over_and_rules_in_each_language(tmp_path: Path, language: str) -> None:
    expected = EXPECTED[language]
    with Store(str(tmp_path / "games.sqlite3")) as store:
        game_id = finished_game(store, "over-1")
        app = PlayApp(store, store.open_game(game_id))

        async def run() -> None:
            async with app.run_test(size=(100, 40)) as pilot:
                await pilot.pause()
                assert isinstance(app.screen, GameOverScreen)
                text = screen_text(app)
                for phrase in expected["over"]:
                    assert phrase in text, (phrase, text)
                await pilot.press("escape")
                await pilot.pause()
                text = screen_text(app)
                for phrase in expected["footer"]:
                    assert phrase in text, (phrase, text)
                assert expected["info"].format(id=game_id) in text
                assert expected["status"] in text
                await pilot.press("r")
                await pilot.pause()
                assert isinstance(app.screen, RulesScreen)
                rules = screen_text(app)
                for phrase in expected["rules"]:
                    assert phrase in rules, (phrase, rules)
                await pilot.press("escape")
                await pilot.pause()
                assert not isinstance(app.screen, RulesScreen)

        asyncio.run(run())


def test_the_rules_are_not_the_english_text_in_danish() -> None:
    """Every paragraph of the rules is translated, not left in English."""
    try:
        i18n.set_language("da")
        danish = i18n._(RULES_TEXT)
        assert danish != RULES_TEXT
        english_words = {"the", "tile", "tiles", "board", "move", "score", "merge"}
        words = set(re.findall(r"[a-zæøå]+", danish.lower()))
        assert not words & english_words, words & english_words
        for term in ("brik", "træk", "point", "spillet er slut", "du har vundet", "90"):
            if term == "90":
                assert "ni ud af ti" in danish
            elif term == "du har vundet":
                assert "har du vundet" in danish
            else:
                assert term in danish.lower(), term
    finally:
        i18n.set_language("en")


@BOTH
def test_replay_viewer_in_each_language(language: str) -> None:
    expected = EXPECTED[language]
    record = Record.from_json(VALID.read_text(encoding="utf-8"))
    app = ReplayApp(Timeline(record), VALID.name, [])

    async def run() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("right")
            await pilot.pause()
            text = screen_text(app) + "\n".join(
                str(box.border_title) for box in app.screen.query("ScoreBox")
            )
            for phrase in expected["replay"]:
                assert phrase in text, (phrase, text)
            await pilot.press("question_mark")
            await pilot.pause()
            assert expected["replay_help"] in screen_text(app)

    asyncio.run(run())


@BOTH
def test_the_win_banner_in_each_language(tmp_path: Path, language: str) -> None:
    win = Record.from_json((ROOT / "tests" / "data" / "win-2048.json").read_text("utf-8"))
    with Store(str(tmp_path / "games.sqlite3")) as store:
        short = Record(win.seed, win.moves[:-1], 0)
        state = GameState.new(win.seed)
        for letter in short.moves:
            state, _g, _s = state.play(Direction(letter))
        outcome = store.import_record(Record(win.seed, short.moves, state.score))
        app = PlayApp(store, store.open_game(outcome.game_id))
        last = {"U": "up", "D": "down", "L": "left", "R": "right"}[win.moves[-1]]

        async def run() -> None:
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.press(last)
                await pilot.pause()
                text = screen_text(app)
                title = "Du vandt!" if language == "da" else "You win!"
                assert title in text, text
                assert ("Fortsæt (c)" if language == "da" else "Continue (c)") in text

        asyncio.run(run())


def test_errors_stay_english_in_str_and_read_in_danish_when_translated() -> None:
    """``str(error)`` may go into JSON, so it never changes; ``translated()`` is for people."""
    from twenty48_replay.core.errors import ConflictError, GameNotFoundError, NullMoveError

    errors = [ConflictError(3, 4, 5), GameNotFoundError(9), NullMoveError("L", 2, over=True)]
    english = [str(error) for error in errors]
    try:
        i18n.set_language("da")
        assert [str(error) for error in errors] == english
        danish = [error.translated() for error in errors]
        assert danish == [
            "spil 3 er ændret af en anden proces: forventede at skrive træk 5 (det har 5 træk nu); "
            "genindlæs det, og prøv igen",
            "intet spil med id 9",
            "træk 2 (L) er ikke et gyldigt træk: spillet er slut",
        ]
    finally:
        i18n.set_language("en")
    assert [error.translated() for error in errors] == english


def test_danish_wording_reads_naturally() -> None:
    """Reviewed phrasings: what a sealed game refuses, check's verdict, what escape closes."""
    from twenty48_replay.core.errors import SealedGameError

    try:
        i18n.set_language("da")
        assert SealedGameError(4).translated() == (
            "spil 4 er en underskrevet fair-play-protokol; der kan ikke spilles flere træk i det"
        )
        assert i18n._("healthy") == "i orden"
        assert i18n._("[dim]escape, ? or q closes this[/dim]").endswith("lukker hjælpen[/dim]")
        assert i18n._("[dim]↑ ↓ scroll · escape, r or q closes this[/dim]").endswith(
            "lukker reglerne[/dim]"
        )
    finally:
        i18n.set_language("en")
