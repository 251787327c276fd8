"""The native core against the pure-Python engine: identical results, field by field (issue 21).

Differential tests (Hypothesis): random seeds of 1-128 code points from all
of Unicode, move strings up to 1,000,000 letters, boards with tiles up to
131072 and any start count, through every entry point the engine has
(run, steps, verdict, one move, a slide, game over, the spawn HMAC) and
through verify() and Timeline.  Exhaustive: every row of exponents 0..17
slides the same both ways.  SHA-256 and HMAC: every implementation this CPU
has (SHA-NI, ARMv8, portable C) against hashlib and hmac.

The long run is ``python tests/support/fuzz_records.py --native-seconds N``.
These tests skip when the core is not built, unless TWENTY48_REQUIRE_NATIVE
is set (CI), and when TWENTY48_ENGINE=python forces pure Python (the
native pass of CI runs them).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import random
import re
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from twenty48_replay import Board, Direction, GameState, Record, SpawnRng, verify
from twenty48_replay.core import engine, native, rows
from twenty48_replay.core.errors import NullMoveError
from twenty48_replay.core.timeline import Timeline

if native.core is None:
    if os.environ.get("TWENTY48_REQUIRE_NATIVE") and native.ENGINE != "python":
        pytest.fail("the native core is not built, but TWENTY48_REQUIRE_NATIVE is set")
    if os.environ.get(native.ENV_VAR) != "python":
        pytest.skip("the native core is not built", allow_module_level=True)
    pytest.skip("TWENTY48_ENGINE=python: the native pass runs these", allow_module_level=True)

core: Any = native.core
MAX_EXPONENT_IN_GAMES = 17  # 131072, the largest tile a 4x4 game can hold

seeds = st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=128)
letters = st.text(alphabet="UDLR", max_size=300)
exponents = st.lists(st.integers(0, MAX_EXPONENT_IN_GAMES), min_size=16, max_size=16)
starts = st.integers(0, 1_000_000)
directions = st.sampled_from(list(Direction))


def packed(cells: list[int]) -> int:
    return sum(e << (5 * i) for i, e in enumerate(cells))


def outcome_or_error(call: Any) -> Any:
    """The value of a call, or its exception's type and text (to compare failures too)."""
    try:
        value = call()
        return list(value) if not isinstance(value, tuple) else value
    except Exception as exc:
        return (type(exc), str(exc))


def random_moves(rng: random.Random, n: int) -> str:
    return "".join(rng.choices("UDLR", k=n))


def valid_game(seed: str, rng: random.Random, limit: int = 2_000) -> str:
    """Random valid moves from the opening until game over (or ``limit`` moves)."""
    state = GameState.new(seed)
    played: list[str] = []
    while len(played) < limit:
        choices = state.board.valid_directions()
        if not choices:
            break
        direction = rng.choice(choices)
        state = state.play(direction)[0]
        played.append(direction.letter)
    return "".join(played)


# ---------------------------------------------------------------- whole replays


@given(seeds, letters)
def test_run_and_verdict_match_python(seed: str, moves: str) -> None:
    assert engine.run(seed, moves) == engine.python_run(seed, moves)
    assert engine.verdict(seed, moves) == engine.python_verdict(seed, moves)
    assert engine.opening_state(seed) == engine.python_opening_state(seed)


@settings(max_examples=25)
@given(seeds, st.integers(0, 1_000_000), st.integers(0, 2**32))
def test_move_strings_up_to_a_million(seed: str, length: int, salt: int) -> None:
    moves = random_moves(random.Random(salt), length)
    assert engine.run(seed, moves) == engine.python_run(seed, moves)
    assert engine.verdict(seed, moves) == engine.python_verdict(seed, moves)


@settings(max_examples=40)
@given(seeds, st.integers(0, 2**32), letters)
def test_whole_games_then_anything(seed: str, salt: int, tail: str) -> None:
    moves = valid_game(seed, random.Random(salt)) + tail
    assert engine.run(seed, moves) == engine.python_run(seed, moves)
    assert engine.verdict(seed, moves) == engine.python_verdict(seed, moves)
    native_steps = list(engine.steps(seed, moves))
    assert native_steps == list(engine.python_steps(seed, moves))
    record = Record(seed, moves, engine.python_run(seed, moves).score)
    assert verify(record) == _python_verify(record)


@given(seeds, exponents, starts, letters)
def test_from_any_board_and_start(seed: str, cells: list[int], start: int, moves: str) -> None:
    state = Board(packed(cells)).state()
    assert engine.run(seed, moves, state, start) == engine.python_run(seed, moves, state, start)
    assert list(engine.steps(seed, moves, state, start)) == list(
        engine.python_steps(seed, moves, state, start)
    )


@settings(max_examples=30)
@given(seeds, st.integers(0, 2**32))
def test_timeline_jumps_match_python(seed: str, salt: int) -> None:
    rng = random.Random(salt)
    moves = valid_game(seed, rng, limit=400)
    record = Record(seed, moves, 0)
    timeline = Timeline(record)
    for number in {0, len(timeline) - 1, rng.randrange(len(timeline))}:
        step = timeline[number]
        raw = list(engine.python_steps(seed, moves[:number]))
        if number:
            assert step.board.packed == raw[-1].state & rows.BOARD_MASK
            assert step.spawn.cell == raw[-1].cell


def _python_verify(record: Record) -> Any:
    """verify() with the engine's entry points bound to pure Python for the call."""
    saved = engine.verdict
    engine.verdict = engine.python_verdict
    try:
        return verify(record)
    finally:
        engine.verdict = saved


# ---------------------------------------------------------------- one move, one slide


@given(seeds, exponents, st.integers(0, 1_000_000), directions)
def test_one_move_matches_python(
    seed: str, cells: list[int], moves: int, direction: Direction
) -> None:
    state = GameState(seed, Board(packed(cells)), 0, moves)
    assert outcome_or_error(lambda: state.play(direction)) == outcome_or_error(
        lambda: state._play_python(direction)
    )


@given(exponents, directions)
def test_slide_and_over_match_python(cells: list[int], direction: Direction) -> None:
    board = Board(packed(cells))
    slid = board.slide(direction)
    python = rows.move_state(board.state(), direction.code)
    assert slid.board.packed == python & rows.BOARD_MASK
    assert slid.gained == python >> rows.GAIN_SHIFT
    assert slid.changed == (slid.board != board)
    assert board.is_over() == (not board.valid_directions())


@given(st.lists(st.integers(1, 3), min_size=16, max_size=16))
def test_game_over_on_full_boards(cells: list[int]) -> None:
    """Full boards of few distinct tiles: the ones where merges decide game over."""
    board = Board(packed(cells))
    assert board.is_over() == (not board.valid_directions())


def test_every_row_slides_as_the_rules_say() -> None:
    """All 18**4 rows of exponents 0..17, both ways, as a row and as a column."""
    checked = 0
    for key in range(1 << 20):
        cells = rows.unpack_row(key)
        if max(cells) > MAX_EXPONENT_IN_GAMES:
            continue
        for direction, line in ((Direction.LEFT, cells), (Direction.RIGHT, cells[::-1])):
            expected, gained = rows.slide_exponents(line)
            if direction is Direction.RIGHT:
                expected = expected[::-1]
            slid = core.slide(key, direction.code)
            if tuple(expected) == cells:
                assert slid is None
                continue
            assert slid == (sum(e << (5 * c) for c, e in enumerate(expected)), gained)
            column = sum(e << (20 * r) for r, e in enumerate(cells))
            vertical = Direction.UP if direction is Direction.LEFT else Direction.DOWN
            assert core.slide(column, vertical.code) == (
                sum(e << (20 * r) for r, e in enumerate(expected)),
                gained,
            )
        checked += 1
    assert checked == 18**4


def test_two_top_tiles_overflow_as_in_python() -> None:
    board = Board.from_rows([[2**31, 2**31, 0, 0], [0] * 4, [0] * 4, [0] * 4])
    for direction in Direction:
        with pytest.raises(rows.TileOverflowError, match="2147483648"):
            board.slide(direction)
        with pytest.raises(rows.TileOverflowError):
            GameState("s", board).play(direction)
    with pytest.raises(rows.TileOverflowError):
        board.is_over()


def test_null_move_errors_match() -> None:
    over = Board.from_rows([[2, 4, 2, 4], [4, 2, 4, 2], [2, 4, 2, 4], [4, 2, 4, 2]])
    with pytest.raises(NullMoveError) as caught:
        GameState("s", over, 10, 5).play(Direction.LEFT)
    assert (caught.value.move_number, caught.value.over) == (6, True)


# ---------------------------------------------------------------- SHA-256 and HMAC

IMPLEMENTATIONS = ["sha-ni", "armv8-sha2", "portable"]


@pytest.fixture(params=IMPLEMENTATIONS)
def implementation(request: pytest.FixtureRequest) -> Any:
    before = core.sha256_impl()
    try:
        core.sha256_impl(request.param)
    except ValueError:
        pytest.skip(f"{request.param} is not available on this machine")
    yield request.param
    core.sha256_impl(before)


#: The implementation fixture is meant to hold for every example of a test.
FIXED = [HealthCheck.function_scoped_fixture]


@settings(max_examples=200, suppress_health_check=FIXED)
@given(data=st.binary(max_size=600))
def test_sha256_matches_hashlib(implementation: str, data: bytes) -> None:
    assert core.sha256(data) == hashlib.sha256(data).digest()


@settings(max_examples=200, suppress_health_check=FIXED)
@given(key=st.binary(min_size=0, max_size=600), k=st.integers(0, 2**64 - 1))
def test_hmac_matches_the_standard(implementation: str, key: bytes, k: int) -> None:
    expected = hmac.new(key, k.to_bytes(8, "big"), hashlib.sha256).digest()
    assert core.hmac(key, k) == expected


@settings(max_examples=100, suppress_health_check=FIXED)
@given(seed=seeds, k=st.integers(0, 2**64 - 1))
def test_spawn_rng_native_digest_is_the_spec(implementation: str, seed: str, k: int) -> None:
    expected = hmac.new(seed.encode("utf-8"), k.to_bytes(8, "big"), hashlib.sha256).digest()
    assert SpawnRng(seed).digest(k) == expected


def test_replays_agree_on_every_implementation(implementation: str) -> None:
    rng = random.Random(21)
    for i in range(20):
        seed = f"impl-{i}"
        moves = valid_game(seed, rng, limit=300)
        assert engine.run(seed, moves) == engine.python_run(seed, moves)


@pytest.mark.parametrize("k", [-1, 2**64])
def test_a_counter_outside_64_bits_fails_as_in_python(k: int) -> None:
    with pytest.raises(struct.error):
        SpawnRng("s").digest(k)


# ---------------------------------------------------------------- arguments are checked


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: core.replay("not bytes", "L", None, 0), TypeError),
        (lambda: core.replay(b"s", 12, None, 0), TypeError),
        (lambda: core.replay(b"s", "L", -1, 0), ValueError),
        (lambda: core.replay(b"s", "L", None, -1), ValueError),
        (lambda: core.replay(b"s", "L", None, 2**63), (ValueError, OverflowError)),
        (lambda: core.replay(b"s", "LX", None, 0), ValueError),
        (lambda: core.replay(b"s", "L\u00e9", None, 0), ValueError),
        (lambda: core.replay(b"s", "L"), TypeError),
        (lambda: core.steps(b"s", "L" * 70_000, None, 0), ValueError),
        (lambda: core.play(b"s", 2**80, 0, 0), ValueError),
        (lambda: core.play(b"s", 0, 0, 4), ValueError),
        (lambda: core.slide(-5, 0), ValueError),
        (lambda: core.is_over("board"), TypeError),
        (lambda: core.hmac(b"k", -1), OverflowError),
        (lambda: core.sha256_impl("md5"), ValueError),
    ],
)
def test_bad_arguments_raise_not_crash(call: Any, error: Any) -> None:
    with pytest.raises(error):
        call()


def test_the_engine_is_reported() -> None:
    assert native.ENGINE == "native"
    assert native.describe().startswith("native (")
    assert core.sha256_impl() in IMPLEMENTATIONS


# ---------------------------------------------------------------- long games, threads


def long_games() -> list[Record]:
    from support.common import ROOT

    return [
        Record.from_json(p.read_text()) for p in sorted((ROOT / "tests" / "data").glob("*.json"))
    ]


def test_long_games_match_python_step_by_step() -> None:
    """Past the GIL-release threshold (2,048 moves) and many steps() chunks (512)."""
    for record in long_games():
        assert engine.run(record.seed, record.moves) == engine.python_run(record.seed, record.moves)
        assert engine.verdict(record.seed, record.moves) == engine.python_verdict(
            record.seed, record.moves
        )
        assert list(engine.steps(record.seed, record.moves)) == list(
            engine.python_steps(record.seed, record.moves)
        )


def test_threads_replaying_at_once_agree() -> None:
    """Replays run with the GIL released and fill the row tables concurrently (fresh process)."""
    import subprocess
    import sys

    from support.common import ROOT

    script = """
import sys, threading
from pathlib import Path
from twenty48_replay import Record
from twenty48_replay.core import engine
games = [Record.from_json(p.read_text()) for p in sorted(Path(sys.argv[1]).glob("*.json"))]
results = {}
def work(i):
    record = games[i % len(games)]
    results[i] = engine.run(record.seed, record.moves)
threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
for i, outcome in results.items():
    record = games[i % len(games)]
    assert outcome == engine.python_run(record.seed, record.moves), i
print(len(results))
"""
    done = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "tests" / "data")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "8"


def test_random_differential_cases() -> None:
    """A quick run of the long fuzz run's cases (tests/support/native_diff.py)."""
    from support.native_diff import check_case

    kinds = {check_case(random.Random(case)) for case in range(200)}
    assert {"letters", "game", "board"} <= kinds


def test_fast_helpers_match_their_definitions() -> None:
    """Division-free modulo, the set-bit table and the block transpose (checked in C)."""
    assert core.self_check() == 0


# ---------------------------------------------------------------- the command line, both engines


def test_cli_output_is_the_same_with_either_engine(tmp_path: Any) -> None:
    """verify --json, replay --json and --frames: the same bytes and exit codes either way."""
    from support.common import EXAMPLES, VECTORS, run_cli

    records = sorted(str(p) for p in (VECTORS / "records").glob("*.json*"))
    records += sorted(str(p) for p in EXAMPLES.glob("*.json*"))
    commands = [
        ["verify", "--json", *records],
        ["verify", *records],
        ["replay", "--json", "--frames", str(EXAMPLES / "valid.json")],
        ["replay", "--json", "--at", "-1", str(EXAMPLES / "tampered-swapped-move.json")],
        ["replay", "--at", "100", str(EXAMPLES / "valid.json")],
    ]
    for command in commands:
        native_run = run_cli(*command, env={"TWENTY48_ENGINE": "native"})
        python_run = run_cli(*command, env={"TWENTY48_ENGINE": "python"})
        assert native_run.returncode == python_run.returncode, command
        assert native_run.stdout == python_run.stdout, command
        # stderr differs only in the summary's engine and rates
        strip = re.compile(r" · (engine|motor) [^·]+ · [\d,.]+ records/s, [\d,.]+ moves/s$", re.M)
        assert strip.sub("", native_run.stderr) == strip.sub("", python_run.stderr), command


def test_engine_choice_is_reported_and_checked() -> None:
    from support.common import EXAMPLES, run_cli

    assert "engine: native (" in run_cli("--version", env={"TWENTY48_ENGINE": "native"}).stdout
    assert "engine: python" in run_cli("--version", env={"TWENTY48_ENGINE": "python"}).stdout
    assert "engine: native (" in run_cli("--version", env={"TWENTY48_ENGINE": ""}).stdout
    games = str(EXAMPLES / "games.jsonl")
    assert (
        " · engine native (" in run_cli("verify", games, env={"TWENTY48_ENGINE": "native"}).stderr
    )
    assert (
        " · engine python · " in run_cli("verify", games, env={"TWENTY48_ENGINE": "python"}).stderr
    )
    for bad in ("fast", "Native", "\x1b[31mred", "x" * 500):
        done = run_cli("verify", games, env={"TWENTY48_ENGINE": bad})
        assert done.returncode == 2
        assert done.stdout == ""
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        assert lines[0].startswith("twenty48: error: TWENTY48_ENGINE must be python or native")
        assert "\x1b" not in done.stderr
        assert len(lines[0]) < 300


def test_a_missing_core_is_one_line_and_exit_2(tmp_path: Any) -> None:
    """TWENTY48_ENGINE=native where the module cannot be imported (hidden by a path hook)."""
    import subprocess
    import sys

    from support.common import ROOT

    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'twenty48_replay._core':\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(hide), "TWENTY48_ENGINE": "native"}
    done = subprocess.run(
        [sys.executable, "-m", "twenty48_cli", "verify", str(ROOT / "examples" / "valid.json")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "twenty48: error: TWENTY48_ENGINE=native, but the native core is not built in this "
        "installation; reinstall with a C compiler, or set TWENTY48_ENGINE=python"
    )
    env["TWENTY48_ENGINE"] = ""
    done = subprocess.run(
        [sys.executable, "-m", "twenty48_cli", "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert "engine: python" in done.stdout


def test_armv8_sha2_under_qemu(tmp_path: Any) -> None:
    """The ARMv8 SHA2 compression, cross-compiled and run under QEMU (when both are here).

    tests/bench/native_limit.c verifies records with the native core's replay loop;
    built for aarch64 it picks the SHA2 instructions (and portable C when told to).
    """
    import shutil
    import subprocess

    from support.common import EXAMPLES, ROOT

    cc, qemu = shutil.which("aarch64-linux-gnu-gcc"), shutil.which("qemu-aarch64")
    if cc is None or qemu is None:
        pytest.skip("no aarch64 cross compiler and QEMU (gcc-aarch64-linux-gnu, qemu-user)")
    native_dir = ROOT / "twenty48_replay" / "_native"
    program = tmp_path / "native_limit"
    sources = [ROOT / "tests" / "bench" / "native_limit.c"]
    sources += [native_dir / "t48_rows.c", native_dir / "t48_sha256.c"]
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O2",
            "-static",
            "-I",
            str(native_dir),
            *map(str, sources),
            "-o",
            str(program),
        ],
        check=True,
        timeout=300,
    )
    for forced, expected in (("", "armv8-sha2"), ("portable", "portable")):
        done = subprocess.run(
            [qemu, str(program), "verify", str(EXAMPLES / "games.jsonl")],
            capture_output=True,
            text=True,
            env={**os.environ, "TWENTY48_SHA256": forced},
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith("6 records: 6 valid, 0 invalid")
        assert done.stdout.rstrip().endswith(f"sha256 {expected}")


# ---------------------------------------------------------------- every vector through C


def test_every_spawn_vector_through_the_native_spawn() -> None:
    """schema/vectors/spawns.json, k up to 2**64 - 1: digest, cell and value in C."""
    from support.common import VECTORS, load_json

    vectors = load_json(VECTORS / "spawns.json")["spawns"]
    assert max(v["k"] for v in vectors) == 2**64 - 1
    for vector in vectors:
        key = vector["seed"].encode("utf-8")
        assert core.hmac(key, vector["k"]).hex() == vector["hmac"]
        board = Board.from_rows(vector["board"]).packed
        assert core.spawn(key, board, vector["k"]) == (vector["cell"], vector["value"])


def test_every_game_vector_step_by_step_in_c() -> None:
    """schema/vectors/games.json: every board, score, gain and spawn from the C steps."""
    from support.common import VECTORS, load_json

    for game in load_json(VECTORS / "games.json")["games"]:
        key = game["seed"].encode("utf-8")
        steps = core.steps(key, game["moves"], None, 0)
        assert len(steps) == len(game["moves"])
        score = 0
        for (state, gained, cell, four), expected in zip(steps, game["steps"][1:], strict=True):
            score += gained
            assert Board(state & rows.BOARD_MASK).to_rows() == expected["board"]
            assert (score, gained) == (expected["score"], expected["gained"])
            assert {"cell": cell, "value": 4 if four else 2} == expected["spawn"]
