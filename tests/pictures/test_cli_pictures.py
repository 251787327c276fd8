"""`twenty48 export --format svg|gif` end to end: real files, parsed back."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from PIL import Image
from support.common import EXAMPLES, ROOT, run_cli

from twenty48_replay import Record, replay

SVG = "{http://www.w3.org/2000/svg}"


def svg_cells(path: Path) -> list[int]:
    """The 16 tile values drawn in an SVG, read from the tiles' t48:cell/t48:value attributes."""
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    cells = [0] * 16
    for element in root.iter():
        attrs = {k.split("}")[-1]: v for k, v in element.attrib.items() if "}" in k}
        if "cell" in attrs and "value" in attrs:
            cells[int(attrs["cell"])] = int(attrs["value"])
    return cells


def test_svg_of_a_record_file_at_a_step(tmp_path: Path) -> None:
    path = ROOT / "tests" / "data" / "long-2000.json"
    steps = list(replay(Record.from_json(path.read_text())))
    for at in ("-1", "948", "0"):
        out = tmp_path / f"at{at}.svg"
        result = run_cli("export", str(path), "--format", "svg", "--at", at, "-o", str(out))
        assert result.returncode == 0, result.stderr
        assert svg_cells(out) == list(steps[int(at)].board)


def test_svg_of_a_stored_game_to_stdout(tmp_path: Path) -> None:
    db = str(tmp_path / "p.sqlite3")
    run_cli("import", "--db", db, str(EXAMPLES / "valid.json"))
    result = run_cli("export", "1", "--db", db, "--format", "svg")
    assert result.returncode == 0
    out = tmp_path / "stdout.svg"
    out.write_text(result.stdout)
    last = list(replay(Record.from_json((EXAMPLES / "valid.json").read_text())))[-1]
    assert svg_cells(out) == list(last.board)


def test_gif_frames_and_range(tmp_path: Path) -> None:
    out = tmp_path / "replay.gif"
    result = run_cli(
        "export",
        str(EXAMPLES / "valid.json"),
        "-f",
        "gif",
        "--steps",
        "10:60",
        "--frame-ms",
        "50",
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    with Image.open(out) as image:
        assert getattr(image, "n_frames", 1) == 50
        image.seek(5)
        assert image.info["duration"] == 50


def test_picture_errors_are_usage_errors(tmp_path: Path) -> None:
    # A long path: usage errors stay on one line however long the message is.
    deep = tmp_path / ("long-directory-name-" * 4) / ("nested-" * 8)
    deep.mkdir(parents=True)
    record = deep / "valid.json"
    record.write_bytes((EXAMPLES / "valid.json").read_bytes())
    result = run_cli("export", str(record), "-f", "svg", "--at", "9999")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        f"twenty48: error: --at 9999: {record} has steps 0..472 (see 'twenty48 export -h')"
    ]
    result = run_cli("export", str(EXAMPLES / "valid.json"), "-f", "gif", "--steps", "x")
    assert result.returncode == 2
    result = run_cli("export", "--all", "-f", "svg", "--db", str(tmp_path / "e.sqlite3"))
    assert result.returncode == 2
