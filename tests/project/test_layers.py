"""The layers are checked, and the check bites; the folders keep the shape they promise.

``lint-imports`` (import-linter, configured in pyproject.toml) runs on a
copy of the source tree, once as it is (every contract holds) and once for
each kind of import the contracts forbid, added to the copy: it must fail,
naming the import.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "twenty48_replay"
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return found


def copied_tree(tmp_path: Path) -> Path:
    """The library, the front end (and its import name's link) and the contracts, copied."""
    tree = tmp_path / "tree"
    for name in ("twenty48_replay", "cli", "typecheck"):
        shutil.copytree(
            ROOT / name,
            tree / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "*.mo", "js", "static"),
        )
    shutil.copy(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on ``tree``: its packages come before the installed ones."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), str(tree / "typecheck")])}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_contract_holds(tmp_path: Path) -> None:
    kept = lint_imports(copied_tree(tmp_path))
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert f"{len(contracts())} kept, 0 broken" in kept.stdout


#: (the file that gets the import, the import, what the report must name)
FORBIDDEN = {
    "upward, core to store": (
        "core/engine.py",
        "import twenty48_replay.store",
        "twenty48_replay.core.engine -> twenty48_replay.store",
    ),
    "a cycle inside the core": (
        "core/rows.py",
        "import twenty48_replay.core.timeline",
        "twenty48_replay.core.rows -> twenty48_replay.core.timeline",
    ),
    "one adapter into another": (
        "solver/play.py",
        "import twenty48_replay.bulk.batch",
        "twenty48_replay.solver.play -> twenty48_replay.bulk.batch",
    ),
    "the server's guard up into its writes": (
        "server/guard/quotas.py",
        "import twenty48_replay.server.writes.writer",
        "twenty48_replay.server.guard.quotas -> twenty48_replay.server.writes.writer",
    ),
    "the library into Typer": (
        "core/text.py",
        "import typer",
        "twenty48_replay.core.text -> typer",
    ),
    "the command line past the server's face": (
        "../cli/admin_cmd.py",
        "import twenty48_replay.server.http.app",
        "twenty48_cli.admin_cmd -> twenty48_replay.server.http.app",
    ),
}


@pytest.mark.parametrize("case", sorted(FORBIDDEN))
def test_a_forbidden_import_breaks_a_contract(case: str, tmp_path: Path) -> None:
    file, statement, named = FORBIDDEN[case]
    tree = copied_tree(tmp_path)
    target = tree / "twenty48_replay" / file
    target.write_text(
        target.read_text(encoding="utf-8") + f"\n{statement}  # noqa\n", encoding="utf-8"
    )
    broken = lint_imports(tree)
    assert broken.returncode != 0, broken.stdout
    assert "BROKEN" in broken.stdout
    assert named in broken.stdout


def _layer_names(contract: dict[str, object]) -> set[str]:
    names: set[str] = set()
    for layer in contract["layers"]:  # type: ignore[attr-defined]
        names.update(part.strip() for part in re.split(r"[|:]", str(layer)))
    return names


@pytest.mark.parametrize("container", ["core", "server", "fairplay", "bulk"])
def test_every_module_of_a_floor_has_its_place_in_the_contract(container: str) -> None:
    """A new module must be put on a floor: a contract cannot check what it does not name."""
    (contract,) = [
        c for c in contracts() if c.get("containers") == [f"twenty48_replay.{container}"]
    ]
    placed = _layer_names(contract)
    folder = LIBRARY / container
    present = {
        p.stem if p.is_file() else p.name
        for p in folder.iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    }
    assert present - placed == set(), f"not on any floor of {container}: {present - placed}"
    assert placed - present == set(), f"named but missing in {container}: {placed - present}"


def test_the_library_keeps_at_most_eight_modules_at_its_top() -> None:
    modules = [p.name for p in LIBRARY.iterdir() if p.suffix in (".py", ".so", ".pyd")]
    assert len(modules) <= 8, sorted(modules)


def test_packages_init_files_only_re_export() -> None:
    """An ``__init__.py`` holds a docstring, imports and ``__all__``, or a lazy re-export
    (``__getattr__`` with its ``TYPE_CHECKING`` imports): no logic hides in a front door."""
    for init in [*LIBRARY.rglob("__init__.py"), *(ROOT / "cli").rglob("__init__.py")]:
        tree = ast.parse(init.read_text(encoding="utf-8"))
        for node in tree.body:
            where = f"{init.relative_to(ROOT)}:{node.lineno}"
            if isinstance(node, ast.FunctionDef):
                assert node.name == "__getattr__", where
            elif isinstance(node, ast.If):
                assert ast.unparse(node.test) == "TYPE_CHECKING", where
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                assert names <= {"__all__", "__version__", "_LAZY"}, where
            else:
                assert isinstance(node, (ast.Expr, ast.Import, ast.ImportFrom)), where


def test_the_command_line_is_imported_by_one_name() -> None:
    """cli/ is installed as ``twenty48_cli`` (pyproject's package-dir, the one mapping;
    typecheck/twenty48_cli is the same folder for mypy): nothing imports it as ``cli``."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["package-dir"]["twenty48_cli"] == "cli"
    assert (ROOT / "typecheck" / "twenty48_cli").resolve() == (ROOT / "cli").resolve()
    bare = re.compile(r"^\s*(from cli[. ]|import cli\b)", re.MULTILINE)
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("tests", "cli", "twenty48_replay", "schema")
        for path in (ROOT / folder).rglob("*.py")
        if bare.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_no_module_tells_history_by_issue_number() -> None:
    """History lives in CHANGELOG.md and commit messages, not in the code."""
    numbered = re.compile(r"\bissues? #?\d+", re.IGNORECASE)
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("twenty48_replay", "cli")
        for path in (ROOT / folder).rglob("*")
        if path.suffix in (".py", ".c", ".h", ".js", ".css", ".html")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if numbered.search(line)
    ]
    assert offenders == []
