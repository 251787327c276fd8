"""Run the shell blocks of a Markdown page as written, in a fresh shell after the activation line.

A newcomer follows the quick start, runs the one line it gives for every new
shell (``. .venv/bin/activate``), then types the commands of the README and
of the pages in docs/.  tests/project/test_readme.py and tests/project/test_docs.py do the
same with this module: each ``sh`` block's commands run one by one in a new
``bash`` whose ``PATH`` is the system's (nothing of the test's environment
leaks in), after sourcing the activation script of the venv running the
tests, in a copy of the project (so ``pybabel update`` changes nothing here)
and with a home folder of its own (so the games played land in a fresh
database).  A command must exit 0, or with the status its comment names
(``# exit 1: ...``, on the command's line or a comment line right under it).

What does not run, and why:

* a command containing one of the :data:`NOT_RUN` needles (a server, a
  terminal, another machine, a new install), with the reason given there;
* a command that opens a full-screen app (:data:`TERMINAL_ONLY`);
* every command of a block right after a ``<!-- not run: REASON -->`` line
  (for pages whose blocks are meant for another machine, such as the
  operator's guide: root, systemd, nginx).

Every other command runs, so a new block is tested unless it says why not.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ACTIVATE_LINE = ". .venv/bin/activate"
#: What the commands read or write, copied for each run.
PROJECT_PARTS = ("examples", "schema", "twenty48_replay", "cli", "babel.cfg")
#: A command containing one of these is not run, for the reason given.
NOT_RUN: dict[str, str] = {
    "python3 -m venv": "installs the project (the quick start itself)",
    "pip install": "installs packages",
    "python -m pytest": "runs the test suite",
    "twenty48 serve": "starts a server",
    "twenty48 admin ": "acts on a score server's database and its fair games",
    "--server": "needs a running score server",
    "http://127.0.0.1": "needs a running score server",
    "curl ": "needs a running score server",
    "dask ": "starts a Dask cluster",
    "--scheduler": "needs a Dask cluster",
    "postgres-start": "starts a PostgreSQL server",
    "postgres-stop": "stops a PostgreSQL server",
    "pytest tests/": "runs the test suite",
    "python -m build": "builds a wheel in a new environment (fetches its build tools)",
    "pip wheel": "builds a wheel in a new environment (fetches its build tools)",
    "mkdocs serve": "starts a web server",
}
TERMINAL_ONLY = re.compile(
    r"\btwenty48 (?:--lang \w+ )?(?:play|replay)\b(?!.*--(?:moves|at|frames|json))"
)
EXPECTED_EXIT = re.compile(r"#\s*exit (\d)\b")
#: ``<!-- not run: REASON -->`` on the line before a block: none of its commands runs.
BLOCK_NOT_RUN = re.compile(r"<!--\s*not run:\s*(.+?)\s*-->")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    #: The comment lines right under the command (``# exit 1: ...`` may stand there).
    note: str = ""
    #: Why the whole block is not run (its ``<!-- not run: ... -->`` line), if it is not.
    block_not_run: str | None = None

    @property
    def expected_exit(self) -> int:
        found = EXPECTED_EXIT.search(self.text) or EXPECTED_EXIT.search(self.note)
        return int(found.group(1)) if found else 0

    @property
    def not_run_because(self) -> str | None:
        if self.block_not_run is not None:
            return self.block_not_run
        for needle, reason in NOT_RUN.items():
            if needle in self.text:
                return reason
        if TERMINAL_ONLY.search(self.text):
            return "opens the full-screen UI (needs a terminal)"
        return None


def shell_commands(text: str) -> list[Command]:
    """Every command of every ``sh`` block, continuation lines joined, in page order.

    A comment line is no command: it belongs to the command right above it
    in the same block (where it may say ``# exit 1``).
    """
    commands: list[Command] = []
    in_block = False
    block_reason: str | None = None
    previous = ""
    pending: list[str] = []
    start = 0
    after_command = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_block = line.strip() == "```sh"
            if in_block:
                marker = BLOCK_NOT_RUN.search(previous)
                block_reason = marker.group(1) if marker else None
            after_command = False
            previous = line
            continue
        previous = line
        if not in_block or not line.strip():
            after_command = False
            continue
        if not pending and line.lstrip().startswith("#"):
            if after_command:
                last = commands[-1]
                note = f"{last.note} {line.strip()}".strip()
                commands[-1] = Command(last.line, last.text, note, last.block_not_run)
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        commands.append(Command(start, " ".join([*pending, line]).strip(), "", block_reason))
        pending = []
        after_command = True
    return commands


def runnable(text: str) -> list[Command]:
    """The commands of ``text`` that run here."""
    return [c for c in shell_commands(text) if c.not_run_because is None]


def activation_script() -> Path | None:
    """The activate script of the venv running the tests (None outside a venv)."""
    script = Path(sys.prefix) / "bin" / "activate"
    return script if script.is_file() else None


def copy_project(folder: Path) -> Path:
    """The parts of the project the commands use, copied into ``folder``."""
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / part)
    return folder


def fresh_shell(
    command: str, *, activate: Path, cwd: Path, home: Path
) -> subprocess.CompletedProcess[str]:
    """``command`` in a new bash: the system's PATH, the activation line first.

    ``. .venv/bin/activate`` is the quick start's line; the venv is the one
    running the tests, reached through a ``.venv`` link in the project copy.
    """
    venv = cwd / ".venv"
    if not venv.exists():
        venv.symlink_to(activate.parent.parent)
    env = {
        "PATH": SYSTEM_PATH,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    script = f"{ACTIVATE_LINE}\n{command}\n"
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def failure(page: str, command: Command, done: subprocess.CompletedProcess[str]) -> str | None:
    """Why ``command`` of ``page`` failed as run (``done``), or None if it worked as written."""
    if "command not found" in done.stderr or "Traceback" in done.stderr:
        return f"{page} line {command.line}: {command.text}\nstderr: {done.stderr[-2000:]}"
    if done.returncode != command.expected_exit:
        return (
            f"{page} line {command.line}: {command.text}\nexit {done.returncode}, "
            f"expected {command.expected_exit}\n"
            f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
        )
    return None
