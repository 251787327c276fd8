"""The shell blocks of every page in docs/ work as written, as the README's do.

Each ``sh`` block's commands run one by one in a new ``bash`` after the
quick start's activation line, in a copy of the project, with a home folder
of the page's own (the machinery, and what is not run and why, is
tests/support/shell_blocks.py, shared with tests/project/test_readme.py).  A page whose
blocks are meant for another machine (the operator's guide: root, systemd,
nginx) marks each such block with ``<!-- not run: REASON -->`` on the line
before it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from support.shell_blocks import (
    ROOT,
    Command,
    activation_script,
    copy_project,
    failure,
    fresh_shell,
    runnable,
    shell_commands,
)

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
RUNNABLE = [
    (page.relative_to(ROOT).as_posix(), command)
    for page in PAGES
    for command in runnable(page.read_text(encoding="utf-8"))
]


@pytest.fixture(scope="module")
def activate() -> Path:
    script = activation_script()
    if script is None:
        pytest.skip(f"the tests do not run in a venv ({sys.prefix} has no bin/activate)")
    return script


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("project"))


@pytest.fixture(scope="module")
def homes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A home folder per page, made on first use: a page's commands build on each other."""
    return {}


def home_of(page: str, homes: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    if page not in homes:
        homes[page] = tmp_path_factory.mktemp("home")
    return homes[page]


def test_the_pages_have_commands_that_run() -> None:
    pages = {page for page, _ in RUNNABLE}
    assert "docs/playing.md" in pages, sorted(pages)
    assert "docs/verifying.md" in pages, sorted(pages)
    assert len(RUNNABLE) >= 20, [c.text for _, c in RUNNABLE]


def test_every_block_of_the_operators_guide_says_why_it_is_not_run() -> None:
    """The guide's blocks are for a server (root, systemd, nginx): each names its reason."""
    commands = shell_commands((DOCS / "operating.md").read_text(encoding="utf-8"))
    assert commands
    for command in commands:
        assert command.not_run_because is not None, command


@pytest.mark.slow
@pytest.mark.parametrize(
    ("page", "command"), RUNNABLE, ids=[f"{page}:{c.line}" for page, c in RUNNABLE]
)
def test_docs_command_works_as_written(
    page: str,
    command: Command,
    activate: Path,
    project_copy: Path,
    homes: dict[str, Path],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    home = home_of(page, homes, tmp_path_factory)
    done = fresh_shell(command.text, activate=activate, cwd=project_copy, home=home)
    problem = failure(page, command, done)
    assert problem is None, problem
