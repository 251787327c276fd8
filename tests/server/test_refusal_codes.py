"""A score server's refusals as codes (SPEC 8.8): the English ``error`` and its ``error_code``.

The JSON refusal keeps its English ``error`` word for word and carries the
same reason as a code with parameters, so that the play page says it in
its reader's language: a Danish page shows a refused name (invisible
characters, a look-alike of a registered name, ...) in Danish, in a real
``twenty48 serve`` and headless Chromium.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.browser import BrowserPage
from support.common import ROOT
from support.names_play import MANY_NAMES, Exchange
from support.pages import settled
from support.server_harness import ServerProcess

from twenty48_replay.core.i18n import translations
from twenty48_replay.core.reasons import TEMPLATES, Reason
from twenty48_replay.fairplay.names import NameRefusedError, check_name
from twenty48_replay.web.messages import REFUSAL_CODES, refusal_templates_js

JS = ROOT / "twenty48_replay" / "web" / "js"
DANISH = translations("da").gettext


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "name.empty"),
        ("x" * 65, "name.too_long"),
        ("a\u200bb", "name.invisible"),
        ("a\u00a0b", "name.space"),
        ("alice \u2713", "name.check_mark"),
        ("e\u0301\u0301\u0301", "name.marks"),
        ("a  b", "name.double_space"),
        ("!!!", "name.no_letter"),
    ],
)
def test_every_name_refusal_has_its_code(name: str, code: str) -> None:
    with pytest.raises(NameRefusedError) as refused:
        check_name(name)
    assert refused.value.reason.code == code
    assert str(refused.value.reason) == str(refused.value)
    assert refused.value.reason.render(DANISH) != str(refused.value)  # translated


def test_refusal_templates_js_is_generated_from_the_python_table() -> None:
    committed = (JS / "refusal_templates.js").read_text(encoding="utf-8")
    assert committed == refusal_templates_js(), (
        "regenerate: python -c 'from twenty48_replay.web.messages import refusal_templates_js; "
        'print(refusal_templates_js(), end="")\' > twenty48_replay/web/js/refusal_templates.js'
    )
    assert {"field", "name.invisible", "server.name_lookalike"} <= set(REFUSAL_CODES)
    for code in REFUSAL_CODES:
        assert DANISH(TEMPLATES[code]) != TEMPLATES[code], code


def coded(answer: dict[str, Any], code: str) -> Reason:
    """The answer's code, which must say exactly its English ``error``."""
    reason = Reason.from_json(answer["error_code"])
    assert reason.code == code, answer
    assert str(reason) == answer["error"]
    return reason


@pytest.mark.slow
def test_a_real_server_sends_the_code_beside_the_english_words(tmp_path: Path) -> None:
    with ServerProcess(str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", *MANY_NAMES) as srv:
        api = Exchange(srv.url)
        answer = api.refused(422, "/api/games", {"player": "a\u200bb"})
        assert answer["error"] == (
            "field 'player': the name holds an invisible, filler or format character "
            "(U+200B ZERO WIDTH SPACE)"
        )
        assert answer["error_code"] == {
            "code": "field",
            "params": {
                "field": "player",
                "problem": {
                    "code": "name.invisible",
                    "params": {"character": "U+200B ZERO WIDTH SPACE"},
                },
            },
        }
        coded(answer, "field")
        coded(api.refused(422, "/api/players", {"name": "ann \u2713"}), "field")

        status, registered = api.send("POST", "/api/players", {"name": "alice"})
        assert status == 201
        coded(api.refused(409, "/api/players", {"name": "ALICE"}), "server.name_taken")
        coded(api.refused(401, "/api/games", {"player": "alice"}), "server.name_needs_secret")
        coded(api.refused(409, "/api/games", {"player": "AIice"}), "server.name_lookalike")
        coded(
            api.refused(403, "/api/games", {"player": "alice"}, secret="x" * 43),
            "server.name_wrong_secret",
        )
        status, game = api.send("POST", "/api/games", {"player": "bob"})
        assert status == 201
        wrong = coded(
            api.refused(403, f"/api/games/{game['id']}/start", {"client_seed": "s"}, "t" * 43),
            "server.wrong_token",
        )
        assert wrong.render(DANISH) == "forkert token for dette spil"
        moved = api.refused(
            409, f"/api/games/{game['id']}/moves", {"move": "L", "n": 1}, game["token"]
        )
        coded(moved, "server.not_started")  # the moves' fast path answers with codes too
        status, missing = api.send("GET", "/api/games/999999")
        assert status == 404
        coded(missing, "server.no_game")
        status, unknown = api.send("GET", "/nowhere")
        assert status == 404
        assert "error_code" not in unknown  # no code: the words alone
        assert registered["secret"] not in srv.log_text()


def danish_status(reason: Reason) -> str:
    return DANISH("Could not start a game: {reason}").format(reason=reason.render(DANISH))


@pytest.mark.slow
def test_the_danish_play_page_says_the_servers_refusals_in_danish(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    with ServerProcess(str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis", *MANY_NAMES) as srv:
        api = Exchange(srv.url)
        assert api.send("POST", "/api/players", {"name": "alice"})[0] == 201
        browser = new_browser_page(locale="da-DK", extra_http_headers={"Accept-Language": "da"})
        page = browser.page
        browser.open(srv.url + "/")
        assert page.get_attribute("html", "lang") == "da"
        cases = {
            "a\u200bb": Reason(
                "field",
                {
                    "field": "player",
                    "problem": Reason("name.invisible", {"character": "U+200B ZERO WIDTH SPACE"}),
                },
            ),
            "AIice": Reason("server.name_lookalike"),
            "bo \u2714": Reason(
                "field",
                {
                    "field": "player",
                    "problem": Reason("name.check_mark", {"character": "U+2714 HEAVY CHECK MARK"}),
                },
            ),
        }
        for name, reason in cases.items():
            page.fill("#player", name)
            page.click("#new-game-button")
            settled(page)
            shown = page.text_content("#status") or ""
            assert shown == danish_status(reason), shown
            assert str(reason) not in shown  # no English sentence inside the Danish one
        # The browser logs each refused request itself; the page's script raised nothing.
        errors = [e for e in browser.errors if "Failed to load resource" not in e]
        assert not errors, errors
