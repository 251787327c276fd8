"""The ``twenty48`` program in English and Danish, as real subprocesses.

Text for people changes with ``--lang`` / ``TWENTY48_LANG``; machine output
(``--json``, records, JSON Lines) and exit codes never do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.common import EXAMPLES, run_cli
from typer.main import get_command

from twenty48_cli.app import app
from twenty48_cli.helptext import EXAMPLES as HELP_EXAMPLES
from twenty48_cli.helptext import HELP_OPTION_HELP, ROOT_EXAMPLES, translated
from twenty48_replay.core import i18n


@pytest.mark.parametrize(
    ("args", "env"),
    [(["--lang", "de", "where"], {}), (["where"], {"TWENTY48_LANG": "klingon"})],
    ids=["option", "environment"],
)
def test_an_unknown_language_is_a_usage_error_naming_the_choices(
    args: list[str], env: dict[str, str]
) -> None:
    result = run_cli(*args, env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("twenty48: error: ")
    assert "en, da" in lines[0]
    assert "Traceback" not in result.stderr


def test_the_language_option_is_in_the_help() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    assert "--lang" in result.stdout
    assert "TWENTY48_LANG" in result.stdout


def test_machine_output_is_the_same_in_every_language(tmp_path: Path) -> None:
    """JSON of verify, list, show, stats, replay and the exported records: byte for byte.

    The database is made once; both languages then read the same games.
    """
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    played = run_cli("play", "--db", db, "--seed", "lang", "--player", "p", "--moves", "LDRU")
    assert played.returncode == 0
    valid, tampered = str(EXAMPLES / "valid.json"), str(EXAMPLES / "tampered-score.json")
    commands = [
        ["verify", "--json", valid, tampered],
        ["list", "--db", db, "--json"],
        ["show", "--db", db, "1", "--json"],
        ["stats", "--db", db, "--json"],
        ["replay", "--db", db, "1", "--at", "5", "--json"],
        ["export", "--db", db, "--all"],
    ]
    outputs = {
        language: [run_cli(*command, env={"TWENTY48_LANG": language}) for command in commands]
        for language in ("en", "da")
    }
    for english, danish in zip(outputs["en"], outputs["da"], strict=True):
        assert english.stdout.strip()
        for line in english.stdout.splitlines():
            json.loads(line)
        assert (danish.returncode, danish.stdout) == (english.returncode, english.stdout)
    one = [run_cli("export", "--db", db, "1", env={"TWENTY48_LANG": lang}) for lang in ("en", "da")]
    json.loads(one[0].stdout)
    assert one[0].stdout == one[1].stdout


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "twenty48: error: --moves: letter 'Q' at position 3 is not U, D, L or R"),
        ("da", "twenty48: fejl: --moves: bogstavet 'Q' på plads 3 er ikke U, D, L eller R"),
    ],
)
def test_a_refused_input_in_each_language(tmp_path: Path, language: str, expected: str) -> None:
    """The same refusal, the same exit code, nothing stored; only the words change."""
    db = str(tmp_path / "games.sqlite3")
    env = {"TWENTY48_LANG": language}
    result = run_cli("play", "--db", db, "--seed", "s", "--moves", "LDQ", env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(expected), result.stderr
    assert len(result.stderr.splitlines()) == 1
    listing = run_cli("list", "--db", db, "--json")
    assert listing.returncode == 0
    assert listing.stdout == ""


def test_danish_messages_from_the_library_and_the_commands(tmp_path: Path) -> None:
    db = str(tmp_path / "games.sqlite3")
    da = {"TWENTY48_LANG": "da"}
    missing = run_cli("--lang", "da", "show", "--db", db, "99")
    assert (missing.returncode, missing.stderr) == (1, "twenty48: fejl: intet spil med id 99\n")
    english = run_cli("show", "--db", db, "99")
    assert (english.returncode, english.stderr) == (1, "twenty48: error: no game with id 99\n")
    played = run_cli("play", "--db", db, "--seed", "s", "--moves", "LR", env=da)
    assert played.returncode == 0, played.stderr
    assert played.stdout.startswith("spil 1  seed 's'\npoint ")
    assert "udførte 2 træk (træk 1-2)" in played.stderr
    listing = run_cli("list", "--db", db, env=da)
    assert listing.stdout.split()[:4] == ["id", "spillet", "spiller", "point"]
    assert "i gang" in listing.stdout
    over = run_cli("play", "--db", db, "--game", "1", "--moves", "RR", env=da)
    assert over.returncode == 1
    assert "twenty48: fejl: bogstav 2 i --moves (R, som ville være træk 4) afvist" in over.stderr
    assert "det ændrer ikke brættet; trækket før det er gemt" in over.stderr


# ---------------------------------------------------------------------- --help


COMMANDS = [
    "play",
    "replay",
    "list",
    "show",
    "stats",
    "export",
    "import",
    "verify",
    "hint",
    "autoplay",
    "analyze",
    "check",
    "where",
    "evidence",
    "serve",
    "backup",
    "admin",
]
#: Wide enough that no summary wraps; the words are compared without the boxes.
WIDE = {"COLUMNS": "200"}
BOX = str.maketrans({char: " " for char in "│╭╮╰╯─"})
#: A Danish phrase from each command's summary, and the English summary's start.
SUMMARIES = {
    "": ("spil, genafspil og kontrollér spil", "play, replay and verify games"),
    "play": ("hvert træk gemmes", "every move is saved"),
    "replay": ("Genafspil et spil trin for trin", "Replay a game step by step"),
    "list": ("Seneste spil", "Recent games"),
    "show": ("Ét spil: bræt, point", "One game: board, score"),
    "stats": ("Bedste point, antal spil", "Best score, games, wins"),
    "export": ("Skriv spil som v1-protokoller", "Write games as v1 records"),
    "import": ("Efterprøv protokoller og gem", "Verify records and store"),
    "verify": ("Genafspil protokoller og kontrollér", "Replay records and check"),
    "hint": ("Anbefal et træk", "Recommend a move"),
    "autoplay": ("Lad computeren spille", "Let the solver play"),
    "analyze": ("Kommentér et spil træk for træk", "Annotate a game move by move"),
    "check": ("Sammenlign skemaet med vores", "Compare the schema with ours"),
    "where": ("Vis, hvor databasen ligger", "Print where the database is"),
    "evidence": ("Bevismateriale fra fair spil", "Fair-play evidence"),
    "serve": ("Udbyd fair spil", "Serve fair games"),
    "backup": ("En konsistent kopi af SQLite-databasen", "A consistent copy of the SQLite"),
    "admin": ("Driv en pointserver", "Run a score server"),
}


def words(text: str) -> str:
    """Help text as one line of words: no boxes, no wrapping."""
    return " ".join(text.translate(BOX).split())


def usage_line(text: str) -> str:
    return next(line.strip() for line in text.splitlines() if "Usage:" in line)


def english_help(command: str) -> str:
    result = run_cli(*([command] if command else []), "--help", env={**WIDE, "TWENTY48_LANG": "en"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def help_texts(command: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The help texts of ``command`` (the root for ""), and its examples, as defined (English)."""
    group = get_command(app)
    target = group if not command else group.commands[command]  # type: ignore[attr-defined]
    helps = [getattr(param, "help", None) for param in target.params]
    texts = [target.help or "", *(help for help in helps if help)]
    pairs = ROOT_EXAMPLES if not command else HELP_EXAMPLES[command]
    return texts, list(pairs)


@pytest.mark.parametrize("how", ["option", "environment", "locale"])
@pytest.mark.parametrize("command", ["", *COMMANDS])
def test_every_help_is_danish_in_danish(command: str, how: str) -> None:
    """Summary, option help, examples and Typer's own words; the usage line as in English."""
    args = [command] if command else []
    if how == "option":
        result = run_cli("--lang", "da", *args, "--help", env={**WIDE, "TWENTY48_LANG": "en"})
    elif how == "environment":
        result = run_cli(*args, "--help", env={**WIDE, "TWENTY48_LANG": "da"})
    else:
        blank = dict.fromkeys(("TWENTY48_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES"), "")
        result = run_cli(*args, "--help", env={**WIDE, **blank, "LANG": "da_DK.UTF-8"})
    assert result.returncode == 0, result.stderr
    english = english_help(command)
    assert usage_line(result.stdout) == usage_line(english)
    text = words(result.stdout)
    danish, english_summary = SUMMARIES[command]
    assert danish in text
    assert english_summary not in text
    assert english_summary in words(english)
    assert "Tilvalg" in text
    assert "Eksempler:" in text
    assert "Options" not in text
    assert "Examples:" not in text
    i18n.set_language("da")
    try:
        texts, pairs = help_texts(command)
        expected = [words(translated(help)) for help in texts]
        descriptions = [(translated(what), what, line) for what, line in pairs]
    finally:
        i18n.set_language("en")
    for help, in_danish in zip(texts, expected, strict=True):
        assert in_danish != words(help), help
        assert in_danish in text, in_danish
        assert words(help) not in text, help
    for in_danish, what, line in descriptions:
        assert f"{in_danish}: {line}" in text
        assert f"{what}:" not in text


def test_english_help_is_the_same_with_lang_en_and_without() -> None:
    for command in ["", "verify", "stats"]:
        args = [command] if command else []
        default = run_cli(*args, "--help", env={**WIDE, "TWENTY48_LANG": "", "LANGUAGE": "C"})
        explicit = run_cli("--lang", "en", *args, "--help", env=WIDE)
        assert default.returncode == explicit.returncode == 0
        assert default.stdout == explicit.stdout
        assert "Examples:" in default.stdout


def test_every_help_text_and_example_has_a_danish_text() -> None:
    """A help text added without N_ (or not yet translated) would print in English."""
    i18n.set_language("da")
    try:
        untranslated = [
            text
            for command in ["", *COMMANDS]
            for text in [
                *help_texts(command)[0],
                *(what for what, _line in help_texts(command)[1]),
            ]
            if translated(text) == text
        ]
        assert translated(HELP_OPTION_HELP) == "Vis denne besked og afslut."
    finally:
        i18n.set_language("en")
    assert untranslated == []


def test_danish_counts_and_decimals_in_summaries(tmp_path: Path) -> None:
    """'gyldige: 1' (not '1 gyldige'), and the average with a decimal comma."""
    valid, tampered = str(EXAMPLES / "valid.json"), str(EXAMPLES / "tampered-score.json")
    da = {"TWENTY48_LANG": "da"}
    checked = run_cli("verify", valid, tampered, env=da)
    assert checked.returncode == 1
    summary = checked.stderr.splitlines()[-1]
    assert summary.startswith("2 protokoller: gyldige: 1, ugyldige: 1, ulæselige: 0 · "), summary
    db = str(tmp_path / "games.sqlite3")
    imported = run_cli("import", "--db", db, valid, tampered, env=da)
    assert "importeret: 1, dubletter sprunget over: 0, ugyldige: 1, ulæselige: 0" in imported.stderr
    stats = {
        lang: run_cli("stats", "--db", db, env={"TWENTY48_LANG": lang}) for lang in ("en", "da")
    }
    assert re.search(r"^average +7008\.0$", stats["en"].stdout, re.MULTILINE), stats["en"].stdout
    assert re.search(r"^gennemsnit +7008,0$", stats["da"].stdout, re.MULTILINE), stats["da"].stdout


@pytest.mark.parametrize(
    "args",
    [["--help", "--lang", "da"], ["--help", "--lang=da"], ["--lang=da", "-h"]],
    ids=["help-first", "help-first-equals", "equals"],
)
def test_the_root_help_is_danish_whatever_the_order(args: list[str]) -> None:
    """Click handles eager options in command-line order; the language still comes first."""
    result = run_cli(*args, env={**WIDE, "TWENTY48_LANG": "en"})
    assert result.returncode == 0, result.stderr
    text = words(result.stdout)
    assert "spil, genafspil og kontrollér spil" in text
    assert "Kommandoer" in text
    assert "play, replay and verify games" not in text


def test_a_stored_games_label_is_danish(tmp_path: Path) -> None:
    """``replay 1`` names the stored game 'spil 1' in Danish (it is never machine output)."""
    db = str(tmp_path / "games.sqlite3")
    assert run_cli("import", "--db", db, str(EXAMPLES / "valid.json")).returncode == 0
    english = run_cli("replay", "--db", db, "1", "--at", "99999")
    danish = run_cli("replay", "--db", db, "1", "--at", "99999", env={"TWENTY48_LANG": "da"})
    assert english.returncode == danish.returncode != 0
    assert "game 1: " in english.stderr
    assert "spil 1: " in danish.stderr, danish.stderr
    assert "game 1" not in danish.stderr


def test_hint_values_use_danish_marks() -> None:
    """hint's expected values and gaps read 1.234,5 and -1,25% in Danish; English unchanged."""
    board = "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2"
    english = run_cli("hint", "--board", board)
    danish = run_cli("hint", "--board", board, env={"TWENTY48_LANG": "da"})
    assert english.returncode == danish.returncode == 0, danish.stderr
    assert re.search(r"\d\.\d\b", english.stdout), english.stdout
    assert re.search(r"\d,\d\b", danish.stdout), danish.stdout
    assert not re.search(r"\d\.\d%", danish.stdout), danish.stdout
