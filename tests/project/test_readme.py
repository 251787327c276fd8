"""The README's shell blocks work as written, in a fresh shell after its activation line.

A newcomer follows the quick start, runs the one line it gives for every new
shell (``. .venv/bin/activate``), then types the README's commands.  This
test does the same: each ``sh`` block's commands run one by one in a new
``bash`` whose ``PATH`` is the system's (nothing of this test's environment
leaks in), after sourcing the activation script of the venv running the
tests, in a copy of the project (so ``pybabel update`` changes nothing
here) and with a home folder of its own (so the games it plays land in a
fresh database).  A command must exit 0, or with the status its comment
names (``# exit 1: ...``).

Commands that need a running server, a terminal, another machine or a new
install are listed in :data:`NOT_RUN` with the reason; every other command
runs, so a new block is tested unless it is added there.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
ACTIVATE_LINE = ". .venv/bin/activate"
#: What the commands read or write, copied for each run.
PROJECT_PARTS = ("examples", "schema", "twenty48_replay", "cli", "babel.cfg")
#: A command containing one of these is not run here, for the reason given.
NOT_RUN: dict[str, str] = {
    "python3 -m venv": "installs the project (the quick start itself)",
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
}
TERMINAL_ONLY = re.compile(
    r"\btwenty48 (?:--lang \w+ )?(?:play|replay)\b(?!.*--(?:moves|at|frames|json))"
)
EXPECTED_EXIT = re.compile(r"#\s*exit (\d)\b")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


@dataclass(frozen=True)
class Command:
    line: int
    text: str
    #: The comment lines right under the command (``# exit 1: ...`` may stand there).
    note: str = ""

    @property
    def expected_exit(self) -> int:
        found = EXPECTED_EXIT.search(self.text) or EXPECTED_EXIT.search(self.note)
        return int(found.group(1)) if found else 0

    @property
    def not_run_because(self) -> str | None:
        for needle, reason in NOT_RUN.items():
            if needle in self.text:
                return reason
        if TERMINAL_ONLY.search(self.text):
            return "opens the full-screen UI (needs a terminal)"
        return None


def shell_commands(text: str) -> list[Command]:
    """Every command of every ``sh`` block, continuation lines joined, in README order.

    A comment line is no command: it belongs to the command right above it
    in the same block (where it may say ``# exit 1``).
    """
    commands: list[Command] = []
    in_block = False
    pending: list[str] = []
    start = 0
    after_command = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_block = line.strip() == "```sh"
            after_command = False
            continue
        if not in_block or not line.strip():
            after_command = False
            continue
        if not pending and line.lstrip().startswith("#"):
            if after_command:
                last = commands[-1]
                commands[-1] = Command(last.line, last.text, f"{last.note} {line.strip()}".strip())
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        commands.append(Command(start, " ".join([*pending, line]).strip()))
        pending = []
        after_command = True
    return commands


def test_the_quick_start_says_how_to_run_the_commands() -> None:
    """Right after the quick start's install, one block with the activation line."""
    text = README.read_text(encoding="utf-8")
    quick_start = text[
        text.index("## Quick start") : text.index("\n## ", text.index("## Quick start") + 1)
    ]
    first_install = quick_start.index("pip install .")
    after = quick_start[first_install:]
    assert f"```sh\n{ACTIVATE_LINE}\n```" in after, "no activation line after the quick start"
    assert "`.venv/bin/twenty48`" in after, "the way without activating is not named"
    assert after.index(ACTIVATE_LINE) < after.index("twenty48 ", after.index("```\n") + 4)


def test_every_shell_command_is_run_or_has_a_reason() -> None:
    commands = shell_commands(README.read_text(encoding="utf-8"))
    run = [c for c in commands if c.not_run_because is None]
    assert len(run) >= 8, [c.text for c in run]
    assert any("twenty48 list" in c.text for c in run)
    assert any("pybabel" in c.text for c in run)


@pytest.fixture(scope="module")
def activate() -> Path:
    script = Path(sys.prefix) / "bin" / "activate"
    if not script.is_file():
        pytest.skip(f"the tests do not run in a venv ({sys.prefix} has no bin/activate)")
    return script


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The parts of the project the README's commands use, in a folder of their own."""
    folder = tmp_path_factory.mktemp("project")
    for part in PROJECT_PARTS:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / part)
    return folder


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


def fresh_shell(
    command: str, *, activate: Path, cwd: Path, home: Path
) -> subprocess.CompletedProcess[str]:
    """``command`` in a new bash: the system's PATH, the README's activation line first.

    ``. .venv/bin/activate`` is the README's line; the venv is the one running
    the tests, reached through a ``.venv`` link in the project copy.
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


RUNNABLE = [
    c for c in shell_commands(README.read_text(encoding="utf-8")) if c.not_run_because is None
]


@pytest.mark.parametrize("command", RUNNABLE, ids=lambda c: f"line{c.line}")
def test_readme_command_works_as_written(
    command: Command, activate: Path, project_copy: Path, home: Path
) -> None:
    done = fresh_shell(command.text, activate=activate, cwd=project_copy, home=home)
    assert "command not found" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == command.expected_exit, (
        f"README line {command.line}: {command.text}\nexit {done.returncode}\n"
        f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}"
    )


def test_pytest_lists_skipped_tests_with_their_reasons(tmp_path: Path) -> None:
    """The project's pytest configuration prints each skip's reason in the summary."""
    (tmp_path / "test_skips.py").write_text(
        "import pytest\n\n\ndef test_skipped():\n    pytest.skip('no frobnicator here')\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(ROOT),
            str(tmp_path / "test_skips.py"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SKIPPED" in done.stdout, done.stdout
    assert "no frobnicator here" in done.stdout, done.stdout


def test_the_readme_says_how_to_run_the_postgresql_tests() -> None:
    text = README.read_text(encoding="utf-8")
    commands = [c.text for c in shell_commands(text)]
    assert "export TWENTY48_TEST_POSTGRES_URL=$(.ci/postgres-start)" in commands
    assert any(
        c.startswith("python -m pytest tests/store/test_store_postgres.py") for c in commands
    )
    assert '.ci/postgres-stop "$TWENTY48_TEST_POSTGRES_URL"' in commands
