"""The replay page in the reader's language: one catalog for Python and JavaScript (issue 20 s.3).

The page's script renders reasons from their codes with templates generated
from :mod:`twenty48_replay.core.reasons` and translates them, and its own words,
with a catalog built from the Danish ``.po``.  These tests keep the
generated module and the catalog in sync with their sources, and open the
Danish page in headless Chromium.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from babel.messages.pofile import read_po
from support.browser import BrowserPage
from support.common import EXAMPLES, ROOT, VECTORS, run_cli
from support.fair_game import CLIENT_SEED, MOVES
from support.hostile_server import HostileServer
from support.pages import finished_game, get, play_on_the_page, python_verdict
from support.server_harness import ServerProcess

from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.i18n import translations
from twenty48_replay.core.reasons import TEMPLATES
from twenty48_replay.core.record import Record
from twenty48_replay.server.http.language import from_accept_language
from twenty48_replay.web.messages import (
    JS_READER_CODES,
    JS_REASON_CODES,
    LEADERBOARD_PAGE_MESSAGES,
    PAGE_MESSAGES,
    PLAY_PAGE_MESSAGES,
    WITNESS_CODES,
    page_catalog,
    page_messages,
    reason_templates_js,
    served_catalog,
    witness_templates_js,
)
from twenty48_replay.web.page import replay_page

JS = ROOT / "twenty48_replay" / "web" / "js"
PO = ROOT / "twenty48_replay" / "locale" / "da" / "LC_MESSAGES" / "twenty48.po"
FAIR = VECTORS / "fair"
TRANSLATED_LITERAL = re.compile(r'page(?:Say|T)\(\s*"((?:[^"\\]|\\.)*)"')
DETAIL_LABEL = re.compile(r'\[\s*"([A-Z][^"]*)",\s*(?:record|fair)\.')


def test_reason_templates_js_is_generated_from_the_python_table() -> None:
    committed = (JS / "reason_templates.js").read_text(encoding="utf-8")
    assert committed == reason_templates_js(), (
        "regenerate: python -c 'from twenty48_replay.web.messages import reason_templates_js; "
        'print(reason_templates_js(), end="")\' > twenty48_replay/web/js/reason_templates.js'
    )
    assert set(JS_REASON_CODES) <= set(TEMPLATES)


def test_witness_templates_js_is_generated_from_the_python_table() -> None:
    committed = (JS / "witness_templates.js").read_text(encoding="utf-8")
    assert committed == witness_templates_js()
    assert "witness.broken" in WITNESS_CODES
    script = (JS / "play_witness.js").read_text(encoding="utf-8")
    used = set(re.findall(r'reason\(\s*"([a-z_.]+)"', script))
    used |= set(re.findall(r'\? "(witness\.[a-z_.]+)" : "(?:witness\.[a-z_.]+)"', script))
    assert len(used) > 40
    assert used <= set(WITNESS_CODES), used - set(WITNESS_CODES)


def test_every_code_the_page_script_gives_has_its_template() -> None:
    used: set[str] = set()
    for path in JS.glob("*.js"):
        for line in path.read_text("utf-8").splitlines():
            # reason(...) anywhere, refuse(...) in record.js, JsonSyntax(...) in json.js
            given = any(call in line for call in ("reason(", "refuse(", "JsonSyntax("))
            if given and path.name != "play_witness.js":
                used |= set(re.findall(r'"([a-z]+\.[a-z_]+)"', line))
    assert {"claim.score", "fair.seed", "key.unlisted", "signature.mismatch"} <= used
    assert {"record.not_integer", "json.expecting_comma", "seed.too_long"} <= used
    known = set(JS_REASON_CODES) | set(JS_READER_CODES)
    assert used <= known, used - known


def test_page_catalog_is_the_danish_po() -> None:
    """The page's catalog says exactly what the .po says (through the committed .mo)."""
    with PO.open("rb") as handle:
        po = read_po(handle, locale="da")
    catalog = page_catalog("da")
    assert catalog is not None
    assert list(catalog) == list(page_messages())
    for english, danish in catalog.items():
        message = po.get(english)
        assert message is not None, english
        assert message.string, english
        assert danish == message.string, english
    assert page_catalog("en") is None


def test_every_word_the_page_script_translates_is_in_the_catalog() -> None:
    script = (JS / "replay_page.js").read_text(encoding="utf-8")
    literals = set(TRANSLATED_LITERAL.findall(script)) | set(DETAIL_LABEL.findall(script))
    status = re.search(r"PAGE_FAIR_STATUS = \{(.*?)\};", script, re.DOTALL)
    assert status is not None
    literals |= set(re.findall(r':\s*"([^"]+)"', status.group(1)))
    literals |= {"passed", "failed", "not checked"}
    viewer = (JS / "viewer.js").read_text(encoding="utf-8")
    said = set(re.findall(r'\bsay\(\s*"((?:[^"\\]|\\.)*)"', viewer))
    assert {"Pause", "Play", "game over", "move {step} / {last}"} <= said
    literals |= said
    assert len(literals) > 30
    assert literals <= set(PAGE_MESSAGES), literals - set(PAGE_MESSAGES)


def page_data(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="t48-data">(.*?)</script>', html)
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data


@pytest.mark.slow
def test_export_html_lang_da_writes_a_danish_page(tmp_path: Path) -> None:
    source = str(EXAMPLES / "tampered-score.json")
    pages = {}
    for language in ("en", "da"):
        out = tmp_path / f"{language}.html"
        result = run_cli("export", source, "--format", "html", "--lang", language, "-o", str(out))
        assert result.returncode == 1, result.stderr
        pages[language] = out.read_text(encoding="utf-8")
    assert '<html lang="da">' in pages["da"]
    assert '<html lang="en">' in pages["en"]
    assert "Bekræfter posten…" in pages["da"]
    assert "Verifying the record…" in pages["en"]
    assert "messages" not in page_data(pages["en"])
    danish = page_data(pages["da"])["messages"]
    assert danish["claimed score {claimed}, replayed {replayed}"] == (
        "påstået point {claimed}, genspillet {replayed}"
    )
    # The CLI's own language decides when --lang is not given.
    out = tmp_path / "cli-da.html"
    run_cli("--lang", "da", "export", source, "--format", "html", "-o", str(out))
    assert '<html lang="da">' in out.read_text(encoding="utf-8")


def test_export_lang_refuses_an_unknown_language_and_other_formats(tmp_path: Path) -> None:
    source = str(EXAMPLES / "valid.json")
    result = run_cli(
        "export", source, "--format", "html", "--lang", "xx", "-o", str(tmp_path / "x")
    )
    assert result.returncode == 2
    assert "--lang" in result.stderr
    result = run_cli("export", source, "--format", "svg", "--lang", "da", "-o", str(tmp_path / "y"))
    assert result.returncode == 2
    assert not (tmp_path / "x").exists()
    assert not (tmp_path / "y").exists()


def export_page(tmp_path: Path, source: Path, name: str, *extra: str) -> Path:
    out = tmp_path / name
    result = run_cli("export", str(source), "--format", "html", "-o", str(out), *extra)
    assert result.returncode in (0, 1), result.stderr
    return out


def page_reasons(page: BrowserPage) -> list[str]:
    reasons: list[str] = page.page.evaluate(
        "[...document.querySelectorAll('#verdict-reasons li')].map(li => li.textContent)"
    )
    return reasons


@pytest.mark.slow
def test_danish_page_shows_danish_reasons_and_checks(
    browser_page: BrowserPage, tmp_path: Path
) -> None:
    browser_page.open(
        export_page(tmp_path, EXAMPLES / "tampered-score.json", "d.html", "--lang", "da")
    )
    verdict = browser_page.verdict()
    assert verdict["valid"] == "false"
    assert page_reasons(browser_page) == ["påstået point 7010, genspillet 7008"]
    assert "IKKE bekræftet (genafspillet: 7008 point" in (verdict["text"] or "")
    assert browser_page.errors == []

    browser_page.open(
        export_page(
            tmp_path,
            FAIR / "other-key.json",
            "f.html",
            "--lang",
            "da",
            "--trust",
            str(FAIR / "key.pem"),
        )
    )
    reasons = page_reasons(browser_page)
    assert reasons == [
        "fair: underskrevet med nøglen 39f713d0a644253f, "
        "ikke med den betroede nøgle 21fe31dfa154a261"
    ]
    checks = browser_page.page.locator("#fair-checks li").all_text_contents()
    assert checks[0].startswith("Fair play: ikke fair")
    assert any(check.endswith("ikke med den betroede nøgle 21fe31dfa154a261") for check in checks)
    assert not any("signed by" in check or "Commitment: the" in check for check in checks)
    assert browser_page.errors == []


#: Unreadable records: each reading rule's reason, nested reasons among them.
UNREADABLE: Final = [
    (EXAMPLES / "malformed-score-float.json").read_text(encoding="utf-8"),
    '{"format": "twenty48-record", "version": 1, "seed": "s" "moves": ""}',
    '{"format": "twenty48-record", "version": 2, "seed": "s", "moves": "", "score": 0}',
    '{"format": "twenty48-record", "version": 1, "seed": "", "moves": "", "score": 0}',
    '{"format": "twenty48-record", "version": 1, "seed": "s", "moves": "LX", "score": 0}',
    '{"format": "twenty48-record", "version": 1, "seed": "s", "moves": "", "score": 0, '
    '"x": 1, "x": 2}',
    "[1e400]",
]


def danish_reading_reason(text: str) -> str:
    """What the CLI says in Danish of an unreadable record (its problem, without the file)."""
    with pytest.raises(RecordError) as caught:
        Record.from_json(text)
    danish = caught.value.problem.render(translations("da").gettext)
    assert danish != str(caught.value.problem)  # there is a Danish text to show
    return danish


@pytest.mark.parametrize("text", UNREADABLE)
def test_danish_page_says_why_a_record_is_unreadable_in_danish(
    text: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    """Issue 20 s.3: record.js and json.js gave English words only; now codes, read in Danish."""
    page_file = tmp_path / "unreadable.html"
    page_file.write_text(replay_page(text, language="da"), encoding="utf-8")
    browser_page.open(page_file)
    verdict = browser_page.verdict()
    assert verdict["valid"] == "false"
    assert "IKKE bekræftet: posten kan ikke læses" in (verdict["text"] or "")
    assert page_reasons(browser_page) == [danish_reading_reason(text)]
    assert browser_page.errors == []


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "da"])
def test_the_page_verdict_data_is_the_same_in_both_languages(
    language: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    browser_page.open(
        export_page(tmp_path, EXAMPLES / "tampered-score.json", "p.html", "--lang", language)
    )
    verdict = browser_page.verdict()
    assert (verdict["valid"], verdict["score"], verdict["moves"]) == ("false", "7008", "472")


#: The replay page shell's words a reader (or a screen reader) meets.
REPLAY_SHELL_WORDS: Final = (
    "the move that led here",
    "first position",
    "one move back",
    "autoplay (space)",
    "one move forward",
    "last position",
    "position in the game",
    "Speed",
    "Record",
    "Space",
    "board",
)


def assisted_record() -> str:
    """The example record, marked as played with hints (a flag among the details)."""
    record = json.loads((EXAMPLES / "valid.json").read_text(encoding="utf-8"))
    record["assisted"] = True
    return json.dumps(record)


@pytest.mark.slow
@pytest.mark.parametrize(("language", "yes"), [("en", "Yes"), ("da", "Ja")])
def test_the_replay_page_says_flags_and_labels_in_its_language(
    language: str, yes: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    """A flag is a word (not ``true``), and the labels a screen reader reads are translated."""
    page_file = tmp_path / f"assisted-{language}.html"
    page_file.write_text(replay_page(assisted_record(), language=language), encoding="utf-8")
    browser_page.open(page_file)
    assert browser_page.verdict()["valid"] == "true"
    page = browser_page.page
    details = dict(
        zip(
            page.locator("#details dt").all_text_contents(),
            page.locator("#details dd").all_text_contents(),
            strict=True,
        )
    )
    tr = translations(language).gettext
    assert details[tr("Assisted")] == yes
    assert "true" not in details.values()
    board = page.get_attribute("#board", "aria-label") or ""
    assert board.startswith(tr("board") + ": "), board
    assert page.locator(".t48-keys kbd").last.text_content() == tr("Space")
    if language == "da":
        assert board.startswith("bræt: ")
        text = page_text(page)
        assert "Mellemrum" in text
        assert_no_english(text, (*PAGE_MESSAGES, *REPLAY_SHELL_WORDS))
        labels = page.evaluate(
            "() => [...document.querySelectorAll('[aria-label]')]"
            ".map(e => e.getAttribute('aria-label'))"
        )
        assert not [label for label in labels if label.split(":")[0] in ("board", "Space")]
    assert browser_page.errors == []


# ---------------------------------------------------------------- the served replay page


def test_accept_language_picks_the_best_language_there_is_text_for() -> None:
    assert from_accept_language("") == "en"
    assert from_accept_language("da") == "da"
    assert from_accept_language("da-DK,da;q=0.9,en;q=0.8") == "da"
    assert from_accept_language("en-GB, da;q=0.5") == "en"
    assert from_accept_language("de, da;q=0.3, fr;q=0.9") == "da"
    assert from_accept_language("da;q=0, en;q=0.1") == "en"
    assert from_accept_language("da;q=abc, *;q=1") == "en"
    assert from_accept_language("x;q=1," * 10_000 + "da") == "en"  # bounded: read only so far


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    folder = tmp_path_factory.mktemp("served-language")
    with ServerProcess(str(folder / "web.sqlite3"), folder, "--no-analysis") as running:
        yield running


def test_served_replay_page_follows_accept_language_and_the_switch(
    served: ServerProcess,
) -> None:
    game, _record = finished_game(served, "sprog")
    path = f"/games/{game.id}"
    status, headers, body = get(served, path)
    assert status == 200
    assert '<html lang="en">' in body.decode()
    assert "Accept-Language" in headers["vary"]
    status, headers, body = get(served, path, **{"Accept-Language": "da-DK,da;q=0.9,en;q=0.5"})
    page = body.decode()
    assert '<html lang="da">' in page
    assert f">{translations('da').pgettext('site', 'Play')}<" in page
    assert 'href="?lang=en"' in page
    assert "set-cookie" not in headers
    # The switch: ?lang= speaks that language and is remembered in a cookie.
    status, headers, body = get(served, path + "?lang=en", **{"Accept-Language": "da"})
    assert '<html lang="en">' in body.decode()
    assert headers["set-cookie"].startswith("t48_lang=en;")
    status, headers, body = get(served, path, **{"Accept-Language": "da", "Cookie": "t48_lang=en"})
    assert '<html lang="en">' in body.decode()
    # A cookie or a parameter that names no language changes nothing.
    status, headers, body = get(served, path + "?lang=xx", **{"Cookie": "t48_lang=zz"})
    assert status == 200
    assert '<html lang="en">' in body.decode()
    assert "set-cookie" not in headers


SITE_HEADER: Final = re.compile(r'<header class="site">.*?</header>', re.DOTALL)


@pytest.mark.parametrize("language", ["en", "da"])
def test_every_served_page_has_the_same_site_header(language: str, served: ServerProcess) -> None:
    """The play, leaderboard, replay and error pages: one header, one navigation."""
    game, _record = finished_game(served, f"nav-{language}")
    asked = {"Accept": "text/html", "Accept-Language": language}
    headers = {}
    for path in ("/", "/leaderboard", f"/games/{game.id}", "/games/999999"):
        _status, _headers, body = get(served, path, **asked)
        found = SITE_HEADER.findall(body.decode())
        assert len(found) == 1, path
        headers[path] = found[0].replace(' aria-current="page"', "")
    assert len(set(headers.values())) == 1, headers
    header = headers["/"]
    tr = translations(language)
    assert f">{tr.pgettext('site', 'Play')}</a>" in header
    assert f">{tr.gettext('Leaderboard')}</a>" in header
    assert 'href="?lang=da"' in header
    assert "t48-site-nav" not in get(served, f"/games/{game.id}")[2].decode()


def test_error_pages_follow_the_readers_language(served: ServerProcess) -> None:
    html_da = {"Accept": "text/html", "Accept-Language": "da"}
    status, headers, body = get(served, "/games/999999", **html_da)
    page = body.decode()
    assert status == 404
    assert '<html lang="da">' in page
    assert "404 Ikke fundet" in page
    assert "Intet spil med id 999999" in page
    assert "Not Found" not in page
    assert "Accept-Language" in headers["vary"]
    status, _headers, body = get(served, "/no/such/page", **html_da)
    assert status == 404
    assert "Der er ingen side på denne adresse." in body.decode()
    status, _headers, body = get(served, "/games/999999", Accept="text/html")
    assert "404 Not Found" in body.decode()
    assert "No game with id 999999" in body.decode()
    # The API's JSON does not change with the language.
    english = get(served, "/api/games/999999")
    danish = get(served, "/api/games/999999", **{"Accept-Language": "da"})
    assert english[0] == danish[0] == 404
    assert english[2] == danish[2]


def test_error_pages_have_the_language_switch(served: ServerProcess) -> None:
    """A 404 page has the English/Dansk switch of every other page, and the switch works
    (issue 20 s.3: the served error pages had none)."""
    for path in ("/games/999999", "/no/such/page"):
        status, headers, body = get(served, path, Accept="text/html")
        page = body.decode()
        assert status == 404
        assert '<a href="?lang=da" lang="da" hreflang="da" class="language">Dansk</a>' in page
        assert '<a href="?lang=en" lang="en" hreflang="en" class="language">English</a>' in page
        assert "set-cookie" not in headers
        status, headers, body = get(served, path + "?lang=da", Accept="text/html")
        assert status == 404
        assert '<html lang="da">' in body.decode()
        assert "404 Ikke fundet" in body.decode()
        assert headers["set-cookie"].startswith("t48_lang=da;")
        status, headers, body = get(
            served, path + "?lang=en", Accept="text/html", Cookie="t48_lang=da"
        )
        assert '<html lang="en">' in body.decode()
        assert headers["set-cookie"].startswith("t48_lang=en;")


# ---------------------------------------------------------------- the play and leaderboard pages

SAID_LITERAL = re.compile(r'\bsay\(\s*"((?:[^"\\]|\\.)*)"')
#: Placeholders and the words around them: the English a person could read.
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def said_literals(module: str) -> set[str]:
    return set(SAID_LITERAL.findall((JS / module).read_text(encoding="utf-8")))


def test_every_word_the_play_and_leaderboard_scripts_say_is_in_the_catalog() -> None:
    play = said_literals("play_page.js")
    play |= set(
        re.findall(r'reveal\((?:[^"]*\? )?"([A-Z][^"]+)"', (JS / "play_page.js").read_text())
    )
    client = (JS / "api_client.js").read_text(encoding="utf-8")
    client += (JS / "play_page.js").read_text(encoding="utf-8")
    client_words = set(re.findall(r'(?:new ApiUnusable|apiWords)\(\s*"((?:[^"\\]|\\.)*)"', client))
    assert len(client_words) == 7, client_words
    play |= client_words
    assert {"Game over", "Game ended", "none yet", "Not fair"} <= play
    assert len(play) > 20
    assert play <= set(PLAY_PAGE_MESSAGES), play - set(PLAY_PAGE_MESSAGES)
    board = said_literals("leaderboard_page.js")
    assert {"replay", "bot?", "1 player.", "registered name: played with its secret"} <= board
    assert board <= set(LEADERBOARD_PAGE_MESSAGES), board - set(LEADERBOARD_PAGE_MESSAGES)
    with PO.open("rb") as handle:
        po = read_po(handle, locale="da")
    for words in (PLAY_PAGE_MESSAGES, LEADERBOARD_PAGE_MESSAGES):
        catalog = served_catalog("da", words)
        assert catalog is not None
        # The page's words, and every reason the play witness and the verifier may give.
        assert set(words) | {TEMPLATES[code] for code in WITNESS_CODES} <= set(catalog)
        for english, danish in catalog.items():
            message = po.get(english)
            assert message is not None, english
            assert message.string == danish, english
        assert served_catalog("en", words) is None


def english_fragments(words: tuple[str, ...], language: str = "da") -> set[str]:
    """The English pieces of ``words`` that a page in ``language`` must not show.

    Words the catalog keeps as they are (``Fair play``, ``bot?``) are left out,
    and so are short pieces between placeholders (a number's neighbour like ``.``).
    """
    tr = translations(language).gettext
    pieces: set[str] = set()
    for english in words:
        if tr(english) == english:
            continue
        pieces |= {p.strip() for p in PLACEHOLDER.split(english) if len(p.strip()) >= 6}
    return pieces


def shell_words(html: str) -> set[str]:
    """What a reader sees of a shell without its scripts: text, titles, placeholders, labels."""
    without = re.sub(r"<script\b.*?</script>", "", html, flags=re.DOTALL)
    seen = set(re.findall(r">([^<>]+)<", without))
    seen |= set(re.findall(r'(?:placeholder|aria-label|title)="([^"]*)"', without))
    return {" ".join(text.split()) for text in seen if text.strip()}


def test_served_play_and_leaderboard_pages_follow_the_reader(served: ServerProcess) -> None:
    for path, kind in (("/", "play"), ("/leaderboard", "leaderboard")):
        status, headers, body = get(served, path)
        english = body.decode()
        assert status == 200
        assert '<html lang="en">' in english
        assert "t48-messages" not in english  # an English page carries no catalog
        assert "Accept-Language" in headers["vary"]
        assert 'href="?lang=da"' in english
        assert ">Dansk<" in english
        status, headers, body = get(served, path, **{"Accept-Language": "da"})
        danish = body.decode()
        assert '<html lang="da">' in danish
        assert 'id="t48-messages"' in danish
        assert "set-cookie" not in headers
        assert headers["content-security-policy"] == get(served, path)[1]["content-security-policy"]
        seen = shell_words(danish)
        assert {"Spil", "Topliste", "English", "Dansk"} <= seen, (kind, seen)
        # Only the words Danish keeps as they are appear in both pages.
        same = shell_words(english) & seen
        assert same <= {
            "English",
            "Dansk",
            "2048",
            "#",
            "Fair play",
            "fair play",
            "Commitment",
            "/openapi.json",
            ").",
            "0",
        }, (kind, same)
        # The switch: ?lang= speaks that language and is remembered in a cookie.
        status, headers, body = get(served, path + "?lang=da")
        assert '<html lang="da">' in body.decode()
        assert headers["set-cookie"].startswith("t48_lang=da;")
        status, headers, body = get(served, path, Cookie="t48_lang=da")
        assert '<html lang="da">' in body.decode()
        status, headers, body = get(served, path + "?lang=xx", Cookie="t48_lang=zz")
        assert status == 200
        assert body.decode() == english
    # API clients at "/" still get the JSON index, whatever the language.
    status, headers, body = get(served, "/", Accept="application/json", **{"Accept-Language": "da"})
    assert status == 200
    assert headers["content-type"].startswith("application/json")


def page_text(page: Any) -> str:
    """Everything a reader sees: the text, the title, and titles, placeholders and labels."""
    text: str = page.evaluate(
        "() => [document.title, document.body.innerText, ...[...document.querySelectorAll("
        "'[title],[placeholder],[aria-label]')].flatMap(e => [e.title, e.placeholder || '',"
        " e.getAttribute('aria-label') || ''])].join('\\n')"
    )
    return text


def assert_no_english(text: str, words: tuple[str, ...]) -> None:
    shown = " ".join(text.split())
    left = sorted(piece for piece in english_fragments(words) if piece in shown)
    assert not left, left


PLAY_SHELL_WORDS: Final = (
    "Score",
    "Moves",
    "Name",
    "your name",
    "Your seed",
    "random",
    "New game",
    "End game",
    "Replay and verify this game",
    "Type a name and press New game.",
    "game board",
    "Arrow keys or WASD · swipe on a touch screen",
    "none yet",
    "revealed when the game ends",
    "Leaderboard",
    "Server seed",
    "End and sign",
    "Keep playing",
    "Keep this name mine",
    "Only this browser can then play the name here: it keeps the name's secret",
)
BOARD_SHELL_WORDS: Final = (
    "Leaderboard",
    "Player",
    "Score",
    "Max tile",
    "Moves",
    "Ended",
    "Replay",
    "Loading…",
)


def play_one_game(page: Any, url: str) -> None:
    page.goto(url)
    page.fill("#player", "sprog")
    page.click("#new-game-button")
    page.wait_for_selector("#game[data-state=playing]")
    for key in ("ArrowLeft", "ArrowUp", "ArrowRight", "ArrowDown"):
        page.keyboard.press(key)
    page.wait_for_function("() => document.getElementById('game').dataset.pending === '0'")
    page.click("#finish")
    page.wait_for_selector("#confirm-end:not([hidden])")


@pytest.mark.slow
def test_danish_play_and_leaderboard_pages_show_no_english(
    served: ServerProcess, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    words = (*PLAY_PAGE_MESSAGES, *PLAY_SHELL_WORDS)
    play_one_game(page, served.url + "/?lang=da")
    asking = page_text(page)
    assert "Afslut og underskriv spil" in asking
    assert_no_english(asking, words)
    page.click("#confirm-end-yes")
    page.wait_for_selector("#game[data-fair=checked]")
    page.wait_for_selector("#game[data-state=over]")
    ended = page_text(page)
    assert "Spillet sluttede. Underskrev spil" in ended
    assert "✓ Hvert svar fulgte reglerne" in ended
    assert_no_english(ended, words)
    # The cookie keeps Danish for the next page: the leaderboard, with the game just played.
    page.click('header.site a[href="/leaderboard"]')
    page.wait_for_selector("#leaderboard[data-state=ready]")
    board = page_text(page)
    assert "genafspil" in board
    assert "Topliste" in board
    assert_no_english(board, (*LEADERBOARD_PAGE_MESSAGES, *BOARD_SHELL_WORDS))
    # The switch back: English as before.
    page.click('header.site a[hreflang="en"]')
    page.wait_for_selector("#leaderboard[data-state=ready]")
    assert page.locator("h1").text_content() == "Leaderboard"
    assert page.locator("#rows a").first.text_content() == "replay"
    assert browser_page.errors == []


@pytest.mark.slow
def test_english_play_page_says_what_it_said(
    served: ServerProcess, browser_page: BrowserPage
) -> None:
    page = browser_page.page
    play_one_game(page, served.url + "/?lang=en")
    assert page.text_content("#confirm-end-text") == (
        f"End and sign game {page.get_attribute('#game', 'data-game-id')} now? "
        "Its score counts as it stands."
    )
    page.click("#confirm-end-yes")
    page.wait_for_selector("#game[data-fair=checked]")
    status = page.text_content("#status") or ""
    assert status.startswith("Game ended. Signed game ")
    assert status.endswith("; the replay page checks its record. Press New game to play again.")
    assert (page.text_content("#fair-check") or "").startswith("✓ Every answer followed the rules")
    assert page.locator("header.site nav a").all_text_contents()[:2] == ["Play", "Leaderboard"]
    assert browser_page.errors == []


@pytest.mark.slow
@pytest.mark.parametrize("lie", ["wrong-score", "commitment-upper", "deep-nesting"])
def test_danish_play_page_gives_the_fair_verdict_in_danish(
    lie: str, browser_page: BrowserPage
) -> None:
    """The verdict line is read in Danish from its code; the evidence keeps the English line."""
    with HostileServer(lie, drip=2.0) as server:
        letters = server.honest_letters(CLIENT_SEED, MOVES)
        seen = play_on_the_page(browser_page, server.url + "/?lang=da&", letters)
        evidence = browser_page.page.evaluate(
            "() => window.localStorage.getItem('twenty48.evidence')"
        )
    line = seen["line"]
    assert line.startswith("✗ "), seen
    if lie == "wrong-score":
        assert seen["fair"] == "broken"
        assert "bryder reglerne" in line, line
        assert "breaks the rules" not in line, line
        kept = json.loads(evidence)[0]
        english = python_verdict(lie, letters)
        assert kept["verdict"] == english  # the evidence is the same in every language
        assert kept["verdict_code"]["code"] == "witness.broken"
    else:
        assert seen["fair"] == "unusable"
        assert "kan ikke bruges" in line, line
        assert "is unusable" not in line, line
        if lie == "deep-nesting":  # the client's own words, and the JSON reader's sentence
            assert "serverens svar på POST /api/games/1/moves kan ikke bruges" in line, line
            assert "indlejret for dybt" in line, line
    assert_no_english(
        browser_page.page.evaluate("() => document.body.innerText"), PLAY_PAGE_MESSAGES
    )
