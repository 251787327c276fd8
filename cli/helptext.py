"""What every ``--help`` shows beyond the options: usage lines and examples.

Typer 0.28 writes a required argument as ``{target}`` in the usage line;
:class:`Command` names each argument by its metavar (``ID|FILE``) or its
name in capitals, ``[...]`` around an optional one.  Every command's help
ends with examples (Typer's epilog); they are plain text, no Rich markup,
so nothing in them may look like a ``[tag]``.
"""

from __future__ import annotations

from typing import Any, Final

import typer
from typer.core import TyperCommand


class Command(TyperCommand):
    """A Typer command whose usage line names its arguments: ``twenty48 show [OPTIONS] ID``."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name != "argument":
                continue
            name = param.metavar or (param.name or "").upper()
            if param.nargs != 1:
                name += "..."
            pieces.append(name if param.required else f"[{name}]")
        return pieces


ROOT_EXAMPLES: Final = (
    ("Play (resumes your latest unfinished game)", "twenty48 play"),
    ("Your recent games", "twenty48 list"),
    ("Watch game 3 again", "twenty48 replay 3"),
    ("Check a record", "twenty48 verify examples/valid.json"),
    ("Help on one command", "twenty48 COMMAND -h"),
)

#: Each command's examples: (what it does, the command line).
EXAMPLES: Final = {
    "play": (
        ("Resume your latest unfinished game, or start one", "twenty48 play"),
        ("Start a new game", "twenty48 play --new"),
        ("A new game with this seed", "twenty48 play --seed daily-42"),
        ("Continue game 3", "twenty48 play --game 3"),
        ("Play four moves without the screen", "twenty48 play --seed abc --moves LLDR"),
        ("A provably fair game on a score server", "twenty48 play --server http://127.0.0.1:8048"),
    ),
    "replay": (
        ("Step through game 3 in the viewer", "twenty48 replay 3"),
        ("Print the last board of a record", "twenty48 replay game.json --at -1"),
        ("Print every step of line 2", "twenty48 replay games.jsonl --line 2 --frames"),
        ("Every step as JSON Lines", "twenty48 replay 3 --json"),
    ),
    "list": (
        ("The 20 most recently played games", "twenty48 list"),
        ("Five games still being played", "twenty48 list --state unfinished -n 5"),
        ("The solver's games", "twenty48 list --player solver"),
        ("One JSON object per game", "twenty48 list --json"),
    ),
    "show": (
        ("Game 3: board, score, dates, moves", "twenty48 show 3"),
        ("Game 3 as its record, with its state", "twenty48 show 3 --json"),
    ),
    "stats": (
        ("Totals over every game", "twenty48 stats"),
        ("Ann's games only", "twenty48 stats --player ann"),
        ("The totals as JSON", "twenty48 stats --json"),
    ),
    "export": (
        ("Game 3 as a record", "twenty48 export 3 -o game.json"),
        ("Every game, one record per line", "twenty48 export --all -o games.jsonl"),
        ("One position as a picture", "twenty48 export 3 --format svg --at 10 -o step10.svg"),
        (
            "An animated replay",
            "twenty48 export game.json --format gif --steps 0:200 -o replay.gif",
        ),
    ),
    "import": (
        ("Verify a record and store it", "twenty48 import game.json"),
        ("Many records: files and folders", "twenty48 import games.jsonl records/"),
        ("From standard input", "cat game.json | twenty48 import -"),
    ),
    "verify": (
        ("Check one record", "twenty48 verify game.json"),
        ("Check a folder, printing only the bad records", "twenty48 verify records/ --quiet"),
        ("Check a fair record and its signature", "twenty48 verify fair.json --trust key.pem"),
        ("JSON Lines in, one result per line out", "cat games.jsonl | twenty48 verify - --json"),
    ),
    "hint": (
        ("The best move in your latest unfinished game", "twenty48 hint"),
        ("The best move in game 3", "twenty48 hint --game 3"),
        ("The best move in ann's latest unfinished game", "twenty48 hint --player ann"),
        (
            "The best move in any position",
            'twenty48 hint --board "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2"',
        ),
        ("The best move at step 100 of a record", "twenty48 hint --record game.json --at 100"),
    ),
    "autoplay": (
        ("The solver plays one game to the end", "twenty48 autoplay"),
        ("Play until the solver makes 2048", "twenty48 autoplay --until 2048"),
        ("Four games, two at a time", "twenty48 autoplay --seed bot --games 4 --jobs 2"),
    ),
    "analyze": (
        ("Annotate game 3", "twenty48 analyze 3"),
        ("A record file, with its ten largest mistakes", "twenty48 analyze game.json --top 10"),
        ("The analysis as JSON", "twenty48 analyze 3 --json"),
    ),
    "check": (
        ("Check the database", "twenty48 check"),
        ("Check another database", "twenty48 check --db backup.sqlite3"),
        ("The report as JSON", "twenty48 check --json"),
    ),
    "where": (
        ("The default database", "twenty48 where"),
        ("The database TWENTY48_DB names", "TWENTY48_DB=games.sqlite3 twenty48 where"),
    ),
    "serve": (
        ("A score server on http://127.0.0.1:8048", "twenty48 serve"),
        ("Reachable from other machines", "twenty48 serve --host 0.0.0.0 --port 9000"),
        (
            "Two processes over one PostgreSQL database",
            "twenty48 serve --workers 2 --db postgresql+psycopg://user@host/db",
        ),
    ),
}


def examples(pairs: tuple[tuple[str, str], ...]) -> str:
    """The epilog: each example's purpose, then its command line indented under it."""
    return "Examples:\n" + "\n".join(f"  {what}:\n    {line}" for what, line in pairs)


def register(app: typer.Typer, name: str, function: Any) -> None:
    """Add a command with the usage line and examples above."""
    app.command(name, cls=Command, epilog=examples(EXAMPLES[name]))(function)
