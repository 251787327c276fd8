"""The page's words in the reader's language, from the same catalog as the command line.

One catalog serves Python and JavaScript: the page's script renders a reason
from its code with the English template of :data:`twenty48_replay.core.reasons.TEMPLATES`
(``web/js/reason_templates.js``, generated from that table by
:func:`reason_templates_js` and kept in sync by a test), and translates it
with :func:`page_catalog`: a JSON object ``{english: translation}`` read from
the compiled ``.mo`` of the ``.po`` the CLI uses, embedded in the page as a
data block (not code: the CSP needs no new hash, and the verifier's bundle
does not grow with the languages).  Nothing is kept by hand in a second table.
"""

from __future__ import annotations

import json
from typing import Final

from twenty48_replay.core.i18n import ENGLISH, LANGUAGES, N_, translations
from twenty48_replay.core.reasons import TEMPLATES

#: The codes the page's verifier gives (verify.js, fair.js, key_sets.js, trusted_keys.js).
JS_REASON_CODES: Final = (
    "move.no_change",
    "move.game_over",
    "claim.score",
    "claim.max_tile",
    "claim.final_board",
    "claim.final_board_cell",
    "fair.commitment",
    "fair.seed",
    "fair.no_signature",
    "fair.signature",
    "key.other",
    "key.unlisted",
    "key.revoked",
    "key.out_of_time",
    "key.out_of_time_open",
    "signature.invalid",
    "signature.mismatch",
    "signature.r_not_canonical",
    "signature.s_not_canonical",
)

#: The codes of the page's record reader (record.js, json.js, canonical.js, rng.js's seed
#: check): the reading rules of SPEC 6.4 as twenty48_replay/core/record.py words them, so an
#: unreadable record on a page in another language is said in that language.
JS_READER_CODES: Final = tuple(
    code
    for code in TEMPLATES
    if (
        code.split(".")[0] in ("json", "record", "seed", "canonical", "value")
        and code != "canonical.key"  # a key that is not a string: the Python reader's only
    )
    or code in ("field", "text", "input.too_large", "input.too_many_values", "input.not_utf8")
    or (
        code.startswith("fair.")
        and code not in JS_REASON_CODES
        and code not in ("fair.signer_key", "fair.unreadable")
    )
)

#: Words of the replay page's script (replay_page.js's ``pageSay``/``pageT``), marked for the
#: catalog; a test checks that every literal the script translates is here.
PAGE_MESSAGES: Final = (
    N_("2048 replay"),
    N_("verified: {summary}"),
    N_("NOT verified (replayed: {summary})"),
    N_("NOT verified: the record cannot be read"),
    N_("score {score}, max tile {tile}, {moves} moves"),
    N_("score {score}"),
    N_("Move {number} changes nothing, so the replay below stops at the {valid} before it."),
    N_("1 valid move"),
    N_("{count} valid moves"),
    N_("Fair play: {status}"),
    N_("every check passed"),
    N_("the signature was not checked"),
    N_("a check failed"),
    N_("fair"),
    N_("unchecked"),
    N_("not fair"),
    N_("self-seeded"),
    N_("passed"),
    N_("failed"),
    N_("not checked"),
    N_("Self-seeded game: the player chose the seed, so there are no fair-play claims to check."),
    N_("the page could not verify the record: {problem}"),
    N_("({count} more characters)"),
    N_("Fair-play data unusable: {problem}"),
    N_("Commitment: {problem}"),
    N_("Commitment: the server seed revealed after the game is the one committed to before it."),
    N_("Seed derivation: {problem}"),
    N_("the seed"),
    N_("Seed derivation: the game's seed comes from the server seed and the player's seed."),
    N_("Signature: {problem}"),
    N_("Signature: signed by the trusted server key{key}."),
    N_(
        "Signature: not checked; no trusted key was given when this page was made "
        "(twenty48 export --trust)."
    ),
    N_("Player"),
    N_("Seed"),
    N_("Started"),
    N_("Finished"),
    N_("Client"),
    N_("Assisted"),
    N_("Notes"),
    N_("Server game"),
    N_("Server key id"),
    N_("Client seed"),
    N_("Commitment"),
    N_("Server seed"),
    N_("Game started"),
    N_("Game ended"),
    # a flag's value among the details (assisted), and the board's description
    N_("Yes"),
    N_("No"),
    N_("board"),
    # viewer.js (through the translate function replay_page.js gives it)
    N_("move {step} / {last}"),
    N_("move {step}: {letter}"),
    N_("Pause"),
    N_("Play"),
    N_("game over"),
    N_("2048 reached"),
)

#: The trusted-key reader's sentences (trusted_keys.js, key_sets.js: TrustedKeyError's
#: templates), the reference's KeyFileError templates (signing.py, keyset.py) word for word
#: where it has them, so a bad trust document or a server's bad key is said in the page's
#: language; a test checks every template the scripts give is here.
KEY_FILE_MESSAGES: Final = (
    N_("{where}public_key must be 64 lowercase hex characters"),
    N_("{where}public_key: {problem}"),
    N_("the public key is not a canonical curve point"),
    N_("the public key is a point of small order"),
    N_('not a twenty48 key: expected {"algorithm": "Ed25519", ...}'),
    N_("{where}key_id {shown} does not match the public key ({key_id})"),
    N_("{where}key_id not a string does not match the public key ({key_id})"),
    N_("a key set: read it with key_sets.js"),
    N_("this is a private key; give the server's public key"),
    N_("not JSON (the well-known document) and not a PEM public key (-----BEGIN PUBLIC KEY-----)"),
    N_("{count} PEM boundary lines: a key file holds one PUBLIC KEY block"),
    N_("not a PEM public key (-----BEGIN PUBLIC KEY-----)"),
    N_("the PEM public key is not valid base64"),
    N_("the PEM public key is not an Ed25519 key"),
    N_("is over {limit} bytes: not a key"),
    N_("not UTF-8 text"),
    N_("not a well-known key document: {problem}"),
    N_("a trusted key is 32 bytes, 64 hex characters, a PEM public key or the well-known document"),
    N_("{where} must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z"),
    N_("{where} must be an object"),
    N_("{where}.{name} is not a key of a key entry"),
    N_("{where}.{name} is missing"),
    N_("{where}: from {since} is after until {until}"),
    N_("{where}.revoked must be true or false"),
    N_("{where}.reason is missing: a revoked key says why"),
    N_("{where}.reason is given for a key that is not revoked"),
    N_("{where} must be a string of 1 to {limit} characters"),
    N_("{where} is not encodable as UTF-8"),
    N_("keys must be a non-empty array of key entries"),
    N_("keys[{index}]: key {key_id} is listed twice (first as keys[{first}])"),
    N_("a key set has exactly one key in use (until null), this one has {count}"),
    N_("the key in use, keys[{index}], is not the document's public_key"),
    N_("the key in use, keys[{index}], is revoked: a server rotates to a new key first"),
)

#: The codes of the play page's witness (play_witness.js): in their own generated module,
#: so that the verifier's bundle (replay page, verify.js) does not carry them.
WITNESS_CODES: Final = tuple(
    code for code in TEMPLATES if code.startswith("witness.") or code == "text"
)

#: The codes of a score server's refusals (its JSON answers' ``error_code``): in their own
#: generated module (refusal_templates.js), which only the served pages' scripts import.
REFUSAL_CODES: Final = tuple(
    code for code in TEMPLATES if code.startswith(("name.", "server.")) or code == "field"
)


#: Words of the play page's script (play_page.js's ``say``), marked for the catalog; a test
#: checks that every literal the script says is here.
PLAY_PAGE_MESSAGES: Final = (
    N_("Type a name first: the leaderboard shows it."),
    N_("Your seed is longer than 128 characters."),
    N_("Asking the server for a game…"),
    N_("Commitment received; sending your seed…"),
    N_("Your move: arrow keys, WASD or swipe."),
    N_("Could not start a game: {reason}"),
    N_(
        "This name is registered here, and its secret is not in this browser: give its "
        "secret, or choose another name."
    ),
    N_("That is not a name's secret: it is 16 to 256 letters, digits, - and _."),
    N_("No secret of {name} is kept in this browser."),
    N_("Type the name first."),
    N_(
        "Whoever has this secret can play as {name}. To play the name in a terminal, paste it "
        "into: twenty48 player-secret --server {url} --player {name} --keep"
    ),
    N_("Registering the name…"),
    N_("Move not played: {reason}"),
    N_("Game over"),
    N_("Game ended"),
    N_("2048! Keep going for a higher score."),
    N_("End and sign game {id} now? Its score counts as it stands."),
    N_("Could not end the game: {reason}"),
    N_("The game ended, but it could not be checked: {reason}"),
    N_(
        "✓ Every answer followed the rules, SHA-256 of the server seed is the commitment you "
        "saw before your first move, and the signed record replays to exactly the game you "
        "were shown."
    ),
    N_("1 move"),
    N_("{count} moves"),
    N_(
        "{title}. Signed game {id}: {score} points in {moves}, largest tile {tile}; the replay "
        "page checks its record. Press New game to play again."
    ),
    N_("Not fair"),
    N_("Stopped"),
    N_("The server broke the rules; the game is stopped. The evidence is kept in this browser."),
    N_("The server's answer cannot be used; the game is stopped."),
    N_("✓ SHA-256 of the server seed is the commitment you saw before your first move."),
    N_("✗ The revealed server seed does not match the commitment: this game was not fair."),
    N_("Game resumed: your move."),
    N_("none yet"),
    N_("revealed when the game ends"),
    N_("board"),
    # api_client.js's own words (ApiUnusable, and ApiRefusal when the server is out of reach)
    N_("no whole answer from the server to {request} within {seconds} s"),
    N_("no answer"),
    N_("cannot reach the server ({problem})"),
    N_("the server answered {status}: {reason}"),
    N_("the server's answer to {request} is unusable: it is over {limit} bytes"),
    N_("the server's answer to {request} is unusable: {problem}"),
    N_("the server's answer to the registration holds no secret"),
)

#: The JSON reader's sentences (json.js), said in the page's language where the play page
#: shows why an answer is unusable.
JSON_READER_CODES: Final = tuple(code for code in TEMPLATES if code.startswith("json."))

#: Words of the leaderboard page's script (leaderboard_page.js's ``say``).
LEADERBOARD_PAGE_MESSAGES: Final = (
    N_("bot?"),
    N_("registered name: played with its secret"),
    N_("suspected bot: engine-match rate or time between moves beyond the server's thresholds"),
    N_("replay"),
    N_("Could not load the leaderboard: {reason}"),
    N_("No finished fair game yet."),
    N_("Play the first one."),
    N_("1 player."),
    N_("{count} players."),
)


def _generated(name: str, constant: str, codes: tuple[str, ...]) -> str:
    table = {code: TEMPLATES[code] for code in codes}
    # One line, no spaces between entries: the page's bundle keeps a line as it is, and the
    # replay page has a size budget (tests/web/test_web_export.py).
    body = json.dumps(table, ensure_ascii=False, separators=(",", ":"))
    return (
        f"// {name}: GENERATED by twenty48_replay/web/messages.py from reasons.py; do not edit.\n"
        f"\nexport const {constant} = Object.freeze({body});\n"
    )


def reason_templates_js() -> str:
    """The text of ``web/js/reason_templates.js``: the codes the verifier gives, in English."""
    return _generated(
        "reason_templates.js", "REASON_TEMPLATES", (*JS_REASON_CODES, *JS_READER_CODES)
    )


def witness_templates_js() -> str:
    """The text of ``web/js/witness_templates.js``: the play page witness's codes."""
    return _generated("witness_templates.js", "WITNESS_TEMPLATES", WITNESS_CODES)


def refusal_templates_js() -> str:
    """The text of ``web/js/refusal_templates.js``: a score server's refusal codes."""
    return _generated("refusal_templates.js", "REFUSAL_TEMPLATES", REFUSAL_CODES)


def page_messages() -> tuple[str, ...]:
    """Every English text the page's script may translate: templates and page words."""
    codes = (*JS_REASON_CODES, *JS_READER_CODES)
    return tuple(
        dict.fromkeys([*(TEMPLATES[code] for code in codes), *PAGE_MESSAGES, *KEY_FILE_MESSAGES])
    )


def page_catalog(language: str) -> dict[str, str] | None:
    """``{english: translation}`` for the page in ``language``; None for English.

    Read from the compiled catalog (the ``.mo`` of the ``.po``), so the
    page and the command line always say the same.  Raises ValueError for
    a language that is not one of :data:`twenty48_replay.core.i18n.LANGUAGES`.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    if language == ENGLISH:
        return None
    catalog = translations(language)
    return {message: catalog.gettext(message) for message in page_messages()}


def served_catalog(language: str, words: tuple[str, ...]) -> dict[str, str] | None:
    """``{english: translation}`` of a served page's ``words`` and of every reason its
    scripts may show (the verifier's, the play witness's and the server's refusals); None
    for English.

    Read from the compiled catalog, as :func:`page_catalog` is.  Raises ValueError
    for a language that is not one of :data:`twenty48_replay.core.i18n.LANGUAGES`.
    """
    if language not in LANGUAGES:
        raise ValueError(f"unknown language {language!r}")
    if language == ENGLISH:
        return None
    catalog = translations(language)
    codes = (
        *JS_REASON_CODES,
        *JS_READER_CODES,
        *WITNESS_CODES,
        *JSON_READER_CODES,
        *REFUSAL_CODES,
    )
    messages = dict.fromkeys([*words, *(TEMPLATES[code] for code in codes), *KEY_FILE_MESSAGES])
    return {message: catalog.gettext(message) for message in messages}


__all__ = [
    "JSON_READER_CODES",
    "JS_READER_CODES",
    "JS_REASON_CODES",
    "KEY_FILE_MESSAGES",
    "LEADERBOARD_PAGE_MESSAGES",
    "PAGE_MESSAGES",
    "PLAY_PAGE_MESSAGES",
    "REFUSAL_CODES",
    "WITNESS_CODES",
    "page_catalog",
    "page_messages",
    "reason_templates_js",
    "refusal_templates_js",
    "served_catalog",
    "witness_templates_js",
]
