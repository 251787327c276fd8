"""`twenty48 verify` as a user runs it: real subprocesses, real files, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.common import EXAMPLES, VECTORS, load_json, run_cli

from twenty48_replay import Record, verify

RECORDS = VECTORS / "records"
EXPECTED: dict[str, str] = load_json(RECORDS / "expected.json")
EXIT = {"valid": 0, "invalid": 1, "unreadable": 2}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_vector_records_get_their_exit_code(name: str) -> None:
    result = run_cli("verify", "--json", str(RECORDS / name))
    assert result.returncode == EXIT[EXPECTED[name]], result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    obj = json.loads(lines[0])
    assert obj["file"] == str(RECORDS / name)
    assert obj["valid"] == {"valid": True, "invalid": False, "unreadable": None}[EXPECTED[name]]
    if obj["valid"] is None:  # SPEC 8.5: a single record's error names its index, 1
        assert obj["error"].startswith(f"{RECORDS / name}:1: "), obj["error"]
    assert "Traceback" not in result.stderr


def test_valid_record_reports_replayed_values() -> None:
    data = load_json(EXAMPLES / "valid.json")
    result = run_cli("verify", "--json", str(EXAMPLES / "valid.json"))
    obj = json.loads(result.stdout)
    assert result.returncode == 0
    assert obj["valid"] is True
    assert (obj["score"], obj["max_tile"], obj["moves"]) == (
        data["score"],
        data["max_tile"],
        len(data["moves"]),
    )
    assert obj["reasons"] == []
    assert obj["index"] == 1


def test_tampered_score_names_both_values() -> None:
    data = load_json(EXAMPLES / "tampered-score.json")
    result = run_cli("verify", str(EXAMPLES / "tampered-score.json"))
    assert result.returncode == 1
    assert f"claimed score {data['score']}, replayed {data['score'] - 2}" in result.stdout


def test_swapped_move_names_the_move_or_the_score() -> None:
    result = run_cli("verify", "--json", str(EXAMPLES / "tampered-swapped-move.json"))
    obj = json.loads(result.stdout)
    assert result.returncode == 1
    assert obj["valid"] is False
    assert obj["reasons"]
    record = Record.from_json((EXAMPLES / "tampered-swapped-move.json").read_text())
    assert obj["reasons"] == list(verify(record).reasons)


def test_truncated_moves_fail_on_score_and_board() -> None:
    result = run_cli("verify", "--json", str(EXAMPLES / "tampered-truncated.json"))
    obj = json.loads(result.stdout)
    assert result.returncode == 1
    data = load_json(EXAMPLES / "tampered-truncated.json")
    assert obj["moves"] == len(data["moves"])
    assert any(r.startswith("claimed score") for r in obj["reasons"])
    assert any(r.startswith("claimed final_board") for r in obj["reasons"])


def test_null_move_is_named_with_its_index_and_direction(tmp_path: Path) -> None:
    record = Record.from_json((EXAMPLES / "valid.json").read_text())
    moves = record.moves
    over = tmp_path / "over.json"
    over.write_text(Record(record.seed, moves + "U", record.score).to_json())
    result = run_cli("verify", "--json", str(over))
    obj = json.loads(result.stdout)
    assert result.returncode == 1
    assert obj["moves"] == len(moves)
    assert obj["score"] == record.score
    assert obj["reasons"] == [f"move {len(moves) + 1} (U) is not a valid move: the game is over"]


def test_malformed_record_is_one_line_naming_file_and_field() -> None:
    path = EXAMPLES / "malformed-score-float.json"
    result = run_cli("verify", str(path))
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert str(path) in lines[0]
    assert "field 'score'" in lines[0]
    assert "not an integer" in lines[0]


def test_unreadable_wins_over_invalid_and_batch_continues(tmp_path: Path) -> None:
    good = json.loads((EXAMPLES / "valid.json").read_text())
    lines = [json.dumps(good), "", "{not json", json.dumps({**good, "score": good["score"] + 2})]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    result = run_cli("verify", "--json", str(batch), str(tmp_path / "missing.json"))
    assert result.returncode == 2
    objs = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(o["index"], o["valid"]) for o in objs] == [
        (1, True),
        (3, None),
        (4, False),
        (None, None),
    ]
    assert f"{batch}:3" in objs[1]["error"]
    assert "no such file" in objs[3]["error"]


def test_invalid_only_exits_1(tmp_path: Path) -> None:
    result = run_cli("verify", str(EXAMPLES / "valid.json"), str(EXAMPLES / "tampered-score.json"))
    assert result.returncode == 1
    assert "2 records: 1 valid, 1 invalid, 0 unreadable" in result.stderr


def test_stdin_single_document_and_json_lines() -> None:
    text = (EXAMPLES / "valid.json").read_bytes()
    single = run_cli("verify", "--json", "-", stdin=text)
    assert single.returncode == 0
    assert json.loads(single.stdout)["file"] == "-"
    many = (EXAMPLES / "games.jsonl").read_bytes()
    result = run_cli("verify", "--json", "-", stdin=many)
    assert result.returncode == 0
    assert len(result.stdout.splitlines()) == len(many.splitlines())


def test_jsonl_example_file_is_all_valid() -> None:
    result = run_cli("verify", str(EXAMPLES / "games.jsonl"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert all(": valid:" in line for line in result.stdout.splitlines())


def test_huge_inputs_are_refused_quickly(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as f:
        f.truncate(100 * 1024 * 1024)
    result = run_cli("verify", str(huge), timeout=30)
    assert result.returncode == 2
    assert "over the limit" in result.stderr
    long_moves = tmp_path / "long.json"
    long_moves.write_text(
        json.dumps(
            {
                "format": "twenty48-record",
                "version": 1,
                "seed": "s",
                "moves": "L" * 10_000_000,
                "score": 0,
            }
        )
    )
    result = run_cli("verify", "--json", str(long_moves), timeout=30)
    assert result.returncode == 2
    assert "10000000 moves, the limit is 1,000,000" in json.loads(result.stdout)["error"]
    huge_line = tmp_path / "huge.jsonl"
    with huge_line.open("wb") as f:
        f.write(b'{"seed": "' + b"x" * (65 * 1024 * 1024) + b'"}\n')
        f.write((EXAMPLES / "valid.json").read_bytes().replace(b"\n", b"") + b"\n")
    result = run_cli("verify", "--json", str(huge_line), timeout=60)
    assert result.returncode == 2
    objs: list[dict[str, Any]] = [json.loads(x) for x in result.stdout.splitlines()]
    assert [o["valid"] for o in objs] == [None, True]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("verify",), "twenty48: error: Missing argument 'FILE'. (see 'twenty48 verify -h')"),
        (("no-such-command",), "twenty48: error: No such command 'no-such-command'."),
        (("list", "--limit", "x"), "twenty48: error: Invalid value for '--limit'"),
        (("verify", "--jobs", "0", "x.json"), "twenty48: error: Invalid value for '--jobs'"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(args: tuple[str, ...], expected: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert result.stderr.startswith(expected), result.stderr


def test_no_arguments_prints_help_and_exits_2() -> None:
    result = run_cli()
    assert result.returncode == 2
    assert "Commands" in result.stdout
    assert "verify" in result.stdout


def test_directories_and_binary_garbage(tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(bytes(range(256)))
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("verify", str(empty), str(garbage))
    assert result.returncode == 2
    assert "is a directory with no .json or .jsonl files" in result.stderr
    assert "not UTF-8" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_directory_stands_for_its_record_files(tmp_path: Path) -> None:
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    (nested / "one.json").write_bytes((EXAMPLES / "valid.json").read_bytes())
    (tmp_path / "a" / "many.jsonl").write_bytes((EXAMPLES / "games.jsonl").read_bytes())
    (tmp_path / "a" / "notes.txt").write_text("not a record")
    result = run_cli("verify", "--json", str(tmp_path))
    assert result.returncode == 0, result.stderr
    files = [json.loads(x)["file"] for x in result.stdout.splitlines()]
    assert files == [str(nested / "one.json")] + [str(tmp_path / "a" / "many.jsonl")] * 6


def test_version() -> None:
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith("twenty48-replay ")


def test_parallel_verification_keeps_input_order_and_results(tmp_path: Path) -> None:
    good = [json.loads(x) for x in (EXAMPLES / "games.jsonl").read_text().splitlines()]
    lines = []
    for i in range(900):
        record = dict(good[i % len(good)])
        if i % 7 == 3:
            record["score"] += 2
        line = json.dumps(record)
        if i % 11 == 5:
            line = line[:-3]  # truncated JSON
        lines.append(line)
    batch = tmp_path / "big.jsonl"
    batch.write_text("\n".join(lines) + "\n")
    serial = run_cli("verify", "--json", "--jobs", "1", str(batch))
    parallel = run_cli("verify", "--json", "--jobs", "2", str(batch))
    assert serial.returncode == parallel.returncode == 2
    assert serial.stdout == parallel.stdout
    objs = [json.loads(x) for x in parallel.stdout.splitlines()]
    assert [o["index"] for o in objs] == list(range(1, 901))
    assert [o["valid"] for o in objs] == [None if i % 11 == 5 else i % 7 != 3 for i in range(900)]
    assert "900 records:" in parallel.stderr
    assert "moves/s" in parallel.stderr


def test_stdin_pretty_document_and_leading_blank_lines() -> None:
    pretty = json.dumps(json.loads((EXAMPLES / "valid.json").read_text()), indent=2)
    result = run_cli("verify", "--json", "-", stdin=("\n\n" + pretty).encode())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["index"] == 1
    lines = (EXAMPLES / "games.jsonl").read_text()
    result = run_cli("verify", "--json", "-", stdin=("\n" + lines).encode())
    assert [json.loads(x)["index"] for x in result.stdout.splitlines()] == [2, 3, 4, 5, 6, 7]


INPUTS: dict[str, dict[str, Any]] = load_json(RECORDS / "inputs.json")["inputs"]
VERDICT = {"valid": True, "invalid": False, "unreadable": None}


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_vector_inputs_give_their_results_line_by_line(name: str) -> None:
    """SPEC 8.1's reading rules (BOM, blank lines, stdin detection), as the vectors state them."""
    case = INPUTS[name]
    path = RECORDS / name
    expected = [[index, VERDICT[verdict]] for index, verdict in case["results"]]
    exit_code = max((EXIT[verdict] for _index, verdict in case["results"]), default=0)
    ways = [("-",)] if case["read_as"] == "stdin" else []
    if case["read_as"] == "path" or path.suffix == ".txt":  # any other name reads like stdin
        ways.append((str(path),))
    for args in ways:
        stdin = path.read_bytes() if args == ("-",) else None
        result = run_cli("verify", "--json", *args, stdin=stdin)
        objs = [json.loads(line) for line in result.stdout.splitlines()]
        assert [[o["index"], o["valid"]] for o in objs] == expected, (args, result.stdout)
        assert result.returncode == exit_code, (args, result.stderr)
        for obj in objs:
            if obj["valid"] is None:  # SPEC 8.5: the error names the file and the index
                assert obj["error"].startswith(f"{args[0]}:{obj['index']}: "), obj["error"]
        assert "Traceback" not in result.stderr
