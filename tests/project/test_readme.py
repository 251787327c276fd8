"""The README's shell blocks work as written, in a fresh shell after its activation line.

A newcomer follows the quick start, runs the one line it gives for every new
shell (``. .venv/bin/activate``), then types the README's commands.  This
test does the same with tests/support/shell_blocks.py (shared with tests/project/test_docs.py,
which runs the blocks of the pages in docs/): each ``sh`` block's commands
run one by one in a new ``bash`` whose ``PATH`` is the system's, after
sourcing the activation script of the venv running the tests, in a copy of
the project and with a home folder of its own.  A command must exit 0, or
with the status its comment names (``# exit 1: ...``).

Commands that need a running server, a terminal, another machine or a new
install are listed in ``shell_blocks.NOT_RUN`` with the reason; every other
command runs, so a new block is tested unless it says why not.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.shell_blocks import (
    ACTIVATE_LINE,
    ROOT,
    Command,
    activation_script,
    copy_project,
    failure,
    fresh_shell,
    runnable,
    shell_commands,
)

README = ROOT / "README.md"


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
    assert any("twenty48 verify" in c.text for c in run)


@pytest.fixture(scope="module")
def activate() -> Path:
    script = activation_script()
    if script is None:
        pytest.skip(f"the tests do not run in a venv ({sys.prefix} has no bin/activate)")
    return script


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The parts of the project the README's commands use, in a folder of their own."""
    return copy_project(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("home")


RUNNABLE = runnable(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize("command", RUNNABLE, ids=lambda c: f"line{c.line}")
def test_readme_command_works_as_written(
    command: Command, activate: Path, project_copy: Path, home: Path
) -> None:
    done = fresh_shell(command.text, activate=activate, cwd=project_copy, home=home)
    problem = failure("README", command, done)
    assert problem is None, problem


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
