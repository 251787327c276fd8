"""A name carried between the terminal and the browser: its secret given once.

A real ``twenty48 serve``, the real command line (``play --register`` in a
user data folder of its own, then ``player-secret``) and headless Chromium
with a Danish page: the page refuses the name without its secret and opens
"I have this name's secret"; a wrong secret is refused; the right one
plays, is kept in local storage, and plays the name again without being
typed.  The secret is never in a URL the browser asked for, in the page,
or in the server's log.  The other way, a name registered by the page is
shown on request ("Show the secret kept here"), kept by ``player-secret
--keep`` from standard input, and played by ``play --server``.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from support.browser import BrowserPage
from support.common import run_cli
from support.pages import settled
from support.server_harness import ServerProcess

from twenty48_replay.core.i18n import translations
from twenty48_replay.fairplay.client import Client

NAME = "pia"
DANISH = translations("da").gettext
NULL_MOVE = "it does not change the board"


def new_game(browser: BrowserPage, secret: str = "") -> str:
    page = browser.page
    page.fill("#player", NAME)
    if secret:
        page.fill("#name-secret", secret)
    page.click("#new-game-button")
    settled(page)
    return page.text_content("#status") or ""


SERVER = "http://127.0.0.1:9"
SECRET = "AbCdEfGhIjKlMnOpQrSt_-12"
OTHER = "ZyXwVuTsRqPoNmLkJiHg-_34"


def end_game(browser: BrowserPage) -> None:
    """End the game on the page and wait for the page's check of its signed record."""
    browser.page.click("#finish")
    browser.page.click("#confirm-end-yes")
    browser.page.wait_for_selector("#game[data-fair]", state="attached", timeout=60_000)


def keep(data: Path, secret: str, *flags: str) -> tuple[int, str, str]:
    done = run_cli(
        "--lang",
        "en",
        "player-secret",
        "--server",
        SERVER,
        "--player",
        NAME,
        "--keep",
        *flags,
        stdin=secret.encode(),
        env={"XDG_DATA_HOME": str(data)},
    )
    return done.returncode, done.stdout, done.stderr


def kept_secret(data: Path) -> str | None:
    printed = run_cli(
        "player-secret", "--server", SERVER, "--player", NAME, env={"XDG_DATA_HOME": str(data)}
    )
    return printed.stdout.strip() if printed.returncode == 0 else None


@pytest.mark.slow
def test_keep_takes_the_secret_from_standard_input_only_when_it_is_one(tmp_path: Path) -> None:
    data = tmp_path / "data"
    for given in ("", "short", "x" * 300, "not a secret at all!", "ünïcödé-ünïcödé-ünïcödé"):
        code, out, err = keep(data, given + "\n")
        assert (code, out) == (2, ""), err
        assert "standard input: not a name's secret" in err
        assert given not in err or not given
    assert kept_secret(data) is None
    code, out, err = keep(data, f"  {SECRET}\r\n")  # as pasted: spaces and a line end
    assert (code, out) == (0, ""), err
    assert f"kept the secret of {NAME} on {SERVER}" in err
    assert SECRET not in err
    files = list((data / "twenty48-replay" / "player-secrets").iterdir())
    assert [stat.S_IMODE(f.stat().st_mode) for f in files] == [0o600]
    assert kept_secret(data) == SECRET
    # The same again: nothing to do.  Another: refused without --replace, nothing changed.
    assert keep(data, SECRET)[0] == 0
    code, _, err = keep(data, OTHER)
    assert code == 1
    assert "--replace" in err
    assert OTHER not in err
    assert kept_secret(data) == SECRET
    assert keep(data, OTHER, "--replace")[0] == 0
    assert kept_secret(data) == OTHER
    # --replace alone is a usage error.
    alone = run_cli("player-secret", "--server", SERVER, "--player", NAME, "--replace")
    assert alone.returncode == 2
    assert "--replace" in alone.stderr


def test_player_secret_says_what_to_do_when_none_is_kept(tmp_path: Path) -> None:
    result = run_cli(
        "--lang",
        "en",
        "player-secret",
        "--server",
        "http://127.0.0.1:9",
        "--player",
        NAME,
        env={"XDG_DATA_HOME": str(tmp_path / "data")},
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert "--register" in result.stderr


@pytest.mark.slow
def test_a_name_registered_in_the_terminal_plays_in_the_browser(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    with ServerProcess(str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis") as server:
        terminal = {"XDG_DATA_HOME": str(tmp_path / "data")}
        registered = run_cli(
            "--lang",
            "en",
            "play",
            "--server",
            server.url,
            "--player",
            NAME,
            "--register",
            "--moves",
            "L",
            "--db",
            str(tmp_path / "local.sqlite3"),
            env=terminal,
        )
        assert "registered" in registered.stderr, registered.stderr
        printed = run_cli("player-secret", "--server", server.url, "--player", NAME, env=terminal)
        assert printed.returncode == 0, printed.stderr
        secret = printed.stdout.strip()
        assert printed.stdout == secret + "\n"  # the secret alone on stdout
        assert secret not in printed.stderr

        browser = new_browser_page(extra_http_headers={"Accept-Language": "da"})
        page = browser.page
        browser.open(server.url + "/")
        assert page.get_attribute("html", "lang") == "da"
        assert not page.locator("#secret-box").evaluate("box => box.open")
        # Without the secret: told so in Danish, and asked for it.
        status = new_game(browser)
        assert "giv dets hemmelighed" in status, status
        assert page.locator("#secret-box").evaluate("box => box.open")
        assert page.evaluate("() => document.activeElement.id") == "name-secret"
        # Not a secret at all, then a wrong one: refused, nothing kept.
        assert new_game(browser, "short") == DANISH(
            "That is not a name's secret: it is 16 to 256 letters, digits, - and _."
        )
        status = new_game(browser, "x" * 43)
        assert DANISH("wrong secret for this name") in status, status
        assert page.evaluate("() => localStorage.getItem('twenty48.secrets')") is None
        # The right one: the game starts, the secret is kept and leaves the field.
        new_game(browser, secret)
        assert page.get_attribute("#game", "data-state") == "playing"
        assert page.get_attribute("#game", "data-registered") == NAME
        assert page.input_value("#name-secret") == ""
        kept = page.evaluate("() => JSON.parse(localStorage.getItem('twenty48.secrets'))")
        assert kept == {NAME: secret}
        end_game(browser)
        assert page.get_attribute("#game", "data-fair") == "checked"
        # A new visit plays the name with the kept secret, nothing typed.
        browser.open(server.url + "/")
        new_game(browser)
        assert page.get_attribute("#game", "data-state") == "playing"
        end_game(browser)

        client = Client(server.url)
        rows = client.leaderboard()["games"]
        client.close()
        assert {(row["player"], row["registered"]) for row in rows} == {(NAME, True)}
        # Never in a URL, the page or the server's log.
        assert browser.requests
        assert not [url for url in browser.requests if secret in url]
        assert secret not in page.content()
        assert secret not in server.log_text()
        errors = [e for e in browser.errors if "Failed to load resource" not in e]
        assert not errors, errors


@pytest.mark.slow
def test_a_name_registered_in_the_browser_plays_in_the_terminal(
    new_browser_page: Callable[..., BrowserPage], tmp_path: Path
) -> None:
    with ServerProcess(str(tmp_path / "s.sqlite3"), tmp_path, "--no-analysis") as server:
        browser = new_browser_page(extra_http_headers={"Accept-Language": "da"})
        page = browser.page
        browser.open(server.url + "/")
        # Nothing kept yet: said so, nothing shown.
        page.click("#secret-box summary")
        page.fill("#player", NAME)
        page.click("#show-secret")
        assert page.text_content("#kept-secret-help") == DANISH(
            "No secret of {name} is kept in this browser."
        ).format(name=NAME)
        assert page.locator("#kept-secret").is_hidden()
        # Registered by the page ("Keep this name mine"), then shown on request.
        page.check("#register")
        new_game(browser)
        assert page.get_attribute("#game", "data-registered") == NAME
        end_game(browser)
        page.locator("#secret-box").evaluate("box => { box.open = true; }")
        page.click("#show-secret")
        secret = page.input_value("#kept-secret")
        assert (
            secret
            == page.evaluate("() => JSON.parse(localStorage.getItem('twenty48.secrets'))")[NAME]
        )
        help_text = page.text_content("#kept-secret-help") or ""
        assert f"--server {server.url} --player {NAME} --keep" in help_text
        # Another name typed: the secret is no longer on the page.
        page.fill("#player", NAME + "x")
        assert page.locator("#kept-secret").is_hidden()
        assert page.input_value("#kept-secret") == ""

        # The terminal: refused without the secret, kept from stdin, then plays as the name.
        terminal = {"XDG_DATA_HOME": str(tmp_path / "data")}

        def play() -> tuple[int, str]:
            done = run_cli(
                "--lang",
                "en",
                "play",
                "--server",
                server.url,
                "--player",
                NAME,
                "--moves",
                "L",
                "--db",
                str(tmp_path / "local.sqlite3"),
                env=terminal,
            )
            out = done.stdout + done.stderr
            # The server's seed is random, so "L" may not change the first board: it is
            # refused (exit 1) after the game was finished and signed as it stands, which
            # is a game played as the name all the same.
            if done.returncode == 1 and NULL_MOVE in out and "finished and signed" in out:
                return 0, out
            return done.returncode, out

        code, out = play()
        assert code == 1, out
        assert "is registered on" in out
        kept = run_cli(
            "player-secret",
            "--server",
            server.url,
            "--player",
            NAME,
            "--keep",
            stdin=(secret + "\n").encode(),
            env=terminal,
        )
        assert kept.returncode == 0, kept.stderr
        code, out = play()
        assert code == 0, out
        assert secret not in out
        assert "finished and signed" in out

        client = Client(server.url)
        rows = client.leaderboard()["games"]
        client.close()
        assert {(row["player"], row["registered"]) for row in rows} == {(NAME, True)}
        assert not [url for url in browser.requests if secret in url]
        assert secret not in server.log_text()
        errors = [e for e in browser.errors if "Failed to load resource" not in e]
        assert not errors, errors
