"""Issue 17: the layers are checked, and the check bites.

``lint-imports`` (import-linter, configured in pyproject.toml) runs on a
copy of the source tree, once as it is (the contracts hold) and once with
one forbidden import added to the core (it must fail, naming the import).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


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


def test_the_layers_hold_and_an_added_upward_import_breaks_them(tmp_path: Path) -> None:
    tree = copied_tree(tmp_path)
    kept = lint_imports(tree)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "2 kept, 0 broken" in kept.stdout

    engine = tree / "twenty48_replay" / "engine.py"
    engine.write_text(
        engine.read_text(encoding="utf-8") + "\nimport twenty48_replay.store  # noqa\n",
        encoding="utf-8",
    )
    broken = lint_imports(tree)
    assert broken.returncode != 0
    assert "BROKEN" in broken.stdout
    assert "twenty48_replay.engine -> twenty48_replay.store" in broken.stdout
