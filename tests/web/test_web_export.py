"""``twenty48 export --format html``: the self-verifying replay page, opened in headless Chromium.

Every page here is made by the real CLI (or by ``web.page`` for inputs the
CLI refuses) and opened from ``file://``; the verdict the page computes in
JavaScript is compared with ``twenty48 verify --json`` and the boards it shows
with the library's own replay (:class:`twenty48_replay.core.timeline.Timeline`).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from support.browser import PHONE, BrowserPage
from support.common import EXAMPLES, ROOT, VECTORS, run_cli
from support.hostile import hostile_record

from twenty48_replay.core.record import Record
from twenty48_replay.core.text import printable, printable_lines
from twenty48_replay.core.timeline import Timeline
from twenty48_replay.web.page import page_code, replay_page, script_json

LONG_GAME = ROOT / "tests" / "data" / "long-20000.json"
FAIR = VECTORS / "fair"
KEY = FAIR / "key.pem"

#: Text that would become markup, end the data element or break a JS string if not escaped.
HTML_HOSTILE = "</script><script>document.title='pwned'</script><!--\"'\u2028\u2029&amp;<b>x</b>"

BOARD_JS = "[...document.querySelectorAll('#board .t48-cell')].map(c => Number(c.dataset.value))"


def export_html(source: Path, out: Path, *extra: str, expect: int = 0) -> Path:
    result = run_cli("export", str(source), "--format", "html", "-o", str(out), *extra)
    assert result.returncode == expect, result.stderr
    assert result.stdout == ""
    return out


def verify_json(source: Path, *extra: str) -> dict[str, Any]:
    result = run_cli("verify", "--json", str(source), *extra)
    first: dict[str, Any] = json.loads(result.stdout.splitlines()[0])
    return first


def page_reasons(page: BrowserPage) -> list[str]:
    reasons: list[str] = page.page.evaluate(
        "[...document.querySelectorAll('#verdict-reasons li')].map(li => li.textContent)"
    )
    return reasons


def assert_same_verdict(page: BrowserPage, expected: dict[str, Any]) -> None:
    verdict = page.verdict()
    assert verdict["valid"] == ("true" if expected["valid"] else "false")
    assert verdict["score"] == str(expected["score"])
    assert verdict["max_tile"] == str(expected["max_tile"])
    assert verdict["moves"] == str(expected["moves"])
    assert page_reasons(page) == [printable(reason) for reason in expected["reasons"]]
    box = page.page.locator("#verdict")
    assert box.get_attribute("data-fair") == expected["fair"]
    assert box.get_attribute("data-signature") == (expected["signature"] or "")
    assert page.errors == []


def shown_board(page: BrowserPage) -> list[int]:
    board: list[int] = page.page.evaluate(BOARD_JS)
    return board


def shown_step(page: BrowserPage) -> int:
    return int(page.page.locator("#slider").input_value())


def jump(page: BrowserPage, step: int) -> None:
    page.page.evaluate(
        """(n) => { const s = document.getElementById('slider');
                    s.value = String(n); s.dispatchEvent(new Event('input')); }""",
        step,
    )


# ---- the page as text: escaping, size, policy (no browser needed)


def test_script_json_is_inert_in_html_and_reads_back_the_same() -> None:
    value = {"record": HTML_HOSTILE, "x": ["]]>", "\u2028", "é🎲", "\x00\x1f"]}
    text = script_json(value)
    assert json.loads(text) == value
    assert text.isascii()
    for forbidden in ("<", ">", "&", "\u2028", "\u2029"):
        assert forbidden not in text


class _Structure(HTMLParser):
    """Counts elements, and keeps the data element's raw text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.in_data = False
        self.data = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.in_data = tag == "script" and ("type", "application/json") in attrs

    def handle_endtag(self, tag: str) -> None:
        self.in_data = False

    def handle_data(self, data: str) -> None:
        if self.in_data:
            self.data += data


def structure(html: str) -> _Structure:
    parser = _Structure()
    parser.feed(html)
    parser.close()
    return parser


def hostile_html_record() -> Record:
    data = hostile_record(moves=30, seed=HTML_HOSTILE)
    data["player"] = HTML_HOSTILE
    data["notes"] = "line 1\n" + HTML_HOSTILE
    data["started"] = HTML_HOSTILE
    return Record.from_dict(data)


def test_record_text_cannot_add_markup_to_the_page() -> None:
    plain = Record.from_json((EXAMPLES / "valid.json").read_text(encoding="utf-8"))
    hostile = hostile_html_record()
    hostile_page = replay_page(hostile)
    assert structure(hostile_page).tags == structure(replay_page(plain)).tags
    assert hostile_page.count("</script") == 2  # the data element's and the code's, no more
    assert "<!--" not in hostile_page
    assert "\u2028" not in hostile_page
    assert "\u2029" not in hostile_page
    embedded = json.loads(structure(hostile_page).data)
    assert embedded == {"record": hostile.to_json(), "trust": None}


def test_page_code_is_at_most_100_kb() -> None:
    script, style = page_code()
    whole_page_without_record = len(replay_page("").encode("utf-8"))
    print(f"script {len(script):,} B, style {len(style):,} B, page {whole_page_without_record:,} B")
    assert whole_page_without_record <= 100_000


def test_page_allows_its_own_code_only() -> None:
    html = replay_page(Record.from_json((EXAMPLES / "valid.json").read_text(encoding="utf-8")))
    match = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert match is not None
    policy = dict(part.strip().split(" ", 1) for part in match.group(1).split(";"))
    assert policy["default-src"] == "'none'"
    assert "connect-src" not in policy
    assert "unsafe-inline" not in match.group(1)
    assert "unsafe-eval" not in match.group(1)
    assert policy["script-src"].startswith("'sha256-")
    assert policy["style-src"].startswith("'sha256-")


def test_palette_is_the_pictures_palette() -> None:
    from twenty48_replay.pictures import style

    _script, css = page_code()
    for value in (2, 4, 8, 2048, 4096):
        background, text = style.tile_colours(value)
        assert f".t48-cell.v{value}{{background:{background};color:{text}}}" in css
    assert f"--t48-board:{style.BOARD}" in css


# ---- the CLI


def test_export_html_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    out = tmp_path / "page.html"
    unreadable = run_cli(
        "export", str(EXAMPLES / "malformed-score-float.json"), "-f", "html", "-o", str(out)
    )
    assert unreadable.returncode == 2
    assert unreadable.stderr == (
        f"twenty48: error: {EXAMPLES / 'malformed-score-float.json'}:1: field 'score': "
        "12.0 (a number with a fraction or exponent) is not an integer\n"
    )
    assert not out.exists()
    for args in (["-f", "svg", "--trust", str(KEY)], ["--all", "-f", "html"]):
        refused = run_cli(
            "export",
            *([] if "--all" in args else [str(EXAMPLES / "valid.json")]),
            *args,
            "-o",
            str(out),
        )
        assert refused.returncode == 2
        assert refused.stderr.startswith("twenty48: error: ")
        assert not out.exists()
    bad_key = run_cli(
        "export", str(FAIR / "record.json"), "-f", "html", "--trust", str(tmp_path / "nokey")
    )
    assert bad_key.returncode == 2
    assert bad_key.stdout == ""
    # -o never replaces the record it reads.
    copy = tmp_path / "valid.json"
    copy.write_bytes((EXAMPLES / "valid.json").read_bytes())
    same = run_cli("export", str(copy), "-f", "html", "-o", str(copy))
    assert same.returncode == 2
    assert copy.read_bytes() == (EXAMPLES / "valid.json").read_bytes()


def test_export_html_of_an_invalid_record_writes_the_page_and_exits_1(tmp_path: Path) -> None:
    result = run_cli(
        "export", str(EXAMPLES / "tampered-score.json"), "-f", "html", "-o", str(tmp_path / "p")
    )
    assert result.returncode == 1
    assert "INVALID: claimed score 7010, replayed 7008" in result.stderr
    assert (tmp_path / "p").read_text(encoding="utf-8").startswith("<!doctype html>")


# ---- in the browser


@pytest.mark.parametrize(
    "name", sorted(p.name for p in EXAMPLES.iterdir() if p.name != "malformed-score-float.json")
)
def test_every_example_page_gives_the_verdict_of_verify(
    name: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    source = EXAMPLES / name
    expected = verify_json(source)
    page_file = export_html(source, tmp_path / "p.html", expect=0 if expected["valid"] else 1)
    browser_page.open(page_file)
    assert_same_verdict(browser_page, expected)
    text = browser_page.verdict()["text"] or ""
    if expected["valid"]:
        assert (
            f"verified: score {expected['score']}, max tile {expected['max_tile']}, "
            f"{expected['moves']} moves" in text
        )
    else:
        assert "NOT verified" in text
    note = browser_page.page.locator("#verdict-note")
    null_move = [r for r in expected["reasons"] if "is not a valid move" in r]
    assert note.is_visible() == bool(null_move)
    if null_move:
        number = null_move[0].split()[1]
        assert (note.text_content() or "").startswith(f"Move {number} changes nothing")


def test_the_20000_move_record(browser_page: BrowserPage, tmp_path: Path) -> None:
    expected = verify_json(LONG_GAME)
    assert expected["valid"] is True
    assert expected["moves"] == 20_000
    browser_page.open(export_html(LONG_GAME, tmp_path / "long.html"))
    assert_same_verdict(browser_page, expected)
    timeline = Timeline(Record.from_json(LONG_GAME.read_text(encoding="utf-8")))
    for step in (20_000, 0, 12_345, 19_999, 1):
        jump(browser_page, step)
        assert shown_board(browser_page) == list(timeline[step].board.cells())


def test_stepping_and_jumping_show_the_librarys_boards(
    browser_page: BrowserPage, tmp_path: Path
) -> None:
    source = EXAMPLES / "valid.json"
    timeline = Timeline(Record.from_json(source.read_text(encoding="utf-8")))
    page = browser_page
    page.open(export_html(source, tmp_path / "p.html"))
    page.verdict()

    def check(step: int) -> None:
        assert shown_step(page) == step
        assert shown_board(page) == list(timeline[step].board.cells())
        assert page.page.locator("#score").text_content() == str(timeline[step].score)
        caption = page.page.locator("#step-caption").text_content() or ""
        assert caption.startswith(f"move {step} / {timeline.last}")

    check(0)
    page.page.locator("body").click()
    for step in range(1, 6):
        page.page.keyboard.press("ArrowRight")
        check(step)
    page.page.keyboard.press("ArrowUp")
    check(15)
    page.page.keyboard.press("ArrowLeft")
    check(14)
    page.page.keyboard.press("ArrowDown")
    check(4)
    page.page.keyboard.press("End")
    check(timeline.last)
    page.page.keyboard.press("ArrowRight")  # stays at the end
    check(timeline.last)
    page.page.keyboard.press("Home")
    check(0)
    page.page.locator("#next").click()
    check(1)
    page.page.locator("#last").click()
    check(timeline.last)
    page.page.locator("#prev").click()
    check(timeline.last - 1)
    page.page.locator("#first").click()
    check(0)
    for step in random.Random(11).sample(range(timeline.last + 1), 25):
        jump(page, step)
        check(step)
    page.page.locator("#slider").focus()  # the slider's own arrow keys move one step
    page.page.keyboard.press("ArrowRight")
    check(step + 1 if step < timeline.last else step)
    assert page.errors == []


def test_autoplay_plays_and_pauses(browser_page: BrowserPage, tmp_path: Path) -> None:
    page = browser_page
    page.open(export_html(EXAMPLES / "valid.json", tmp_path / "p.html"))
    page.verdict()
    page.page.select_option("#speed", "500")
    page.page.locator("#play").click()
    assert page.page.locator("#play").text_content() == "Pause"
    page.wait_for("Number(document.getElementById('slider').value) >= 50")
    page.page.locator("#play").click()
    assert page.page.locator("#play").text_content() == "Play"
    paused_at = shown_step(page)
    page.page.wait_for_timeout(200)
    assert shown_step(page) == paused_at
    page.page.locator("body").click()
    page.page.keyboard.press("Space")
    assert page.page.locator("#play").text_content() == "Pause"
    page.page.keyboard.press("Space")
    assert page.page.locator("#play").text_content() == "Play"
    page.page.locator("#play").click()  # plays on to the end, then stops by itself
    page.wait_for("document.getElementById('play').textContent === 'Play'")
    assert shown_step(page) == 472
    assert page.errors == []


def test_hostile_record_text_is_shown_as_text(browser_page: BrowserPage, tmp_path: Path) -> None:
    record = hostile_html_record()
    source = tmp_path / "hostile.json"
    source.write_text(record.to_json(), encoding="utf-8")
    expected = verify_json(source)
    page = browser_page
    page.open(export_html(source, tmp_path / "p.html"))
    assert_same_verdict(page, expected)
    assert page.page.title() != "pwned"
    assert page.page.evaluate("document.querySelectorAll('script').length") == 2
    assert page.page.evaluate("document.querySelectorAll('b').length") == 0
    details = dict(
        zip(
            page.page.locator("#details dt").all_text_contents(),
            page.page.locator("#details dd").all_text_contents(),
            strict=True,
        )
    )
    assert details["Player"] == printable(HTML_HOSTILE)
    assert details["Seed"] == printable(HTML_HOSTILE)
    assert details["Started"] == printable(HTML_HOSTILE)
    assert details["Notes"] == printable_lines("line 1\n" + HTML_HOSTILE)
    assert "\u2028" not in details["Player"]
    assert "\\u2028" in details["Player"]


def test_terminal_controls_are_made_visible_like_the_cli(
    browser_page: BrowserPage, tmp_path: Path
) -> None:
    data = hostile_record()
    page_file = tmp_path / "p.html"
    page_file.write_text(replay_page(json.dumps(data)), encoding="utf-8")
    browser_page.open(page_file)
    assert browser_page.verdict()["valid"] == "true"
    shown = browser_page.page.locator("#details dd").all_text_contents()
    assert printable(data["player"]) in shown
    assert printable_lines(data["notes"]) in shown


def test_unreadable_record_page_says_why(browser_page: BrowserPage, tmp_path: Path) -> None:
    page_file = tmp_path / "p.html"
    text = (EXAMPLES / "malformed-score-float.json").read_text(encoding="utf-8")
    page_file.write_text(replay_page(text), encoding="utf-8")
    browser_page.open(page_file)
    verdict = browser_page.verdict()
    assert verdict["valid"] == "false"
    assert "cannot be read" in (verdict["text"] or "")
    assert any("score" in reason for reason in page_reasons(browser_page))
    assert browser_page.errors == []


def _fair_cases() -> list[tuple[str, bool]]:
    cases = json.loads((FAIR / "expected.json").read_text(encoding="utf-8"))["cases"]
    return [(case["file"], keyed) for case in cases for keyed in (False, True)]


@pytest.mark.parametrize(("name", "keyed"), _fair_cases())
def test_fair_pages_give_the_verdict_of_verify(
    name: str, keyed: bool, browser_page: BrowserPage, tmp_path: Path
) -> None:
    source = FAIR / name
    trust = ["--trust", str(KEY)] if keyed else []
    expected = verify_json(source, *trust)
    page_file = export_html(
        source, tmp_path / "p.html", *trust, expect=0 if expected["valid"] else 1
    )
    browser_page.open(page_file)
    assert_same_verdict(browser_page, expected)
    checks = browser_page.page.locator("#fair-checks li").all_text_contents()
    assert checks[0].startswith(f"Fair play: {expected['fair']} (")
    signature_line = checks[-1]
    if keyed:
        assert "not checked" not in signature_line
    else:
        assert "Signature: not checked" in signature_line


def test_fair_page_with_another_key_is_not_fair(browser_page: BrowserPage, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    other = tmp_path / "other.pem"
    other.write_bytes(
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    trust = ["--trust", str(other)]
    expected = verify_json(FAIR / "record.json", *trust)
    assert expected["fair"] == "not fair"
    browser_page.open(export_html(FAIR / "record.json", tmp_path / "p.html", *trust, expect=1))
    assert_same_verdict(browser_page, expected)


def test_pages_make_no_network_request(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    for source, trust in (
        (EXAMPLES / "valid.json", []),
        (FAIR / "record.json", ["--trust", str(KEY)]),
    ):
        page_file = export_html(source, tmp_path / f"{source.stem}.html", *trust)
        for viewport in (None, PHONE):
            page = new_browser_page(viewport=viewport)
            page.open(page_file)
            page.verdict()
            page.page.locator("#play").click()
            page.page.keyboard.press("End")
            page.page.wait_for_timeout(100)
            assert page.requests == [page_file.resolve().as_uri()]
            assert page.errors == []


def test_compact_css_keeps_every_rule() -> None:
    from twenty48_replay.web.page import compact_css
    from twenty48_replay.web.theme import stylesheet

    css = stylesheet()
    compact = compact_css(css)
    assert "/*" not in compact
    assert len(compact) < len(css)
    assert compact.count("{") == css.count("{") == compact.count("}")


@pytest.mark.parametrize("width", [320, 390, 1280])
def test_page_fits_the_screen(
    width: int, new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    page_file = export_html(LONG_GAME, tmp_path / "p.html")
    page = new_browser_page(viewport={"width": width, "height": 800})
    page.open(page_file)
    page.verdict()
    page.page.keyboard.press("End")  # the widest numbers: 6-digit score, 5-digit tiles
    assert page.page.evaluate("document.documentElement.scrollWidth") <= width
    board = page.page.locator("#board").bounding_box()
    assert board is not None
    assert abs(board["width"] - board["height"]) < 1
    assert board["width"] <= min(width, 500)
    for cell in page.page.locator("#board .t48-cell").all():
        text_box = cell.evaluate(
            "c => { const r = document.createRange(); r.selectNodeContents(c);"
            " const t = r.getBoundingClientRect(), b = c.getBoundingClientRect();"
            " return t.width <= b.width && t.height <= b.height; }"
        )
        assert text_box, cell.text_content()


def _verdict_colours(page: BrowserPage) -> tuple[str, str]:
    colours: list[str] = page.page.evaluate(
        "[getComputedStyle(document.querySelector('#verdict')).borderLeftColor,"
        " getComputedStyle(document.querySelector('#verdict .t48-mark')).color]"
    )
    return colours[0], colours[1]


def test_a_verified_verdict_is_green_and_a_false_one_red(
    browser_page: BrowserPage, tmp_path: Path
) -> None:
    """A yellow bar (the 2048 tile) read as a warning in a new-user trial: valid is green."""
    browser_page.open(export_html(EXAMPLES / "valid.json", tmp_path / "ok.html"))
    assert browser_page.verdict()["valid"] == "true"
    assert _verdict_colours(browser_page) == ("rgb(46, 125, 50)", "rgb(46, 125, 50)")
    bad = export_html(EXAMPLES / "tampered-score.json", tmp_path / "bad.html", expect=1)
    browser_page.open(bad)
    assert browser_page.verdict()["valid"] == "false"
    assert _verdict_colours(browser_page) == ("rgb(246, 94, 59)", "rgb(246, 94, 59)")
