"""The self-verifying replay page: one HTML file with a record, the spec in JavaScript, the UI.

The page needs nothing but a browser: no server, no network, ``file://`` is
enough.  It embeds

- the record's JSON text, verbatim, as a JSON string inside a
  ``<script type="application/json">`` element: the page verifies exactly the
  text it was given, and an unreadable record gets its reasons too;
- optionally the public key given at export time (``--trust``), so the page
  can check a fair record's signature;
- the JavaScript (``web/js``, inlined by :func:`twenty48_replay.web.bundle.bundle`)
  and the stylesheet (:func:`twenty48_replay.web.theme.stylesheet`).

Record text is untrusted.  Inside the data element it is JSON with ``<``,
``>``, ``&``, U+2028 and U+2029 (and every other non-ASCII character)
written as ``\\uXXXX``, so no record can close the element (``</script>``),
open a comment (``<!--``) or otherwise become markup; the page shows it only
through ``textContent``.  A strict Content-Security-Policy allows exactly the
inline script and style (by hash) and nothing else: no fetch, image, font or
frame can load, which is also what makes "no network request" checkable.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from twenty48_replay.core.i18n import LANGUAGES, N_, current_language, translations
from twenty48_replay.core.record import Record
from twenty48_replay.web.bundle import bundle
from twenty48_replay.web.graph import evaluation_section
from twenty48_replay.web.messages import page_catalog
from twenty48_replay.web.theme import stylesheet

if TYPE_CHECKING:
    from twenty48_replay.solver.evaluation import EvaluationGraph

#: The entry module of the page; bundle() pulls in what it imports.
ENTRY: Final = "replay_page.js"
#: The id of the data element the page reads.
DATA_ID: Final = "t48-data"

_HTML_UNSAFE: Final = re.compile("[<>&\u2028\u2029]")


def script_json(value: object) -> str:
    """``value`` as JSON that is safe as the content of a ``<script>`` element.

    ASCII only (``ensure_ascii``), and ``<`` ``>`` ``&`` as ``\\u003c`` etc.:
    outside strings JSON has none of these characters, so the text still
    parses to the same value, yet holds no ``</script``, ``<!--`` or ``]]>``.
    """
    text = json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return _HTML_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _hash_source(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(script: str, style: str) -> str:
    """Allow the one inline script and the one inline style, by hash; nothing else at all.

    ``default-src 'none'`` with no ``connect-src`` forbids fetch/XHR/WebSocket,
    images, fonts, frames and media; ``base-uri`` and ``form-action`` are not
    covered by default-src, so they are closed explicitly.
    """
    return (
        f"default-src 'none'; script-src {_hash_source(script)}; "
        f"style-src {_hash_source(style)}; base-uri 'none'; form-action 'none'"
    )


_CSS_COMMENT: Final = re.compile(r"/\*.*?\*/", re.DOTALL)


def compact_css(css: str) -> str:
    """The stylesheet without comments, indentation and blank lines (our CSS has no strings
    holding ``/*`` or significant leading spaces)."""
    lines = (line.strip() for line in _CSS_COMMENT.sub("", css).split("\n"))
    return "\n".join(line for line in lines if line) + "\n"


@functools.cache
def page_code() -> tuple[str, str]:
    """The page's own code: (script, stylesheet), the same for every record.

    Cached: the modules are package data that don't change while a process runs,
    and the server builds a page per finished game.

    bundle() already drops comments and indentation from the modules (the page's
    code must stay under 100 kB); the stylesheet is compacted here.
    """
    return bundle([ENTRY]), compact_css(stylesheet())


_SHELL: Final = """<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{t_title}</title>
<style>{style}</style>
</head>
<body>
{site_header}<main class="t48-page" id="t48-page">
<header class="t48-heading">
<h1 class="t48-title">2048</h1>
<div class="t48-scores">
<div class="t48-score-box"><span class="t48-label">{t_score}</span><span id="score">0</span></div>
<div class="t48-score-box"><span class="t48-label">{t_move}</span><span
id="move-number">0</span></div>
</div>
</header>
<p class="t48-intro">{t_intro}</p>
<section id="verdict" class="t48-verdict" role="status" aria-live="polite">
<p class="t48-verdict-head"><span class="t48-mark" aria-hidden="true">…</span><span
id="verdict-text">{t_verifying}</span></p>
<ul class="t48-reasons" id="verdict-reasons" hidden></ul>
<p class="t48-note" id="verdict-note" hidden></p>
<ul class="t48-checks" id="fair-checks" hidden></ul>
</section>
<div class="t48-board" id="board" role="img"
aria-label="{t_board}"></div>
<p class="t48-caption"><span class="t48-move-arrow" id="move-arrow"
title="{t_arrow}"></span><span id="step-caption">move 0 / 0</span></p>
<div class="t48-controls">
<div class="t48-buttons">
<button type="button" class="t48-button" id="first" title="{t_first} (Home)"
aria-label="{t_first}">
<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M3 3h2v10H3zM13 3v10L6 8z"/></svg></button>
<button type="button" class="t48-button" id="prev" title="{t_back} (&#x2190;)"
aria-label="{t_back}">
<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M12 3v10L5 8z"/></svg></button>
<button type="button" class="t48-button t48-play" id="play" title="{t_autoplay}">{t_play}</button>
<button type="button" class="t48-button" id="next" title="{t_forward} (&#x2192;)"
aria-label="{t_forward}">
<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M4 3v10l7-5z"/></svg></button>
<button type="button" class="t48-button" id="last" title="{t_last} (End)"
aria-label="{t_last}">
<svg viewBox="0 0 16 16" aria-hidden="true"><path d="M11 3h2v10h-2zM3 3v10l7-5z"/></svg></button>
</div>
<input type="range" class="t48-slider" id="slider" min="0" max="0" value="0" step="1"
aria-label="{t_position}">
<div class="t48-speed-row">
<label>{t_speed} <select class="t48-speed" id="speed">
<option value="1">1 {t_move_s}</option><option value="2">2 {t_moves_s}</option>
<option value="5" selected>5 {t_moves_s}</option><option value="10">10 {t_moves_s}</option>
<option value="25">25 {t_moves_s}</option><option value="100">100 {t_moves_s}</option>
<option value="500">500 {t_moves_s}</option></select></label>
<span class="t48-keys"><kbd>&#x2190;</kbd> <kbd>&#x2192;</kbd> {t_step},
<kbd>&#x2191;</kbd> <kbd>&#x2193;</kbd> &#xB1;10, <kbd>{t_space}</kbd> {t_play_key}</span>
</div>
</div>
{evaluation}<section class="t48-details"><h2>{t_record}</h2><dl id="details"></dl></section>
<p class="t48-footer">{t_footer}</p>
<noscript><p>{t_noscript}</p></noscript>
</main>
<script type="application/json" id="{data_id}">{data}</script>
<script>{script}</script>
</body>
</html>
"""


#: The shell's words (English, marked for the catalog), by placeholder.
_SHELL_WORDS: Final = {
    "t_title": N_("2048 replay"),
    "t_score": N_("Score"),
    "t_verifying": N_("Verifying the record…"),
    "t_arrow": N_("the move that led here"),
    "t_first": N_("first position"),
    "t_back": N_("one move back"),
    "t_autoplay": N_("autoplay (space)"),
    "t_play": N_("Play"),
    "t_forward": N_("one move forward"),
    "t_last": N_("last position"),
    "t_position": N_("position in the game"),
    "t_speed": N_("Speed"),
    "t_move_s": N_("move/s"),
    "t_moves_s": N_("moves/s"),
    "t_step": N_("step"),
    "t_play_key": N_("play"),
    "t_board": N_("board"),
    # The key's name as printed on a keyboard.
    "t_space": N_("Space"),
    "t_record": N_("Record"),
    "t_noscript": N_(
        "This page replays and verifies the game with JavaScript; allow scripts to see it."
    ),
}
_INTRO: Final = N_(
    "A recorded game, replayed and checked {in_this_page} against the twenty48 record spec v1. "
    "Nothing is loaded from anywhere."
)
_IN_THIS_PAGE: Final = N_("in this page")
_FOOTER: Final = N_("Made by twenty48-replay. Check it yourself: {command} gives the same verdict.")


def _shell_words(language: str) -> dict[str, str]:
    """The shell's words in ``language``, HTML-escaped, markup placed around them."""
    tr = translations(language).gettext
    words = {key: html.escape(tr(text)) for key, text in _SHELL_WORDS.items()}
    # The number of the move shown (a noun; the TUI's "Move" key is a verb: Danish differs).
    words["t_move"] = html.escape(translations(language).pgettext("move number", "Move"))
    words["t_intro"] = html.escape(tr(_INTRO)).replace(
        "{in_this_page}", f"<em>{html.escape(tr(_IN_THIS_PAGE))}</em>"
    )
    words["t_footer"] = html.escape(tr(_FOOTER)).replace(
        "{command}", "<code>twenty48 verify</code>"
    )
    return words


def replay_page(
    record: Record | str,
    *,
    trusted_key: bytes | Mapping[str, Any] | None = None,
    language: str | None = None,
    graph: EvaluationGraph | None = None,
    graph_note: bool = False,
    site_header: tuple[str, str] | None = None,
) -> str:
    """The HTML text of a self-contained page that replays and verifies ``record``.

    ``record`` is a :class:`Record` or the JSON text of one (which may be
    unreadable: the page then shows why).  ``trusted_key`` is a raw 32-byte
    Ed25519 public key (``TrustedKey.public_key``), or a well-known document
    listing keys (``KeySet.to_json()``, SPEC 11.6): with it the page also
    checks a fair record's signature, as ``verify --trust`` does.  The page
    reads the key exactly as a key file (the JavaScript refuses a bad one).
    ``language`` (one of :data:`twenty48_replay.core.i18n.LANGUAGES`; default: the
    current one) is the page's language: its words and the verifier's
    reasons, translated from their codes with the embedded catalog.
    ``graph`` (the solver's network's values of the game's moves) adds the
    evaluation graph, an inline SVG (:mod:`twenty48_replay.web.graph`); without
    it, ``graph_note`` adds a short note saying that no network could be used.
    ``site_header`` is a server's (markup, stylesheet) of its site header, put
    at the top of the body and into the page's one style element (the export
    has none).
    """
    language = current_language() if language is None else language
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    text = record.to_json() if isinstance(record, Record) else record
    trust: Mapping[str, Any] | None = None
    if isinstance(trusted_key, bytes):
        if len(trusted_key) != 32:
            raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(trusted_key)}")
        trust = {
            "algorithm": "Ed25519",
            "key_id": hashlib.sha256(trusted_key).hexdigest()[:16],
            "public_key": trusted_key.hex(),
        }
    elif trusted_key is not None:
        trust = trusted_key
    embedded: dict[str, Any] = {"record": text, "trust": trust}
    messages = page_catalog(language)
    if messages is not None:  # an English page is the same as before languages came
        embedded["messages"] = messages
    data = script_json(embedded)
    script, style = page_code()
    header = ""
    if site_header is not None:
        header, header_style = site_header
        style += compact_css(header_style)
    return _SHELL.format(
        site_header=header,
        csp=content_security_policy(script, style),
        lang=language,
        **_shell_words(language),
        style=style,
        evaluation=evaluation_section(graph, graph_note, language),
        data_id=DATA_ID,
        data=data,
        script=script,
    )
