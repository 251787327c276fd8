"""The reading rules of SPEC 6.3, 7 and 8.1 at their edges (issue 9, sections 6 and 11).

The small cases are vectors (schema/vectors/records, tests/cli/test_cli_verify.py);
these are the ones too big to check in (16 MiB lines) or about the reader's
own machinery: the value count before parsing, the stdin detection, the
big-integer writer, the boundary that never raises.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from support import json_texts as jt
from support.common import EXAMPLES, run_cli

from twenty48_replay import Record, RecordError
from twenty48_replay.bulk.sources import RawRecord, is_one_json_value, read_raw, read_records
from twenty48_replay.core.record import (
    MAX_INPUT_BYTES,
    MAX_VALUES,
    BigInteger,
    count_values,
    dumps_value,
    loads_strict,
)

GOOD = (EXAMPLES / "valid.json").read_bytes().strip().replace(b"\n", b"")


def padded(size: int) -> bytes:
    """The valid example record, padded with spaces to exactly ``size`` bytes."""
    return GOOD + b" " * (size - len(GOOD))


def results(*args: str, stdin: bytes | None = None) -> tuple[int, list[dict[str, Any]]]:
    done = run_cli("verify", "--json", *args, stdin=stdin, timeout=120)
    assert "Traceback" not in done.stderr
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def test_line_limit_does_not_count_the_lf(tmp_path: Path) -> None:
    lines = tmp_path / "edge.jsonl"
    lines.write_bytes(
        padded(MAX_INPUT_BYTES) + b"\n" + padded(MAX_INPUT_BYTES + 1) + b"\n" + GOOD + b"\n"
    )
    code, objs = results(str(lines))
    assert code == 2
    assert [(o["index"], o["valid"]) for o in objs] == [(1, True), (2, None), (3, True)]
    assert objs[1]["error"].startswith(f"{lines}:2: line is over the limit of 16,777,216 bytes")
    last = tmp_path / "last.jsonl"  # the last line needs no LF, and is held to the same limit
    last.write_bytes(padded(MAX_INPUT_BYTES))
    assert [o["valid"] for o in results(str(last))[1]] == [True]


def test_document_limit_counts_every_byte_and_names_index_1(tmp_path: Path) -> None:
    edge = tmp_path / "edge.json"
    edge.write_bytes(b"\xef\xbb\xbf" + padded(MAX_INPUT_BYTES - 3))
    over = tmp_path / "over.json"
    over.write_bytes(padded(MAX_INPUT_BYTES + 1))
    code, objs = results(str(edge), str(over))
    assert code == 2
    assert [(o["index"], o["valid"]) for o in objs] == [(1, True), (1, None)]
    assert objs[1]["error"].startswith(f"{over}:1: file is 16,777,217 bytes, over the limit")


def test_oversize_stdin_is_read_as_json_lines() -> None:
    data = padded(MAX_INPUT_BYTES - 100) + b"\n" + padded(200) + b"\n"
    code, objs = results("-", stdin=data)
    assert code == 0
    assert [(o["index"], o["valid"]) for o in objs] == [(1, True), (2, True)]


def test_stdin_detection_follows_the_nesting_and_value_limits() -> None:
    deep = b"[" * 100 + b"]" * 100
    assert is_one_json_value(deep)
    assert not is_one_json_value(b"[" + deep + b"]")
    assert is_one_json_value(b"[" + b",".join([b"0"] * (MAX_VALUES - 1)) + b"]")
    assert not is_one_json_value(b"[" + b",".join([b"0"] * MAX_VALUES) + b"]")
    assert is_one_json_value(b'\xef\xbb\xbf {"a": 1, "a": 1e400}\n')  # grammar only
    assert not is_one_json_value(b"NaN")
    assert not is_one_json_value(b"1 2")
    assert not is_one_json_value(b"\xff")


@given(jt.json_values)
def test_value_count_is_exact(value: tuple[str, bool]) -> None:
    text = value[0]

    def count(v: Any) -> int:
        if isinstance(v, dict):
            return 1 + sum(count(x) for x in v.values())
        if isinstance(v, list):
            return 1 + sum(count(x) for x in v)
        return 1

    data = text.encode("utf-8", "surrogatepass")
    spaced = b", \n".join(data.split(b",")).replace(b"[", b"[ \r")  # whitespace must not count
    truth = count(json.loads(text, parse_float=lambda t: 0, parse_constant=float))
    # The quick bound is exact only past the limit; force the exact pass with padding.
    padding = b"," * MAX_VALUES
    exact = count_values(b'["' + padding + b'",' + spaced + b"]") - 2
    assert exact == truth
    assert count_values(data) >= truth


def test_value_limit_edges() -> None:
    head = b'{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":['
    at = head + b",".join([b"[]"] * (MAX_VALUES - 7)) + b"]}"
    assert Record.from_json(at).extra["x"][-1] == []
    over = head + b",".join([b"[]"] * (MAX_VALUES - 6)) + b"]}"
    with pytest.raises(RecordError, match="1,000,001 JSON values, over the limit of 1,000,000"):
        Record.from_json(over)


def test_big_integers_are_written_back_exactly_whatever_the_strings_around_them() -> None:
    digits = "-" + "7" * 5000
    value = {
        "a": BigInteger(digits),
        "lookalike": "\x00" + "0" * 16 + ":0",
        "b": [BigInteger("1" * 700)],
    }
    text = dumps_value(value)
    assert text == (
        '{"a":' + digits + ',"lookalike":"\\u00000000000000000000:0","b":[' + "1" * 700 + "]}"
    )
    assert loads_strict(text) == value


def test_bom_only_at_the_very_start() -> None:
    record = GOOD.decode()
    assert Record.from_json("\ufeff" + record) == Record.from_json(record)
    for bad in ("\ufeff\ufeff" + record, " \ufeff" + record):
        with pytest.raises(RecordError, match=r"BOM|not JSON"):
            Record.from_json(bad)
    with pytest.raises(RecordError, match="BOM"):
        Record.from_json(("\ufeff" + record).encode(), bom=False)


def test_readers_never_raise(tmp_path: Path) -> None:
    nul = [item.error.message for item in read_records("a\x00b.json") if item.error]
    assert nul == ["a\x00b.json: cannot be read: embedded null byte"]
    raw = RawRecord("x.jsonl", 3, b'{"a": ' + b"[" * 200_000 + b"}")
    item = raw.parse()
    assert item.record is None
    assert item.error is not None
    assert item.error.message.startswith("x.jsonl:3: ")
    weird = list(read_raw("-", io.BytesIO(b"\x0b\n\x0c")))
    assert [(r.index, r.data) for r in weird] == [(1, b"\x0b"), (2, b"\x0c")]
    assert all(r.parse().error is not None for r in weird)


def test_a_directory_does_not_follow_links_to_directories(tmp_path: Path) -> None:
    """SPEC 8.1 (command line): record files below a directory, sorted, links to dirs skipped."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "b.json").write_bytes(GOOD)
    (tmp_path / "in" / "a.jsonl").write_bytes(GOOD + b"\n")
    (tmp_path / "in" / "a.txt").write_bytes(GOOD)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "c.json").write_bytes(GOOD)
    (tmp_path / "in" / "link").symlink_to(tmp_path / "out", target_is_directory=True)
    (tmp_path / "in" / "loop").symlink_to(tmp_path / "in", target_is_directory=True)
    code, objs = results(str(tmp_path / "in"))
    assert code == 0
    assert [o["file"] for o in objs] == [str(tmp_path / "in" / n) for n in ("a.jsonl", "b.json")]


def test_closed_standard_input_is_one_unreadable_result() -> None:
    exe = Path(sys.executable).with_name("twenty48")
    done = subprocess.run(
        ["sh", "-c", f"exec '{exe}' verify --json - <&-"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert json.loads(done.stdout)["error"] == "-: cannot be read: standard input is closed"
    assert "Traceback" not in done.stderr


def test_value_count_is_linear_on_unterminated_strings(tmp_path: Path) -> None:
    """Thousands of unclosed ``"\\`` before a million commas: refused at once, not in hours."""
    hostile = tmp_path / "hostile.json"
    hostile.write_bytes(b'"\\' * 3_000_000 + b"," * (MAX_VALUES + 1))
    done = run_cli("verify", "--json", str(hostile), timeout=60)
    assert done.returncode == 2
    assert json.loads(done.stdout)["error"].startswith(f"{hostile}:1: not JSON: Invalid \\escape")
