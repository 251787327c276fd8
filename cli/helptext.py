"""What every ``--help`` says beyond the options: each command's help, its examples.

Help texts are English where they are defined (marked with ``N_`` for the
catalog) and translated when the help is printed (:func:`translated`; see
:mod:`.typer_help` for how Typer prints them).  A command's help is
:data:`HELP` (not its docstring, which pybabel cannot extract).  The
examples are plain text, no Rich markup, so nothing in them may look like
a ``[tag]``.  Command names, option names, metavars and the usage line
stay English in every language.
"""

from __future__ import annotations

from typing import Final

from twenty48_replay.core import i18n
from twenty48_replay.core.i18n import N_, _

HELP_OPTION_HELP: Final = N_("Show this message and exit.")

#: Help texts made from a template and values: the English text -> (template, values).
_TEMPLATES: dict[str, tuple[str, dict[str, object]]] = {}


def _english(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def formatted(template: str, **values: object) -> str:
    """``template`` (marked ``N_``) filled in English, translatable again when printed.

    For help texts with numbers or other texts in them: the catalog holds
    the template, and numbers come out as the language writes them.
    """
    text = template.format(**{name: _english(value) for name, value in values.items()})
    _TEMPLATES[text] = (template, values)
    return text


def translated(text: str) -> str:
    """A help text (English, as defined) in the current language."""
    if text in _TEMPLATES:
        template, values = _TEMPLATES[text]
        return _(template).format(
            **{
                name: i18n.number(value) if isinstance(value, int) else translated(str(value))
                for name, value in values.items()
            }
        )
    return _(text)


#: What each command does: the first paragraph is its line in ``twenty48 --help``.
HELP: Final = {
    "play": N_("Play 2048 in the terminal; every move is saved before the next key is read."),
    "replay": N_("Replay a game step by step (viewer, or --at/--frames/--json for scripts)."),
    "list": N_("Recent games: id, date, player, score, max tile, moves and state."),
    "show": N_("One game: board, score and a summary of its record."),
    "stats": N_("Best score, games, wins, average score and highest-tile distribution."),
    "export": N_(
        "Write games as v1 records (JSON, JSON Lines for --all), an SVG or GIF picture, or a\n"
        "self-verifying HTML replay page."
    ),
    "import": N_("Verify records and store each valid one as a game (one transaction per record)."),
    "verify": N_(
        "Replay records and check their claimed score, max tile and final board.\n"
        "\n"
        "Fair records (from a score server) also have their commitment and seed\n"
        "derivation checked, and with --trust their signature.\n"
        "\n"
        "With --scheduler the Dask scheduler and its workers are fully trusted:\n"
        "what they send back is unpickled here, so anyone who can join the cluster\n"
        "can run code in this process. Use tls:// with certificates (docs: Verifying records)."
    ),
    "hint": N_(
        "Recommend a move and show the expected value of each direction.\n"
        "\n"
        "Without --game, --board or --record: your latest unfinished stored\n"
        "game (the one 'twenty48 play' resumes), which is then marked as\n"
        'assisted (its record will say "assisted": true).'
    ),
    "autoplay": N_(
        'Let the solver play new games; they are stored like any other (player "solver").'
    ),
    "analyze": N_(
        "Annotate a game move by move: accuracy, largest mistakes, the classic mistakes."
    ),
    "check": N_(
        "Compare the schema with ours, re-derive every game, run the integrity check.\n"
        "\n"
        "Opens the database read-only and without requiring its schema to match,\n"
        "so a damaged or altered database of ours can be inspected (and nothing\n"
        "in it changes)."
    ),
    "where": N_("Print where the database is (creating it if needed)."),
    "admin": N_(
        "Run a score server: hide games, ban names, read the log, review bots, keys.\n"
        "\n"
        "Works on the server's own --db (SQLite or PostgreSQL) while it runs: the\n"
        "leaderboard leaves hidden games and banned names out from its next answer.\n"
        "Every action is an append-only row of the moderation log or the key history."
    ),
    "admin hide": N_(
        "Take a fair game off the leaderboard.\n"
        "\n"
        "Its record stays downloadable and verifiable; admin unhide puts it back."
    ),
    "admin unhide": N_("Put a hidden game back on the leaderboard."),
    "admin ban": N_(
        "Ban a player's name and every name that looks the same.\n"
        "\n"
        "Their games leave the leaderboard (their records stay downloadable), and\n"
        "the name gets no new game and cannot be registered."
    ),
    "admin unban": N_("Lift a ban."),
    "admin log": N_("The moderation log, newest first: when, who, what, why."),
    "admin suspects": N_(
        "Leaderboard games by bot signal, suspected ones first.\n"
        "\n"
        "Judged by the server's default thresholds (see twenty48 serve --help)."
    ),
    "evidence": N_(
        "Fair-play evidence: what play --server kept when a server broke a rule.\n"
        "\n"
        "Without ID, one line per report; with ID, the report as JSON: every\n"
        "answer the server sent, in order (the game's token only as its SHA-256)."
    ),
    "player-secret": N_(
        "Print a registered name's secret kept here, to play the name in a browser.\n"
        "\n"
        "play --server URL --player NAME --register keeps the secret in the user data\n"
        "folder; paste it into the play page's \"I have this name's secret\" field\n"
        "once, and that browser keeps it. The secret alone is on stdout.\n"
        "\n"
        'With --keep, the other way: paste the secret the play page shows ("Show the\n'
        'secret kept here") on standard input, and play --server uses it from then on.'
    ),
    "serve": N_(
        "Serve fair games, signed records and a leaderboard over HTTP (JSON API and web pages)."
    ),
    "backup": N_(
        "A consistent copy of the SQLite database, made while it is in use (serve may run).\n"
        "\n"
        "The server's signing key is a separate file: back it up too. PostgreSQL is\n"
        "backed up with pg_dump (docs/operating.md)."
    ),
    "admin keys": N_(
        "Every key the server has signed with: its period of use, and whether it is revoked."
    ),
    "solver": N_(
        "Train the solver's n-tuple network, export its weights, check a weights file.\n"
        "\n"
        "The solver scores positions with a network learned by playing (TD learning),\n"
        "when its weights are there (shipped with the package, or TWENTY48_WEIGHTS=FILE);\n"
        "TWENTY48_WEIGHTS=none chooses the hand-tuned evaluation (docs/solver-weights.md)."
    ),
    "solver train": N_(
        "Train the solver's n-tuple network by TD learning, in C, with checkpoints.\n"
        "\n"
        "Prints a line every --window games: the games so far, their average score,\n"
        "how often they reached 2048, 8192, 16384 and 32768, and the speed. The same\n"
        "seed and number of threads give the same network. Ctrl-C stops it: the last\n"
        "checkpoint stays, and --resume goes on from it to the network an\n"
        "uninterrupted run would have made."
    ),
    "solver export": N_(
        "Write a checkpoint's weights as the solver reads them: int16, sparse, fitted to --max-mb."
    ),
    "solver weights": N_(
        "Check a weights file and describe it (default: the one the solver uses).\n"
        "\n"
        "A file that is truncated, changed, of another version or not weights at all\n"
        "is one line on stderr and exit 2."
    ),
    "admin revoke-key": N_(
        "Mark a retired key revoked: every record it signed is refused by verify --trust URL.\n"
        "\n"
        "The key in use cannot be revoked: rotate first (serve --rotate-key).\n"
        "A revocation is final, kept in the database's append-only key history."
    ),
    "admin rebuild-bests": N_(
        "Compute every player's best game on the leaderboard again, from the games.\n"
        "\n"
        "The leaderboard reads each player's best from a table kept with every finish,\n"
        "hide and unhide. It is derived from the games: when 'twenty48 check' says it\n"
        "disagrees with them, this rebuilds it, in one transaction (serve may run)."
    ),
}

ROOT_EXAMPLES: Final = (
    (N_("Play (resumes your latest unfinished game)"), "twenty48 play"),
    (N_("Your recent games"), "twenty48 list"),
    (N_("Watch game 3 again"), "twenty48 replay 3"),
    (N_("Check a record"), "twenty48 verify examples/valid.json"),
    (N_("Help on one command"), "twenty48 COMMAND -h"),
)

#: Each command's examples: (what it does, the command line).
EXAMPLES: Final = {
    "play": (
        (N_("Resume your latest unfinished game, or start one"), "twenty48 play"),
        (N_("Start a new game"), "twenty48 play --new"),
        (N_("A new game with this seed"), "twenty48 play --seed daily-42"),
        (N_("Continue game 3"), "twenty48 play --game 3"),
        (N_("Play four moves without the screen"), "twenty48 play --seed abc --moves LLDR"),
        (
            N_("A provably fair game on a score server"),
            "twenty48 play --server http://127.0.0.1:8048",
        ),
    ),
    "replay": (
        (N_("Step through game 3 in the viewer"), "twenty48 replay 3"),
        (N_("Print the last board of a record"), "twenty48 replay game.json --at -1"),
        (N_("Print every step of line 2"), "twenty48 replay games.jsonl --line 2 --frames"),
        (N_("Every step as JSON Lines"), "twenty48 replay 3 --json"),
    ),
    "list": (
        (N_("The 20 most recently played games"), "twenty48 list"),
        (N_("Five games still being played"), "twenty48 list --state unfinished -n 5"),
        (N_("The solver's games"), "twenty48 list --player solver"),
        (N_("One JSON object per game"), "twenty48 list --json"),
    ),
    "show": (
        (N_("Game 3: board, score, dates, moves"), "twenty48 show 3"),
        (N_("Game 3 as its record, with its state"), "twenty48 show 3 --json"),
    ),
    "stats": (
        (N_("Totals over every game"), "twenty48 stats"),
        (N_("Ann's games only"), "twenty48 stats --player ann"),
        (N_("The totals as JSON"), "twenty48 stats --json"),
    ),
    "export": (
        (N_("Game 3 as a record"), "twenty48 export 3 -o game.json"),
        (N_("Every game, one record per line"), "twenty48 export --all -o games.jsonl"),
        (N_("One position as a picture"), "twenty48 export 3 --format svg --at 10 -o step10.svg"),
        (
            N_("An animated replay"),
            "twenty48 export game.json --format gif --steps 0:200 -o replay.gif",
        ),
    ),
    "import": (
        (N_("Verify a record and store it"), "twenty48 import game.json"),
        (N_("Many records: files and folders"), "twenty48 import games.jsonl records/"),
        (N_("From standard input"), "cat game.json | twenty48 import -"),
    ),
    "verify": (
        (N_("Check one record"), "twenty48 verify game.json"),
        (N_("Check a folder, printing only the bad records"), "twenty48 verify records/ --quiet"),
        (N_("Check a fair record and its signature"), "twenty48 verify fair.json --trust key.pem"),
        (
            N_("On a Dask cluster over TLS (its workers are trusted fully)"),
            "twenty48 verify --scheduler tls://HOST:8786 /shared/archive/",
        ),
        (
            N_("JSON Lines in, one result per line out"),
            "cat games.jsonl | twenty48 verify - --json",
        ),
    ),
    "hint": (
        (N_("The best move in your latest unfinished game"), "twenty48 hint"),
        (N_("The best move in game 3"), "twenty48 hint --game 3"),
        (N_("The best move in ann's latest unfinished game"), "twenty48 hint --player ann"),
        (
            N_("The best move in any position"),
            'twenty48 hint --board "2 2 0 0/0 4 0 0/0 0 0 0/0 0 0 2"',
        ),
        (N_("The best move at step 100 of a record"), "twenty48 hint --record game.json --at 100"),
    ),
    "autoplay": (
        (N_("The solver plays one game to the end"), "twenty48 autoplay"),
        (N_("Play until the solver makes 2048"), "twenty48 autoplay --until 2048"),
        (N_("Four games, two at a time"), "twenty48 autoplay --seed bot --games 4 --jobs 2"),
    ),
    "analyze": (
        (N_("Annotate game 3"), "twenty48 analyze 3"),
        (N_("A record file, with its ten largest mistakes"), "twenty48 analyze game.json --top 10"),
        (N_("The analysis as JSON"), "twenty48 analyze 3 --json"),
    ),
    "check": (
        (N_("Check the database"), "twenty48 check"),
        (N_("Check another database"), "twenty48 check --db backup.sqlite3"),
        (N_("The report as JSON"), "twenty48 check --json"),
    ),
    "where": (
        (N_("The default database"), "twenty48 where"),
        (N_("The database TWENTY48_DB names"), "TWENTY48_DB=games.sqlite3 twenty48 where"),
    ),
    "admin": (
        (N_("Hide game 12"), "twenty48 admin hide 12 --reason 'edited record'"),
        (N_("The moderation log"), "twenty48 admin log"),
        (N_("The server's keys"), "twenty48 admin keys --db games.sqlite3"),
    ),
    "admin hide": (
        (N_("Hide game 12"), "twenty48 admin hide 12 --reason 'edited record'"),
        (
            N_("On the server's PostgreSQL database, as another name"),
            "twenty48 admin hide 12 -r 'bot' --by anna --db postgresql+psycopg://u@host/db",
        ),
    ),
    "admin unhide": (
        (N_("Show game 12 again"), "twenty48 admin unhide 12"),
        (N_("With a reason"), "twenty48 admin unhide 12 --reason 'appeal upheld'"),
    ),
    "admin ban": (
        (N_("Ban a name"), "twenty48 admin ban mallory --reason 'bot, games 3 to 9'"),
        (N_("On another database"), "twenty48 admin ban mallory -r spam --db server.sqlite3"),
    ),
    "admin unban": (
        (N_("Lift a ban"), "twenty48 admin unban mallory"),
        (N_("With a reason"), "twenty48 admin unban mallory --reason 'appeal upheld'"),
    ),
    "admin log": (
        (N_("The last 50 actions"), "twenty48 admin log"),
        (N_("All of them as JSON Lines"), "twenty48 admin log --limit 100000 --json"),
    ),
    "admin suspects": (
        (N_("The 20 strongest bot signals"), "twenty48 admin suspects"),
        (N_("As JSON Lines"), "twenty48 admin suspects --json --limit 100"),
    ),
    "evidence": (
        (N_("The reports kept"), "twenty48 evidence"),
        (N_("Report 1 as JSON, to keep or send"), "twenty48 evidence 1"),
    ),
    "player-secret": (
        (
            N_("The secret of a name registered with play --register"),
            "twenty48 player-secret --server http://127.0.0.1:8048 --player pia",
        ),
        (
            N_("Keep the secret of a name registered in a browser (paste it, then Enter)"),
            "twenty48 player-secret --server http://127.0.0.1:8048 --player pia --keep",
        ),
    ),
    "serve": (
        (N_("A score server on http://127.0.0.1:8048"), "twenty48 serve"),
        (N_("Reachable from other machines"), "twenty48 serve --host 0.0.0.0 --port 9000"),
        (
            N_("Two processes over one PostgreSQL database"),
            "twenty48 serve --workers 2 --db postgresql+psycopg://user@host/db",
        ),
        (
            N_("Behind a proxy, for one host name"),
            "twenty48 serve --allowed-host game.example.org --forwarded-allow-ips 127.0.0.1",
        ),
        (
            N_("Sign with a new key from now on (the old one stays published)"),
            "twenty48 serve --key new-key.pem --rotate-key",
        ),
    ),
    "backup": (
        (
            N_("Copy the database while the server runs"),
            "twenty48 backup --db games.sqlite3 -o backup.sqlite3",
        ),
        (
            N_("Replace last night's copy"),
            "twenty48 backup --db games.sqlite3 -o nightly.sqlite3 --force",
        ),
    ),
    "solver": (
        (N_("Train a network on two threads"), "twenty48 solver train net.t48w --threads 2"),
        (N_("The weights the solver uses"), "twenty48 solver weights"),
    ),
    "solver train": (
        (
            N_("A million games on two threads"),
            "twenty48 solver train net.t48w --games 1000000 --threads 2",
        ),
        (N_("Go on after Ctrl-C"), "twenty48 solver train net.t48w --games 1000000 --resume"),
        (
            N_("Another network: three 4-tuples"),
            "twenty48 solver train small.t48w --tuples '0-1-2-3 4-5-6-7 0-1-4-5'",
        ),
    ),
    "solver export": (
        (N_("The weights to ship"), "twenty48 solver export net.t48w weights.t48w"),
        (
            N_("Play with them"),
            "TWENTY48_WEIGHTS=weights.t48w twenty48 autoplay",
        ),
    ),
    "solver weights": (
        (N_("The weights the solver uses"), "twenty48 solver weights"),
        (N_("Another file, as JSON"), "twenty48 solver weights net.t48w --json"),
    ),
    "admin keys": (
        (N_("The server's keys"), "twenty48 admin keys --db games.sqlite3"),
        (N_("The same as JSON"), "twenty48 admin keys --db games.sqlite3 --json"),
    ),
    "admin revoke-key": (
        (
            N_("Revoke a retired key that leaked"),
            'twenty48 admin revoke-key 0123456789abcdef --reason "copied off the old host"',
        ),
        (
            N_("On a PostgreSQL database"),
            "twenty48 admin revoke-key 0123456789abcdef --reason TEXT --db postgresql+psycopg://...",
        ),
    ),
    "admin rebuild-bests": (
        (
            N_("Rebuild the leaderboard's players' bests"),
            "twenty48 admin rebuild-bests --db games.sqlite3",
        ),
        (
            N_("On a PostgreSQL database"),
            "twenty48 admin rebuild-bests --db postgresql+psycopg://...",
        ),
    ),
}


def examples(pairs: tuple[tuple[str, str], ...]) -> str:
    """The epilog: each example's purpose, then its command line indented under it."""
    return "Examples:\n" + "\n".join(f"  {what}:\n    {line}" for what, line in pairs)
