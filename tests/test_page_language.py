"""The replay page in the reader's language: one catalog for Python and JavaScript (issue 20 s.3).

The page's script renders reasons from their codes with templates generated
from :mod:`twenty48_replay.reasons` and translates them, and its own words,
with a catalog built from the Danish ``.po``.  These tests keep the
generated module and the catalog in sync with their sources, and open the
Danish page in headless Chromium.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po
from browser import BrowserPage
from conftest import EXAMPLES, ROOT, VECTORS, run_cli
from server_harness import ServerProcess
from test_web_server import finished_game, get

from twenty48_replay.reasons import TEMPLATES
from twenty48_replay.server.language import from_accept_language
from twenty48_replay.web.messages import (
    JS_REASON_CODES,
    PAGE_MESSAGES,
    WITNESS_CODES,
    page_catalog,
    page_messages,
    reason_templates_js,
    witness_templates_js,
)

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
            if "reason(" in line and path.name != "play_witness.js":
                used |= set(re.findall(r'"([a-z]+\.[a-z_]+)"', line))
    assert {"claim.score", "fair.seed", "key.unlisted", "signature.mismatch"} <= used
    assert used <= set(JS_REASON_CODES), used - set(JS_REASON_CODES)


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


@pytest.mark.parametrize("language", ["en", "da"])
def test_the_page_verdict_data_is_the_same_in_both_languages(
    language: str, browser_page: BrowserPage, tmp_path: Path
) -> None:
    browser_page.open(
        export_page(tmp_path, EXAMPLES / "tampered-score.json", "p.html", "--lang", language)
    )
    verdict = browser_page.verdict()
    assert (verdict["valid"], verdict["score"], verdict["moves"]) == ("false", "7008", "472")


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
    assert ">Spil et fair spil<" in page
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
