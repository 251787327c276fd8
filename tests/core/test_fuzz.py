"""Hostile input never crashes the reader, the verifier, the import or the CLI.

Hypothesis drives the mutations of tests/support/fuzzing.py (seed corpus in
tests/fuzz_corpus/); tests/support/fuzz_records.py runs the same checks for as long
as you like.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.common import run_cli
from support.fuzz_scenarios import SCENARIOS
from support.fuzzing import CORPUS, check_library, mutant

from twenty48_replay.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    return Store(str(tmp_path_factory.mktemp("fuzz") / "fuzz.sqlite3"))


@given(st.integers(0, 2**32))
def test_mutated_records_never_crash_the_library(store: Store, seed: int) -> None:
    check_library(mutant(random.Random(seed)), store)


@given(st.binary(max_size=300))
def test_arbitrary_bytes(store: Store, data: bytes) -> None:
    check_library(data, store)


def test_corpus_outcomes(store: Store) -> None:
    outcomes = {check_library(data, store) for data in CORPUS}
    assert outcomes == {"valid", "invalid", "unreadable"}


def test_cli_on_a_batch_of_mutants_exits_1_or_2_without_traceback(tmp_path: Path) -> None:
    rng = random.Random(2048)
    batch = tmp_path / "mutants.jsonl"
    lines = [mutant(rng).replace(b"\n", b" ") for _ in range(300)]
    batch.write_bytes(b"\n".join(lines) + b"\n")
    result = run_cli("verify", "--json", str(batch))
    assert result.returncode in (1, 2)
    assert "Traceback" not in result.stderr
    db = tmp_path / "cli.sqlite3"
    first = run_cli("import", "--db", str(db), str(batch))
    assert first.returncode in (1, 2)
    assert "Traceback" not in first.stderr
    digest = hashlib.sha256(run_cli("export", "--all", "--db", str(db)).stdout.encode()).digest()
    again = run_cli("import", "--db", str(db), str(batch))
    assert "Traceback" not in again.stderr
    after = hashlib.sha256(run_cli("export", "--all", "--db", str(db)).stdout.encode()).digest()
    assert after == digest  # rejections and duplicates changed nothing


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_cli_scenarios_keep_every_promise(scenario: str, tmp_path: Path) -> None:
    """A few cases of each hostile CLI scenario (tests/support/fuzz_records.py runs more)."""
    for case in range(3):
        SCENARIOS[scenario](random.Random(f"{scenario}-{case}"), tmp_path)
