"""The HTML documents of the play and leaderboard pages: static shells, no player text.

Everything a player typed (names, seeds) reaches these pages only through
the JSON API, and their modules put it in with ``textContent``; the shells
themselves are built only from the product's own words, so no player text
needs escaping here (the catalog's words are escaped all the same).
Styles and scripts are separate files under ``/static/`` (the pages are
served with ``script-src 'self'`` and no inline code).

Each shell exists once per language (:func:`play_page`, :func:`leaderboard_page`):
its words come from the one catalog, and a page in another language than
English carries the words its module says as a data block
(``<script type="application/json" id="t48-messages">``, never run, so the
policy is unchanged; see :mod:`twenty48_replay.web.messages`).  The English
shells carry no data block.  The site navigation holds the language switch
(``?lang=en|da``, read by :mod:`.language`).
"""

from __future__ import annotations

import functools
import html as htmllib
from collections.abc import Callable
from typing import Final

from twenty48_replay.core.i18n import ENGLISH, LANGUAGES, N_, translations
from twenty48_replay.web.messages import (
    LEADERBOARD_PAGE_MESSAGES,
    PLAY_PAGE_MESSAGES,
    served_catalog,
)
from twenty48_replay.web.page import script_json

#: The id of the data block that holds a page's words in its language.
MESSAGES_ID: Final = "t48-messages"

_HEAD: Final = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{title}</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/theme.css">
<link rel="stylesheet" href="/static/site.css">
<link rel="stylesheet" href="/static/site_header.css">
{messages}<script type="module" src="/static/js/{module}"></script>
</head>
<body class="{kind}">
{header}"""

_HEADER: Final = """<header class="site">
<a class="brand" href="/">2048 <span>{fair_play}</span></a>
<nav><a href="/"{play_current}>{play}</a><a href="/leaderboard"{board_current}>{leaderboard}</a>\
<a href="?lang=en" lang="en" hreflang="en" class="language">English</a>\
<a href="?lang=da" lang="da" hreflang="da" class="language">Dansk</a></nav>
</header>
"""

_CURRENT: Final = ' aria-current="page"'

_NOSCRIPT: Final = """<noscript><p class="notice">{needs_js} \
(<a href="/openapi.json">/openapi.json</a>).</p></noscript>
"""

Say = Callable[[str], str]


def _say(language: str) -> Say:
    """The catalog's words in ``language``, escaped for HTML text and attributes."""
    catalog = translations(language)
    return lambda english: htmllib.escape(catalog.gettext(english))


def site_header(language: str, current: str | None = None) -> str:
    """The site's header in ``language``: the brand, the pages (``current``: "play",
    "leaderboard" or None) and the language switch; the same markup on every page
    (styled by ``/static/site_header.css``)."""
    say = _say(language)
    return _HEADER.format(
        fair_play=say(N_("fair play")),
        play=htmllib.escape(translations(language).pgettext("site", "Play")),
        leaderboard=say(N_("Leaderboard")),
        play_current=_CURRENT if current == "play" else "",
        board_current=_CURRENT if current == "leaderboard" else "",
    )


def _head(language: str, title: str, module: str, kind: str, messages: tuple[str, ...]) -> str:
    say = _say(language)
    catalog = served_catalog(language, messages)
    block = (
        ""
        if catalog is None
        else f'<script type="application/json" id="{MESSAGES_ID}">{script_json(catalog)}</script>\n'
    )
    return _HEAD.format(
        lang=language,
        title=say(title),
        messages=block,
        module=module,
        kind=kind,
        header=site_header(language, kind),
    )


def _noscript(language: str) -> str:
    say = _say(language)
    needs_js = say(N_("This page needs JavaScript: the game is played through the server's API"))
    return _NOSCRIPT.format(needs_js=needs_js)


_PLAY_MAIN: Final = """<main id="game" data-state="idle" data-score="0" data-moves="0">
<section class="top">
<div class="scores">
<div class="score-box"><span class="label">{score}</span><span id="score">0</span></div>
<div class="score-box"><span class="label">{best}</span><span id="best">0</span></div>
<div class="score-box"><span class="label">{moves}</span><span id="moves">0</span></div>
</div>
<form id="new-game" class="new-game" autocomplete="off">
<label>{name} <input id="player" name="player" maxlength="64" required
 placeholder="{your_name}" spellcheck="false"></label>
<label>{your_seed} <input id="seed-input" name="client_seed" maxlength="128"
 placeholder="{random}" spellcheck="false"></label>
<label class="register" title="{register_title}">
<input id="register" name="register" type="checkbox"> {keep_name}</label>
<button id="new-game-button" type="submit">{new_game}</button>
<details id="secret-box" class="secret-box"><summary>{have_secret}</summary>
<label>{secret} <input id="name-secret" type="password" maxlength="256"
 autocomplete="off" spellcheck="false"></label>
<p class="help">{secret_help}</p>
<p><button id="show-secret" type="button">{show_secret}</button></p>
<input id="kept-secret" type="text" readonly hidden spellcheck="false" autocomplete="off"
 aria-label="{kept_secret}">
<p id="kept-secret-help" class="help" hidden></p></details>
</form>
</section>
<div id="board-wrap" class="board-wrap">
<div id="board" class="t48-board" role="img" aria-label="{game_board}"></div>
<div id="overlay" class="overlay" hidden><p id="overlay-text"></p>
<a id="overlay-replay" class="overlay-link" href="/leaderboard">{replay_and_verify}</a></div>
</div>
<p id="status" class="status" role="status" aria-live="polite">{type_a_name}</p>
<div class="controls">
<button id="finish" type="button" disabled>{end_game}</button>
<span class="help">{keys_help}</span>
</div>
<div id="confirm-end" class="confirm" role="alertdialog" aria-labelledby="confirm-end-text" hidden>
<p id="confirm-end-text"></p>
<button id="confirm-end-yes" type="button">{end_and_sign}</button>
<button id="confirm-end-no" type="button">{keep_playing}</button>
</div>
<section class="fair" aria-label="{fair_play_label}">
<h2>{fair_play_heading}</h2>
<p class="explain">{explain}</p>
<dl>
<dt>{commitment}</dt><dd><code id="commitment" class="hex">{none_yet}</code></dd>
<dt>{your_seed}</dt><dd><code id="client-seed" class="hex">{none_yet}</code></dd>
<dt>{server_seed}</dt><dd><code id="server-seed" class="hex">{revealed_later}</code></dd>
</dl>
<p id="fair-check" class="fair-check"></p>
<p><a id="evidence-link" hidden href="#evidence-link" download="twenty48-evidence.json">\
{download}</a></p>
<p><a id="replay-link" hidden href="/leaderboard">{replay_this}</a></p>
</section>
</main>
"""


@functools.lru_cache(maxsize=len(LANGUAGES))
def play_page(language: str = ENGLISH) -> str:
    """The play page (``/``) in ``language``."""
    say = _say(language)
    main = _PLAY_MAIN.format(
        score=say(N_("Score")),
        best=say(N_("Best")),
        moves=say(N_("Moves")),
        name=say(N_("Name")),
        your_name=say(N_("your name")),
        your_seed=say(N_("Your seed")),
        random=say(N_("random")),
        register_title=say(
            N_("Only this browser can then play the name here: it keeps the name's secret")
        ),
        keep_name=say(N_("Keep this name mine")),
        have_secret=say(N_("I have this name's secret")),
        secret=say(N_("Secret")),
        secret_help=say(
            N_(
                "For a name registered elsewhere: in a terminal, twenty48 player-secret "
                "--server URL --player NAME prints its secret. Given once, it is kept in this "
                "browser."
            )
        ),
        show_secret=say(N_("Show the secret kept here")),
        kept_secret=say(N_("The name's secret kept in this browser")),
        new_game=say(N_("New game")),
        game_board=say(N_("game board")),
        replay_and_verify=say(N_("Replay and verify")),
        type_a_name=say(N_("Type a name and press New game.")),
        end_game=say(N_("End game")),
        keys_help=say(N_("Arrow keys or WASD · swipe on a touch screen")),
        end_and_sign=say(N_("End and sign")),
        keep_playing=say(N_("Keep playing")),
        fair_play_label=say(N_("fair play")),
        fair_play_heading=say(N_("Fair play")),
        explain=say(
            N_(
                "The server commits to a secret seed before your first move and reveals it "
                "when the game ends; your seed is mixed in, so neither side chose the tiles alone."
            )
        ),
        commitment=say(N_("Commitment")),
        none_yet=say(N_("none yet")),
        server_seed=say(N_("Server seed")),
        revealed_later=say(N_("revealed when the game ends")),
        download=say(N_("Download the evidence (every answer the server sent)")),
        replay_this=say(N_("Replay and verify this game")),
    )
    head = _head(language, N_("Play 2048 — fair play"), "play_page.js", "play", PLAY_PAGE_MESSAGES)
    return head + main + _noscript(language) + "</body>\n</html>\n"


_LEADERBOARD_MAIN: Final = """<main id="leaderboard" data-state="loading">
<h1>{leaderboard}</h1>
<p class="explain">{explain}</p>
<p id="status" class="status" role="status" aria-live="polite">{loading}</p>
<div class="table-wrap">
<table id="board-table" hidden>
<thead><tr><th scope="col">#</th><th scope="col">{player}</th>\
<th scope="col" class="num">{score}</th>
<th scope="col" class="num">{max_tile}</th><th scope="col" class="num">{moves}</th>
<th scope="col" class="when">{ended}</th><th scope="col">{replay}</th></tr></thead>
<tbody id="rows"></tbody>
</table>
</div>
</main>
"""


@functools.lru_cache(maxsize=len(LANGUAGES))
def leaderboard_page(language: str = ENGLISH) -> str:
    """The leaderboard page (``/leaderboard``) in ``language``."""
    say = _say(language)
    main = _LEADERBOARD_MAIN.format(
        leaderboard=say(N_("Leaderboard")),
        explain=say(
            N_(
                "The best finished fair game of each player. Every game links to its replay, "
                "which checks the signed record in your browser."
            )
        ),
        loading=say(N_("Loading…")),
        player=say(N_("Player")),
        score=say(N_("Score")),
        max_tile=say(N_("Max tile")),
        moves=say(N_("Moves")),
        ended=say(N_("Ended")),
        replay=say(N_("Replay")),
    )
    head = _head(
        language,
        N_("Leaderboard — 2048 fair play"),
        "leaderboard_page.js",
        "leaderboard",
        LEADERBOARD_PAGE_MESSAGES,
    )
    return head + main + _noscript(language) + "</body>\n</html>\n"


#: The English shells (the pages as they were before languages came, plus the switch).
PLAY_PAGE: Final = play_page(ENGLISH)
LEADERBOARD_PAGE: Final = leaderboard_page(ENGLISH)

__all__ = [
    "LEADERBOARD_PAGE",
    "MESSAGES_ID",
    "PLAY_PAGE",
    "leaderboard_page",
    "play_page",
    "site_header",
]
