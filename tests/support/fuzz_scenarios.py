"""Hostile-input scenarios for the CLI: metadata, file names, damaged databases, option values.

Each scenario builds one hostile input from a ``random.Random`` (so a failure
is reproducible from its case number), runs the real ``twenty48`` program on
it in subprocesses, and checks the promises every command makes about
untrusted input:

* the exit status is 0, 1 or 2 and no traceback is printed;
* no control character (C0 other than LF, DEL, C1) and no byte that is not
  UTF-8 reaches stdout or stderr: text from records, databases and file
  names is shown escaped;
* ``--json`` output stays JSON, one object per line;
* a database the program refuses (exit 2) is left byte for byte as it was,
  ``-wal`` and ``-shm`` included.

A broken promise raises :class:`BrokenPromiseError` naming the command and what it
printed.  tests/core/test_fuzz.py runs a few cases of each scenario;
tests/support/fuzz_records.py runs them for as long as you like.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from support.fuzzing import mutant

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
VALID = json.loads((EXAMPLES / "valid.json").read_text(encoding="utf-8"))
#: Longest any one command may take on a hostile input before it counts as a hang.
COMMAND_TIMEOUT = 120.0

#: Pieces of hostile text: terminal escapes (OSC 52 clipboard write, OSC 0
#: title, clear screen, a C1 CSI), other controls, lone surrogates, markup
#: that Rich would interpret, HTML breakers and plain text.
HOSTILE_PIECES = [
    "\x1b]52;c;aGFja2Vk\x07",
    "\x1b]0;pwned\x07",
    "\x1b[2J",
    "\x1b[31m",
    "\u009b2J",
    "\u009d0;title\u009c",
    "\x7f",
    "\x00",
    "\x08\x08",
    "\r",
    "\t",
    "\n",
    "\x85",
    "\ud800",
    "\udcff",
    "\u2028",
    "[bold red]x[/]",
    "[link=http://x]y[/link]",
    "</script>",
    "<!--",
    "'\"",
    "é",
    "日本",
    "\U0001f600",
    "plain",
]


class BrokenPromiseError(AssertionError):
    """A broken promise, with what reproduces it."""


def hostile_text(rng: random.Random, max_pieces: int = 6) -> str:
    """A short string built from hostile pieces and random code points."""
    parts = []
    for _ in range(rng.randint(1, max_pieces)):
        if rng.random() < 0.8:
            parts.append(rng.choice(HOSTILE_PIECES))
        else:
            parts.append(chr(rng.choice([rng.randrange(0x20), rng.randrange(0x7F, 0xA0)])))
    return "".join(parts)


def raw_controls(data: bytes) -> list[str]:
    """Control characters and non-UTF-8 bytes in output (LF is the only one allowed)."""
    found = []
    text = data.decode("utf-8", "surrogateescape")
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            found.append(f"byte {code - 0xDC00:#04x}")
        elif (code < 0x20 and ch != "\n") or 0x7F <= code <= 0x9F:
            found.append(f"U+{code:04X}")
    return found


def twenty48() -> list[str]:
    exe = Path(sys.executable).with_name("twenty48")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "twenty48_cli"]


def run(
    args: Sequence[str | bytes],
    *,
    env: dict[str, str] | None = None,
    json_lines: bool = False,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run the CLI and check the promises that hold for every command and input."""
    command: list[str | bytes] = [*twenty48(), *args]
    started = time.monotonic()
    try:
        done = subprocess.run(
            command,
            input=stdin if stdin is not None else b"",
            capture_output=True,
            timeout=COMMAND_TIMEOUT,
            env={**os.environ, "COLUMNS": "100", **(env or {})},
            check=False,
        )
    except subprocess.TimeoutExpired:
        hang = f"{shown(args)}: still running after {COMMAND_TIMEOUT:.0f} s"
        raise BrokenPromiseError(hang) from None
    seconds = time.monotonic() - started
    STATS["slowest"] = max(STATS.get("slowest", 0.0), seconds)
    STATS["commands"] = STATS.get("commands", 0) + 1
    where = f"{shown(args)} (exit {done.returncode})"
    if done.returncode not in (0, 1, 2):
        raise BrokenPromiseError(f"{where}: exit status {done.returncode}: {tail(done.stderr)}")
    if b"Traceback" in done.stderr or b"Traceback" in done.stdout:
        raise BrokenPromiseError(f"{where}: traceback: {tail(done.stderr)}")
    for name, stream in (("stdout", done.stdout), ("stderr", done.stderr)):
        raw = raw_controls(stream)
        if raw:
            raise BrokenPromiseError(f"{where}: raw {', '.join(raw[:5])} on {name}: {tail(stream)}")
    if json_lines:
        for line in done.stdout.splitlines():
            try:
                json.loads(line)
            except ValueError:
                problem = f"{where}: --json printed a line that is not JSON"
                raise BrokenPromiseError(problem) from None
    return done


STATS: dict[str, float] = {}


def shown(args: Sequence[str | bytes]) -> str:
    return (
        " ".join(a if isinstance(a, str) else repr(a) for a in args)[:300]
        .encode("unicode_escape")
        .decode("ascii")
    )


def tail(data: bytes) -> str:
    return repr(data[-600:])


# ------------------------------------------------------------------ records


def hostile_record(rng: random.Random) -> dict[str, Any]:
    """The valid example game with hostile metadata (and sometimes a hostile seed)."""
    record: dict[str, Any] = {k: VALID[k] for k in ("format", "version", "seed", "moves", "score")}
    record["player"] = hostile_text(rng)
    record["notes"] = hostile_text(rng, 12)
    record["client"] = hostile_text(rng)
    record[hostile_text(rng, 2)] = rng.choice(
        [hostile_text(rng), [hostile_text(rng)], {hostile_text(rng, 2): 1}, 1.5, 10**40]
    )
    if rng.random() < 0.5:
        record["started"] = rng.choice(
            [
                "0001-01-01T00:00:00Z",
                "9999-12-31T23:59:59Z",
                hostile_text(rng),
                "2026-11-30T12:00:00Z",
            ]
        )
    if rng.random() < 0.2:
        record["seed"] = hostile_text(rng, 3)[:128]
    return record


def encode(record: dict[str, Any], rng: random.Random) -> bytes:
    ascii_only = rng.random() < 0.7
    return json.dumps(record, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def hostile_metadata(rng: random.Random, tmp: Path) -> str:
    """A record with hostile text goes through every command that shows a record."""
    path = tmp / "hostile.json"
    path.write_bytes(encode(hostile_record(rng), rng))
    db = str(tmp / "meta.sqlite3")
    run(["verify", str(path)])
    run(["verify", "--json", str(path)], json_lines=True)
    imported = run(["import", "--db", db, str(path)])
    run(["replay", str(path), "--at", str(rng.randint(-3, 5))])
    run(["replay", str(path), "--json", "--at", "2"], json_lines=True)
    if imported.returncode == 0:
        games = [
            json.loads(line) for line in run(["list", "--db", db, "--json"]).stdout.splitlines()
        ]
        game = str(games[0]["id"]) if games else "1"
        for args in (
            ["list", "--db", db],
            ["list", "--db", db, "--json"],
            ["show", "--db", db, game],
            ["show", "--db", db, game, "--json"],
            ["stats", "--db", db],
            ["export", "--db", db, game],
            ["replay", "--db", db, game, "--at", "3"],
            ["check", "--db", db],
            ["play", "--db", db, "--game", game, "--moves", rng.choice("UDLR")],
        ):
            run(args, json_lines="--json" in args)
    return "metadata"


# ------------------------------------------------------------------ file names


def hostile_name(rng: random.Random) -> bytes:
    """A file name with control bytes, invalid UTF-8, spaces and dashes."""
    pieces = [b"\x1b]0;t\x07", b"\x1b[2J", b"\x9b", b"\xff", b"\xc3", b"\n", b"\r", b"\x7f"]
    pieces += [b" ", b"-", b"--json", b"\xe2\x80\xa8", b"a", "é".encode()]
    name = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
    return name.replace(b"/", b"_") + rng.choice([b".json", b".jsonl"])


def hostile_file_names(rng: random.Random, tmp: Path) -> str:
    """Records under hostile file names, found by scanning a directory."""
    folder = tmp / f"names{rng.randrange(10**9)}"
    folder.mkdir()
    for _ in range(rng.randint(1, 4)):
        content = (EXAMPLES / "valid.json").read_bytes() if rng.random() < 0.5 else mutant(rng)
        path = os.path.join(os.fsencode(folder), hostile_name(rng))
        with open(path, "wb") as out:
            out.write(content)
    env = rng.choice([{}, {"LC_ALL": "C.UTF-8"}, {"LC_ALL": "C"}, {"LANG": "POSIX", "LC_ALL": ""}])
    db = str(tmp / "names.sqlite3")
    run(["verify", str(folder)], env=env)
    run(["verify", "--json", str(folder)], env=env, json_lines=True)
    run(["import", "--db", db, str(folder)], env=env)
    for entry in list(os.scandir(os.fsencode(folder)))[:2]:
        run(["verify", entry.path], env=env)
        run(["replay", entry.path, "--at", "1"], env=env)
    shutil.rmtree(folder)
    return "file names"


# ------------------------------------------------------------------ databases

_TEMPLATE: dict[str, bytes] = {}


def template_database(tmp: Path) -> bytes:
    """A healthy database of ours with a few imported games (made once)."""
    if "db" not in _TEMPLATE:
        path = tmp / "template.sqlite3"
        run(["import", "--db", str(path), str(EXAMPLES / "games.jsonl")])
        run(["play", "--db", str(path), "--seed", "fuzz", "--moves", "L"])
        _TEMPLATE["db"] = path.read_bytes()
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    return _TEMPLATE["db"]


def _sql(path: Path, *statements: str) -> None:
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        for statement in statements:
            connection.execute(statement)
    finally:
        connection.close()


HOSTILE_TRIGGER = (
    "CREATE TRIGGER moves_next_seq AFTER INSERT ON moves BEGIN "
    "UPDATE games SET seed = 'pwned' WHERE id <> NEW.game_id; END"
)
DROP_TRIGGERS = (
    "DROP TRIGGER moves_no_update",
    "DROP TRIGGER moves_no_delete",
    "DROP TRIGGER moves_next_seq",
)


def _damages(rng: random.Random) -> list[Callable[[Path], None]]:
    # (sqlite3 cannot bind lone surrogates or NUL into SQL text: drop those two.)
    text = "".join(ch for ch in hostile_text(rng) if not 0xD800 <= ord(ch) <= 0xDFFF)
    text = text.replace("'", "''").replace("\x00", "")

    def sql(*statements: str) -> Callable[[Path], None]:
        return lambda path: _sql(path, *statements)

    def flip(path: Path) -> None:
        data = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 20)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        path.write_bytes(bytes(data))

    def truncate(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])

    def foreign_wal(path: Path) -> None:
        # A write-ahead log with content never checkpointed: the writer dies
        # without closing, as a crashed program would.
        script = (
            "import os, sqlite3, sys\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA journal_mode = WAL')\n"
            "c.execute('PRAGMA wal_autocheckpoint = 0')\n"
            "c.execute('CREATE TABLE foreign_data (x)')\n"
            "c.execute('INSERT INTO foreign_data VALUES (1)')\n"
            "os._exit(0)\n"
        )
        subprocess.run([sys.executable, "-c", script, str(path)], check=True)

    return [
        sql(DROP_TRIGGERS[rng.randrange(3)]),
        sql(*DROP_TRIGGERS),
        sql("DROP TRIGGER moves_next_seq", HOSTILE_TRIGGER),
        sql(*DROP_TRIGGERS, "UPDATE moves SET direction = 'X' WHERE seq = 3"),
        sql(*DROP_TRIGGERS, "UPDATE moves SET direction = 'R' WHERE seq = 2 AND direction <> 'R'"),
        sql(*DROP_TRIGGERS, "DELETE FROM moves WHERE seq > 5"),
        sql("UPDATE games SET board = 'zz' WHERE id = 1"),
        sql("UPDATE games SET extra = '[1]' WHERE id = 1"),
        sql("UPDATE games SET extra = 'not json' WHERE id = 1"),
        sql(f"UPDATE games SET player = '{text}'"),
        sql(f"UPDATE games SET seed = '{text}' WHERE id = 1"),
        sql("UPDATE games SET score = -1, move_count = 999999"),
        sql("UPDATE games SET created_ms = 253402300800000, updated_ms = -62135596800001"),
        sql("UPDATE twenty48_meta SET value = 'abc' WHERE key = 'schema_version'"),
        sql("UPDATE twenty48_meta SET value = '99' WHERE key = 'schema_version'"),
        sql("DELETE FROM twenty48_meta WHERE key = 'application'"),
        sql("CREATE VIEW v AS SELECT 1"),
        sql("CREATE TABLE extra_table (x)"),
        sql("CREATE INDEX games_extra ON games (player)"),
        sql("DROP INDEX games_by_seed"),
        sql("DROP TABLE moves"),
        flip,
        truncate,
        foreign_wal,
    ]


def _snapshot(path: Path) -> dict[str, bytes | None]:
    out: dict[str, bytes | None] = {}
    for suffix in ("", "-wal", "-shm"):
        file = Path(str(path) + suffix)
        out[suffix] = file.read_bytes() if file.exists() else None
    return out


def _persistent(files: dict[str, bytes | None]) -> dict[str, bytes | None]:
    """What a refused open must leave byte for byte: the file, its -wal, and its -shm
    unless a -wal with content is there to read (any reader of a write-ahead log,
    even a read-only one, takes a read mark in the -shm index, which holds no data)."""
    if files["-wal"]:
        return {k: v for k, v in files.items() if k != "-shm"}
    return files


def damaged_database(rng: random.Random, tmp: Path) -> str:
    """A database of ours, damaged or made hostile, under every command that reads it."""
    path = tmp / f"damaged{rng.randrange(10**9)}.sqlite3"
    path.write_bytes(template_database(tmp))
    damages = _damages(rng)
    for damage in rng.sample(damages, rng.randint(1, 2)):
        with contextlib.suppress(sqlite3.Error):  # already damaged past what this step does
            damage(path)
    commands = [
        ["list", "--db", str(path)],
        ["list", "--db", str(path), "--json"],
        ["show", "--db", str(path), str(rng.randint(1, 3))],
        ["show", "--db", str(path), "1", "--json"],
        ["export", "--db", str(path), str(rng.randint(1, 3))],
        ["export", "--db", str(path), "--all"],
        ["check", "--db", str(path)],
        ["stats", "--db", str(path)],
        ["replay", "--db", str(path), "1", "--at", "2"],
        ["play", "--db", str(path), "--game", "1", "--moves", rng.choice("UDLR")],
        ["import", "--db", str(path), str(EXAMPLES / "valid.json")],
    ]
    for args in rng.sample(commands, rng.randint(3, len(commands))):
        before = _snapshot(path)
        done = run(args, json_lines="--json" in args)
        if done.returncode == 2 and _persistent(_snapshot(path)) != _persistent(before):
            raise BrokenPromiseError(f"{shown(args)}: refused the database (exit 2) but changed it")
    return "databases"


# ------------------------------------------------------------------ options

NASTY_NUMBERS = [
    "-1",
    "0",
    "1",
    "3",
    "-99999999999999999999",
    "99999999999999999999",
    "2147483648",
    "65536",
    "100000",
    "1e9",
    "abc",
    "",
    "0x10",
    "\x1b[2J",
    "\udcff",
]


def option_values(rng: random.Random, tmp: Path) -> str:
    """Numeric options with out-of-range and malformed values."""
    record = str(EXAMPLES / "valid.json")
    db = str(tmp / "options.sqlite3")
    if not Path(db).exists():
        run(["import", "--db", db, record])
    value = rng.choice(NASTY_NUMBERS)
    out = str(tmp / "out.bin")
    commands = [
        ["export", record, "--format", "gif", "--steps", "0:2", "--size", value, "-o", out],
        ["export", record, "--format", "gif", "--steps", "0:2", "--frame-ms", value, "-o", out],
        ["export", record, "--format", "gif", "--steps", f"{value}:{value}", "-o", out],
        ["export", record, "--format", "svg", "--at", value, "-o", out],
        ["verify", "--jobs", value, record],
        ["list", "--db", db, "--limit", value],
        ["replay", record, "--at", value],
        ["replay", str(EXAMPLES / "games.jsonl"), "--line", value, "--at", "1"],
        ["hint", "--record", record, "--at", value],
        ["analyze", record, "--top", value, "--jobs", "1"],
        ["autoplay", "--db", db, "--games", value, "--until", "4", "--jobs", "1"],
        ["autoplay", "--db", db, "--jobs", value, "--until", "4"],
        ["play", "--db", db, "--game", value, "--moves", "L"],
        ["show", "--db", db, value],
        ["export", "--db", db, value],
    ]
    args = [
        a.encode("utf-8", "surrogateescape") if "\udcff" in a else a for a in rng.choice(commands)
    ]
    run(args, json_lines=False)
    return "options"


SCENARIOS: dict[str, Callable[[random.Random, Path], str]] = {
    "metadata": hostile_metadata,
    "file names": hostile_file_names,
    "databases": damaged_database,
    "options": option_values,
}
