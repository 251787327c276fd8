"""The HTML documents of the play and leaderboard pages: static shells, no player text.

Everything a player typed (names, seeds) reaches these pages only through
the JSON API, and their modules put it in with ``textContent``; the shells
themselves are constant, so no server-side escaping can be forgotten.
Styles and scripts are separate files under ``/static/`` (the pages are
served with ``script-src 'self'`` and no inline code).
"""

from __future__ import annotations

from typing import Final

_HEAD: Final = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>{title}</title>
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/theme.css">
<link rel="stylesheet" href="/static/site.css">
<script type="module" src="/static/js/{module}"></script>
</head>
<body class="{kind}">
<header class="site">
<a class="brand" href="/">2048 <span>fair play</span></a>
<nav><a href="/"{play_current}>Play</a><a href="/leaderboard"{board_current}>Leaderboard</a></nav>
</header>
"""

_CURRENT: Final = ' aria-current="page"'

_NOSCRIPT: Final = """<noscript><p class="notice">This page needs JavaScript: the game is played
through the server's API (<a href="/openapi.json">/openapi.json</a>).</p></noscript>
"""


def _head(title: str, module: str, kind: str) -> str:
    return _HEAD.format(
        title=title,
        module=module,
        kind=kind,
        play_current=_CURRENT if kind == "play" else "",
        board_current=_CURRENT if kind == "leaderboard" else "",
    )


PLAY_PAGE: Final = (
    _head("Play 2048 — fair play", "play_page.js", "play")
    + """<main id="game" data-state="idle" data-score="0" data-moves="0">
<section class="top">
<div class="scores">
<div class="score-box"><span class="label">Score</span><span id="score">0</span></div>
<div class="score-box"><span class="label">Best</span><span id="best">0</span></div>
<div class="score-box"><span class="label">Moves</span><span id="moves">0</span></div>
</div>
<form id="new-game" class="new-game" autocomplete="off">
<label>Name <input id="player" name="player" maxlength="64" required
 placeholder="your name" spellcheck="false"></label>
<label>Your seed <input id="seed-input" name="client_seed" maxlength="128"
 placeholder="random" spellcheck="false"></label>
<button id="new-game-button" type="submit">New game</button>
</form>
</section>
<div id="board-wrap" class="board-wrap">
<div id="board" class="t48-board" role="img" aria-label="game board"></div>
<div id="overlay" class="overlay" hidden><p id="overlay-text"></p>
<a id="overlay-replay" class="overlay-link" href="/leaderboard">Replay and verify</a></div>
</div>
<p id="status" class="status" role="status" aria-live="polite">Type a name and press
New game.</p>
<div class="controls">
<button id="finish" type="button" disabled>End game</button>
<span class="help">Arrow keys or WASD · swipe on a touch screen</span>
</div>
<div id="confirm-end" class="confirm" role="alertdialog" aria-labelledby="confirm-end-text" hidden>
<p id="confirm-end-text"></p>
<button id="confirm-end-yes" type="button">End and sign</button>
<button id="confirm-end-no" type="button">Keep playing</button>
</div>
<section class="fair" aria-label="fair play">
<h2>Fair play</h2>
<p class="explain">The server commits to a secret seed before your first move and reveals
it when the game ends; your seed is mixed in, so neither side chose the tiles alone.</p>
<dl>
<dt>Commitment</dt><dd><code id="commitment" class="hex">none yet</code></dd>
<dt>Your seed</dt><dd><code id="client-seed" class="hex">none yet</code></dd>
<dt>Server seed</dt><dd><code id="server-seed" class="hex">revealed when the game ends</code></dd>
</dl>
<p id="fair-check" class="fair-check"></p>
<p><a id="evidence-link" hidden href="#evidence-link" download="twenty48-evidence.json">Download
the evidence (every answer the server sent)</a></p>
<p><a id="replay-link" hidden href="/leaderboard">Replay and verify this game</a></p>
</section>
</main>
"""
    + _NOSCRIPT
    + "</body>\n</html>\n"
)

LEADERBOARD_PAGE: Final = (
    _head("Leaderboard — 2048 fair play", "leaderboard_page.js", "leaderboard")
    + """<main id="leaderboard" data-state="loading">
<h1>Leaderboard</h1>
<p class="explain">The best finished fair game of each player. Every game links to its
replay, which checks the signed record in your browser.</p>
<p id="status" class="status" role="status" aria-live="polite">Loading…</p>
<div class="table-wrap">
<table id="board-table" hidden>
<thead><tr><th scope="col">#</th><th scope="col">Player</th><th scope="col" class="num">Score</th>
<th scope="col" class="num">Max tile</th><th scope="col" class="num">Moves</th>
<th scope="col" class="when">Ended</th><th scope="col">Replay</th></tr></thead>
<tbody id="rows"></tbody>
</table>
</div>
</main>
"""
    + _NOSCRIPT
    + "</body>\n</html>\n"
)
