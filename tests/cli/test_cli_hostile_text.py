"""Text from records, databases and file names never reaches the terminal raw (issue 9.1).

A record carrying OSC 52, OSC 0, ``ESC[2J`` and the C1 CSI in its seed,
player, notes and an unknown key, stored under a file name carrying them
too, goes through every command.  Each output (stdout and stderr, as bytes)
must be UTF-8 without one control character but the newline, the hostile
text must be visible in its escaped form, and JSON output must still read
back to exactly the record's values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.hostile import HOSTILE, HOSTILE_NAME, hostile_record, raw_controls, write_hostile

EXE = Path(sys.executable).with_name("twenty48")


def run(
    *args: str | bytes, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The real ``twenty48`` with raw bytes in and out (arguments may be bytes)."""
    command: list[str | bytes] = (
        [str(EXE)] if EXE.exists() else [sys.executable, "-m", "twenty48_cli"]
    )
    return subprocess.run(
        [*command, *args],
        capture_output=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        cwd=cwd,
        check=False,
    )


def clean(data: bytes) -> str:
    """``data`` as UTF-8 text, asserting it holds no raw control character."""
    text = data.decode("utf-8")  # strict: a raw lone surrogate or stray byte fails here
    assert raw_controls(text) == [], text
    return text


def assert_clean(result: subprocess.CompletedProcess[bytes]) -> tuple[str, str]:
    """Both streams clean and no traceback; returns them as text."""
    out, err = clean(result.stdout), clean(result.stderr)
    assert "Traceback" not in err, err
    return out, err


def escaped(text: str) -> bool:
    """The hostile text shows as visible escapes."""
    return "\\x1b]0;pwned\\x07" in text and "\\x9b2J" in text


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A folder with the hostile record under a hostile name, imported into a database."""
    folder = tmp_path_factory.mktemp("hostile")
    records = folder / "records"
    records.mkdir()
    path = write_hostile(records)
    db = str(folder / "g.db")
    result = run("import", str(records), "--db", db)
    assert result.returncode == 0, result.stderr
    return {"folder": folder, "records": records, "path": path, "db": db}


#: Every command, fed the hostile record, its stored game or its file name.
COMMANDS: list[list[str]] = [
    ["verify", "{records}"],
    ["verify", "{path}"],
    ["import", "{records}", "--db", "{db}"],
    ["list", "--db", "{db}"],
    ["show", "1", "--db", "{db}"],
    ["stats", "--db", "{db}"],
    ["stats", "--db", "{db}", "--player", "player" + HOSTILE],
    ["export", "1", "--db", "{db}"],
    ["export", "--all", "--db", "{db}"],
    ["export", "{path}", "-f", "svg", "-o", "{folder}/" + HOSTILE_NAME + ".svg"],
    ["export", "{path}", "-f", "gif", "-o", "{folder}/" + HOSTILE_NAME + ".gif"],
    ["replay", "1", "--db", "{db}", "--at", "-1"],
    ["replay", "{path}", "--at", "3"],
    ["replay", "{path}", "--frames"],
    ["hint", "--record", "{path}", "--at", "5"],
    ["hint", "--game", "1", "--db", "{db}"],
    ["analyze", "{path}", "--jobs", "1"],
    ["analyze", "1", "--db", "{db}", "--jobs", "1"],
    ["check", "--db", "{db}"],
    ["play", "--db", "{db}", "--moves", "D"],
    ["play", "--db", "{db}", "--game", "1", "--moves", "LLLLLLLLLLLLLLL"],
    ["play", "--db", "{db}", "--new", "--seed", HOSTILE, "--moves", "U"],
    ["play", "--db", "{db}", "--new", "--player", HOSTILE, "--moves", "U"],
    ["where", "--db", "{folder}/" + HOSTILE_NAME + ".db"],
    ["show", "1", "--db", "{folder}/missing" + HOSTILE + "/x.db"],
    ["replay", "{folder}/" + HOSTILE_NAME + ".missing", "--at", "0"],
    ["list", "--db", "{db}", "--state", HOSTILE],
    ["autoplay", "--db", "{db}", "--seed", HOSTILE, "--until", "8", "--jobs", "1"],
]

#: The commands with JSON output.
JSON_COMMANDS: list[list[str]] = [
    ["verify", "--json", "{records}"],
    ["list", "--json", "--db", "{db}"],
    ["show", "1", "--json", "--db", "{db}"],
    ["export", "1", "--db", "{db}"],
    ["export", "--all", "--db", "{db}"],
    ["replay", "{path}", "--json"],
    ["hint", "--record", "{path}", "--json"],
    ["check", "--json", "--db", "{db}"],
    ["stats", "--json", "--db", "{db}"],
]


def test_every_command_escapes_record_text_and_file_names(world: dict[str, Any]) -> None:
    """All commands are run, then every one that let a control character out is named."""
    leaks = []
    for args in COMMANDS:
        result = run(*[a.format(**world) for a in args], cwd=world["folder"])
        try:
            _out, err = assert_clean(result)
            assert result.returncode in (0, 1, 2), err
        except (AssertionError, UnicodeDecodeError) as exc:
            leaks.append(f"{args[:2]}: {str(exc)[:300]!r}")
    assert leaks == []


def test_json_output_stays_json_with_the_exact_values(world: dict[str, Any]) -> None:
    original = hostile_record()
    for args in JSON_COMMANDS:
        result = run(*[a.format(**world) for a in args])
        out, _err = assert_clean(result)
        assert result.returncode == 0, args
        text = out.strip()
        one = args[:2] == ["export", "1"]  # indented JSON; the others are JSON Lines
        values = [json.loads(text)] if one else [json.loads(line) for line in text.splitlines()]
        assert values, args
        if args[0] in ("export", "show"):
            for key in ("seed", "player", "notes", "x-" + HOSTILE):  # game 1 comes first
                assert values[0][key] == original[key]
        if args[0] == "verify":
            assert values[0]["file"].endswith(HOSTILE_NAME)
        if args[0] == "list":
            assert original["player"] in [value["player"] for value in values]


def test_export_to_a_file_keeps_the_values_and_no_raw_c1(world: dict[str, Any]) -> None:
    out = world["folder"] / "one.json"
    result = run("export", "1", "--db", world["db"], "-o", str(out))
    assert result.returncode == 0, result.stderr
    data = out.read_bytes()
    assert b"\xc2\x9b" not in data
    assert b"\x1b" not in data
    record = json.loads(data)
    for key in ("seed", "player", "notes"):
        assert record[key] == hostile_record()[key]


def test_invalid_and_unreadable_hostile_records_are_reported_escaped(tmp_path: Path) -> None:
    tampered = write_hostile(tmp_path, "t" + HOSTILE_NAME, score=2)
    broken = tmp_path / ("b" + HOSTILE_NAME)
    broken.write_text('{"format": "twenty48-record", "seed": "\\u001b]0;x\\u0007"', "utf-8")
    for args in (
        ["verify", str(tmp_path)],
        ["import", str(tmp_path), "--db", str(tmp_path / "g.db")],
        ["replay", str(tampered), "--at", "-1"],
        ["analyze", str(tampered), "--jobs", "1"],
        ["hint", "--record", str(tampered)],
        ["export", str(tampered), "-f", "svg", "-o", str(tmp_path / "t.svg")],
    ):
        result = run(*args)
        out, err = assert_clean(result)
        assert result.returncode in (1, 2), (args, err)
        assert "INVALID" in out + err, (args, out, err)
        assert escaped(out + err), (args, out, err)


#: Strict UTF-8 streams (errors=strict), and the C/POSIX locales (Python's UTF-8 mode).
LOCALES = [{"LC_ALL": "C.UTF-8"}, {"LC_ALL": "", "LANG": "C"}, {"LC_ALL": "POSIX"}]


@pytest.mark.parametrize("locale", LOCALES, ids=lambda env: "-".join(env.values()).strip("-"))
def test_a_file_name_that_is_not_utf8_is_shown_escaped_and_the_batch_goes_on(
    tmp_path: Path, locale: dict[str, str]
) -> None:
    """Python holds the byte 0xff of a name as the lone surrogate U+DCFF: shown ``\udcff``."""
    folder = tmp_path / "in"
    folder.mkdir()
    body = json.dumps(hostile_record(moves=5)).encode("utf-8")
    odd = os.fsencode(folder) + b"/\xff\x1bodd.json"
    with open(odd, "wb") as handle:
        handle.write(body)
    (folder / "z-plain.json").write_bytes(body.replace(b'"notes"', b'"note2"'))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONIOENCODING"}
    env.update(locale)
    db = str(tmp_path / "g.db")
    cases: list[list[str | bytes]] = [
        ["verify", str(folder)],
        ["verify", "--json", str(folder)],
        ["import", str(folder), "--db", db],
        ["replay", odd, "--at", "1"],
        ["hint", "--record", odd, "--at", "1"],
        ["export", odd, "-f", "svg", "-o", os.fsencode(tmp_path) + b"/\xff.svg"],
    ]
    for args in cases:
        result = subprocess.run(
            [str(EXE), *args], capture_output=True, timeout=120, env=env, check=False
        )
        out, err = assert_clean(result)
        assert result.returncode == 0, (args, err)
        if args[0] in ("verify", "import"):
            assert "z-plain.json" in out  # the other record was handled too
        if "--json" in args:
            files = [json.loads(line)["file"] for line in out.splitlines()]
            assert any(f.endswith("/\udcff\x1bodd.json") for f in files), files
        elif args[0] != "replay":  # replay --at prints no name
            assert "\\udcff" in out + err, (args, out, err)


def test_player_names_that_are_not_utf8_are_refused_or_repaired(tmp_path: Path) -> None:
    """``--player`` with a byte that is not UTF-8: one usage line, nothing stored.

    A LOGNAME with such a byte (the default player) keeps its readable part.
    """
    db = str(tmp_path / "g.db")
    refused = run("play", "--db", db, "--new", "--player", b"bad\xffname", "--moves", "U")
    _out, err = assert_clean(refused)
    assert refused.returncode == 2
    assert "--player bad\\udcffname: not UTF-8 text" in err
    assert len(err.splitlines()) == 1
    assert run("list", "--db", db, "--json").stdout == b""
    for command in ("list", "stats"):  # the --player filters
        filtered = run(command, "--db", db, "--player", b"bad\xff")
        _out, err = assert_clean(filtered)
        assert filtered.returncode == 2
        assert "--player bad\\udcff: not UTF-8 text" in err
    fresh = tmp_path / "fresh.db"
    assert run("list", "--db", str(fresh), "--player", b"\xff").returncode == 2
    assert not fresh.exists()  # refused before the database was created
    logname = os.fsdecode(b"user\xff\x1b")
    env = {"LOGNAME": logname, "USER": logname, "LNAME": logname, "USERNAME": logname}
    played = run("play", "--db", db, "--new", "--seed", "s", "--moves", "U", env=env)
    assert_clean(played)
    assert played.returncode == 0, played.stderr
    listed = json.loads(run("list", "--db", db, "--json").stdout)
    assert listed["player"] == "user\ufffd\x1b"


def test_an_ascii_stream_gets_escapes_not_a_traceback(world: dict[str, Any]) -> None:
    """Our own characters (arrows, the middle dot) on an ASCII stream come out as escapes."""
    env = {"PYTHONIOENCODING": "ascii"}
    for args in (
        ["replay", world["path"], "--at", "1"],
        ["show", "1", "--db", world["db"]],
        ["verify", world["records"]],
    ):
        result = run(*[str(a) for a in args], env=env)
        assert result.returncode == 0, result.stderr
        assert b"Traceback" not in result.stderr
        result.stdout.decode("ascii")
        result.stderr.decode("ascii")
