"""Reasons as stable codes with parameters: one English text for machines, any language for people.

A verification reason, a record reader's error or a fair-play check's
reason is a :class:`Reason`: a ``code`` (``claim.score``) and its
``params`` (``{"claimed": 7010, "replayed": 7008}``).  The English text is
the code's template (:data:`TEMPLATES`) filled in; it is what ``--json``
has always printed in ``reasons`` and ``error``, byte for byte.  People
read the same template through the catalog (:mod:`twenty48_replay.core.i18n`),
so a Danish line says ``påstået point 7010, genspillet 7008``.  Other
implementations (the page's JavaScript among them) read ``reason_codes``
and the table in schema/SPEC.md (section 8.8) instead of parsing English.

A parameter is a JSON scalar or another reason (a value described in
words, the problem inside a field), so a nested reason is translated too.
Templates use Python's format syntax with three extras a JavaScript
renderer copies: ``{n:,}`` (thousands separated by commas), ``{s!r}``
(Python's quoting of a string) and ``{s!j}`` (a JSON string literal).
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Mapping
from typing import Any, Final, Union

import attrs

from twenty48_replay.core.i18n import N_, _

Translate = Callable[[str], str]
Param = Union[str, int, float, bool, None, "Reason"]

#: Every code and its English template (the msgid of its translation).  Stable: a
#: code is never reused for another meaning; schema/SPEC.md 8.8 lists them all.
TEMPLATES: Final[dict[str, str]] = {
    # -- replay (SPEC 8.4)
    "move.no_change": N_(
        "move {number} ({direction}) is not a valid move: it does not change the board"
    ),
    "move.game_over": N_("move {number} ({direction}) is not a valid move: the game is over"),
    "claim.score": N_("claimed score {claimed}, replayed {replayed}"),
    "claim.max_tile": N_("claimed max_tile {claimed}, replayed {replayed}"),
    "claim.final_board": N_(
        "claimed final_board differs from the replayed board in {cells} cells, first at "
        "row {row} column {column}: claimed {claimed}, replayed {replayed}"
    ),
    "claim.final_board_cell": N_(
        "claimed final_board differs from the replayed board in 1 cell, first at "
        "row {row} column {column}: claimed {claimed}, replayed {replayed}"
    ),
    # -- fair play (SPEC 11.7)
    "fair.commitment": N_(
        "fair: commitment {commitment} does not match server_seed: its SHA-256 is {sha256}"
    ),
    "fair.seed": N_(
        "fair: seed {seed!j} does not match server_seed and client_seed: "
        "HMAC-SHA256 gives {derived}"
    ),
    "fair.no_signature": N_("fair: no signature to check with the trusted key {trusted}"),
    "fair.unreadable": N_("fair: {problem}"),
    "fair.signature": N_("fair: {problem}"),
    "key.other": N_("signed by key {key_id}, not by the trusted key {trusted}"),
    "key.unlisted": N_(
        "signed by key {key_id}, which the trusted key set does not list "
        "(its current key is {trusted})"
    ),
    "key.revoked": N_("signed by key {key_id}, which the trusted key set marks revoked: {why}"),
    "key.out_of_time": N_(
        "signed by key {key_id} at {ended}, outside the time it was in use ({since} to {until})"
    ),
    "key.out_of_time_open": N_(
        "signed by key {key_id} at {ended}, outside the time it was in use ({since} to now)"
    ),
    "signature.invalid": N_("signature does not verify with the trusted key {key_id}: {problem}"),
    "signature.mismatch": N_("the record was changed after signing, or another key signed it"),
    "signature.r_not_canonical": N_("its R is not a canonical curve point"),
    "signature.s_not_canonical": N_("its S is not below the group order L (not canonical)"),
    "signature.length": N_("an Ed25519 signature is 64 bytes, not {length}"),
    "key.length": N_("an Ed25519 public key is 32 bytes, not {length}"),
    "key.not_canonical": N_("the public key is not a canonical curve point"),
    "key.small_order": N_("the public key is a point of small order"),
    # -- reading a record (SPEC 6.4)
    "field": N_("field '{field}': {problem}"),
    "input.too_large": N_("record is {size:,} bytes, over the limit of {limit:,}"),
    "input.file_too_large": N_("file is over the limit of {limit:,} bytes"),
    "input.file_size": N_("file is {size:,} bytes, over the limit of {limit:,}"),
    "input.line_too_large": N_("line is over the limit of {limit:,} bytes"),
    "input.too_many_values": N_("record holds {count:,} JSON values, over the limit of {limit:,}"),
    "input.not_utf8": N_("input is not UTF-8 (byte {byte})"),
    "input.no_such_file": N_("no such file"),
    "input.empty_directory": N_("is a directory with no .json or .jsonl files"),
    "input.permission_denied": N_("permission denied"),
    "input.unreadable": N_("cannot be read: {error}"),
    "input.stdin_closed": N_("cannot be read: standard input is closed"),
    "input.no_record": N_("has no record at line {line}"),
    "input.no_records": N_("has no record at any record"),
    "json.empty": N_("holds no JSON value (it is empty or only whitespace)"),
    "json.syntax": N_("not JSON: {problem} at line {line} column {column}"),
    "json.too_deep": N_("not JSON this reader accepts: nested too deeply"),
    "json.refused": N_("not JSON this reader accepts: {problem}"),
    "json.duplicate_key": N_("duplicate key {key!r}"),
    "json.constant": N_("{name} is not a JSON number"),
    "json.number_too_large": N_("the number {number} is too large for an IEEE double"),
    "json.number_too_small": N_("the number {number} is too small for an IEEE double"),
    # the JSON parser's own words (Python's json module), inside json.syntax
    "json.expecting_value": N_("Expecting value"),
    "json.expecting_name": N_("Expecting property name enclosed in double quotes"),
    "json.expecting_colon": N_("Expecting ':' delimiter"),
    "json.expecting_comma": N_("Expecting ',' delimiter"),
    "json.extra_data": N_("Extra data"),
    "json.control_character": N_("Invalid control character"),
    "json.bad_escape": N_("Invalid \\escape"),
    "json.bad_unicode_escape": N_("Invalid \\uXXXX escape"),
    "json.unterminated_string": N_("Unterminated string starting"),
    "json.trailing_comma_object": N_("Illegal trailing comma before end of object"),
    "json.trailing_comma_array": N_("Illegal trailing comma before end of array"),
    "record.not_object": N_("a record is a JSON object, not {value}"),
    "record.missing": N_("is missing"),
    "record.format": N_("{value} is not {expected!r}"),
    "record.version": N_("version {value} is not supported (this reader knows 1)"),
    "record.not_integer": N_("{value} is not an integer"),
    "record.negative": N_("{value} is negative"),
    "record.over_limit": N_("{value} is over the limit of 2^53"),
    "record.not_tile": N_("{value} is not 0 or a power of two from 2 to {max}"),
    "record.zero_tile": N_("0 is not a tile"),
    "record.not_rows": N_("must be an array of 4 rows"),
    "record.not_row": N_("must be an array of 4 tile values"),
    "record.not_string": N_("{value} is not a string"),
    "record.wrong_type": N_("{value} is not a {type}"),
    "record.too_many_moves": N_("{count} moves, the limit is {limit:,}"),
    "record.move_letter": N_("letter {letter!r} at move {number} is not U, D, L or R"),
    "record.too_deep": N_("nested deeper than {limit} levels"),
    "seed.not_string": N_("seed must be a string, not {type}"),
    "seed.empty": N_("seed is empty"),
    "seed.too_long": N_("seed has {length} characters, the limit is {limit}"),
    "seed.not_utf8": N_("seed is not encodable as UTF-8 (character {character})"),
    # -- reading the fair object and the signature (SPEC 11.4, 11.5)
    "fair.not_hex64": N_("must be 64 lowercase hex characters"),
    "fair.not_string": N_("must be a string"),
    "fair.empty": N_("is empty"),
    "fair.too_long": N_("has {length} characters, the limit is {limit}"),
    "fair.not_utf8_at": N_("is not encodable as UTF-8 (character {character})"),
    "fair.not_utf8": N_("is not encodable as UTF-8"),
    "fair.time": N_("must be a real date and time in RFC 3339 form such as 2026-11-30T12:00:00Z"),
    "fair.game_id_range": N_("{value} is outside 0..2^53"),
    "fair.game_id": N_("must be an integer from 0 to 2^53 or a string of 1 to {limit} characters"),
    "fair.not_object": N_("must be an object"),
    "fair.unknown_key": N_("is not a key of the fair object"),
    "fair.key_id": N_("must be 16 lowercase hex characters"),
    "fair.signature_text": N_("must be 128 lowercase hex characters (64 bytes)"),
    "fair.signature_alone": N_("a signature needs a fair object"),
    "fair.signer_key": N_("must name this key's id {key_id}"),
    "canonical.lone_surrogate": N_(
        "has a lone surrogate (character {character}); it has no canonical form"
    ),
    "canonical.beyond": N_("{value} is beyond ±2^53; it has no canonical form"),
    "canonical.fraction": N_("{value!r} is not an integer; a signed record holds integers only"),
    "canonical.key": N_("key {key!r} is not a string"),
    "canonical.not_json": N_("{type} is not a JSON value"),
    # -- the fair client's checks of the server's answers (twenty48_replay/fairplay/witness.py)
    "witness.unusable": N_("{where} is unusable: {problem}"),
    "witness.broken": N_("{where} breaks the rules: {rule}"),
    "witness.where.new_game": N_("the server's answer to the new game"),
    "witness.where.opening": N_("the server's opening board"),
    "witness.where.move": N_("the server's answer to move {n} ({letter})"),
    "witness.where.reveal": N_("the server's answer to finishing the game"),
    "witness.where.record": N_("the server's signed record"),
    "witness.cell": N_("row {row} column {column}"),
    "witness.shape.not_object": N_("it is {value}, not a JSON object"),
    "witness.shape.field": N_("field '{field}' is {value}, not {wanted}"),
    "witness.shape.missing": N_("field '{field}' is missing"),
    "witness.shape.integer": N_("an integer from {low} to {high}"),
    "witness.shape.flag": N_("true or false"),
    "witness.shape.hex64": N_("64 lowercase hex characters"),
    "witness.shape.board": N_("4 rows of 4 tiles (0 or a power of two from 2 to 131072)"),
    "witness.shape.token": N_("1 to {limit} visible ASCII characters"),
    "witness.opening.number": N_("it is numbered move {got}; a game opens at move 0"),
    "witness.opening.score": N_("its score is {got}; a game opens at 0"),
    "witness.opening.tiles": N_("it holds {count} tiles; a game opens with two"),
    "witness.opening.tile_value": N_("it holds a tile of {value}; opening tiles are 2 or 4"),
    "witness.game": N_("it is about game {got}, not game {id}"),
    "witness.max_tile": N_("it says the largest tile is {got}; the board's is {real}"),
    "witness.won": N_("it says the game is won, but no tile is 2048 or more"),
    "witness.not_won": N_("it says the game is not won, but a tile is 2048 or more"),
    "witness.over": N_("it says the game is over, but the board can still move"),
    "witness.not_over": N_("it says the game goes on, but no move changes the board"),
    "witness.move.refused": N_("it refused the move ({reason}), but the move changes the board"),
    "witness.move.number": N_("it numbers the move {got}, not {n} as sent"),
    "witness.move.letter": N_("it names the move {got}, not {letter} as sent"),
    "witness.move.spawn_field": N_(
        "its spawn field says {got} at {got_cell}, but the board's new tile is {value} at {cell}"
    ),
    "witness.move.gained": N_("it says the move gained {got} points; the slide gains {real}"),
    "witness.move.score": N_(
        "its score is {got}; the score before ({before}) plus the "
        "points of the move ({gained}) is {real}"
    ),
    "witness.move.finished": N_("it ends the game, but the board can still move"),
    "witness.where.spawn": N_("field 'spawn' of {where}"),
    "witness.move.no_tile": N_("its board has no new tile; every move adds one"),
    "witness.move.covered": N_(
        "its board puts {value} on {cell}, which holds {held} after "
        "the slide; a new tile goes on an empty cell"
    ),
    "witness.move.tiles": N_("its board has {count} new tiles; every move adds exactly one"),
    "witness.move.tile_value": N_("its new tile at {cell} is {value}; a new tile is 2 or 4"),
    "witness.reveal.commitment": N_(
        "it names the commitment {got}, not {commitment} sent before the first move"
    ),
    "witness.reveal.client_seed": N_("it names the client seed {got}, not ours"),
    "witness.reveal.server_seed": N_(
        "the SHA-256 of its server seed is {digest}, not the commitment {commitment}"
    ),
    "witness.reveal.game": N_(
        "its game ({moves} moves, score {score}) is not the game shown "
        "({shown_moves} moves, score {shown_score})"
    ),
    "witness.record.no_fair": N_("it has no fair object"),
    "witness.record.our_commitment": N_("the commitment sent before the first move"),
    "witness.record.our_client_seed": N_("our client seed"),
    "witness.record.our_game_id": N_("the id of the game played"),
    "witness.record.fair_field": N_("its fair.{key} is {got}, not {name}"),
    "witness.record.server_seed": N_("its server seed is not the one revealed when the game ended"),
    "witness.record.player": N_("its player is {got}, not {player} who played"),
    "witness.record.score": N_("its score is {got}, not {score} as played"),
    "witness.record.fair": N_("its fair play is {status}"),
    "witness.record.opening": N_("its opening board is not the opening board shown"),
    "witness.record.spawn": N_(
        "its new tile after move {n} is {value} at {cell}; the "
        "server showed {shown_value} at {shown_cell}"
    ),
    "witness.record.board": N_("its board after move {n} is not the board shown after move {n}"),
    "witness.record.steps": N_("it replays {count} of the {moves} moves shown"),
    "witness.record.move": N_("its move {n} is {got}, but {real} was played"),
    "witness.record.moves": N_("it holds {count} moves, but {played} were played"),
    # the play page's witness after a reload or a lost answer (play_witness.js only)
    "witness.where.lost_answer": N_("the server's game after a lost answer"),
    "witness.caught_up": N_(
        "its game ({moves} moves, score {score}) is not the game shown "
        "({shown_moves} moves, score {shown_score}) nor one move beyond it"
    ),
    # -- a player's name refused (twenty48_replay/fairplay/names.py), by a score server
    "name.empty": N_("the name is empty"),
    "name.too_long": N_("the name is longer than {limit} characters"),
    "name.invisible": N_("the name holds an invisible, filler or format character ({character})"),
    "name.space": N_("the name holds a space other than U+0020 ({character})"),
    "name.check_mark": N_(
        "the name holds a check mark or a look-alike ({character}), which this "
        "server's pages use for registered names"
    ),
    "name.marks": N_("the name has more than {limit} combining marks on one letter"),
    "name.double_space": N_("the name holds two spaces in a row"),
    "name.no_letter": N_("the name holds no letter or digit"),
    "name.key_too_long": N_("the name's normalised form is too long"),
    # -- a score server's refusals (its JSON answer's error_code)
    "server.name_banned": N_("this name is banned on this server"),
    "server.name_taken": N_("this name, or one that looks the same, is registered already"),
    "server.name_not_registered": N_("this name is not registered on this server"),
    "server.name_lookalike": N_("this name looks the same as a registered name; choose another"),
    "server.name_needs_secret": N_(
        "this name is registered: send its secret as 'Authorization: Bearer'"
    ),
    "server.name_wrong_secret": N_("wrong secret for this name"),
    "server.wrong_token": N_("wrong token for this game"),
    "server.no_game": N_("no game with id {id}"),
    "server.expired": N_("no game with id {id}: it was not started in time and has expired"),
    "server.already_started": N_("the game was already started"),
    "server.not_started": N_("the game is not started yet"),
    "server.finished": N_("the game is finished"),
    "server.too_fast": N_("the game is changing too fast; try again"),
    "server.next_move": N_("the next move is n = {next}, not {n}"),
    "server.move_played": N_("move {n} was already played, as {played}"),
    "server.too_many": N_("too many {what}; try again in {seconds} s"),
    "server.quota.create_game": N_("new games from this address"),
    "server.quota.move": N_("moves in this game"),
    "server.quota.submit_record": N_("records from this address"),
    "server.quota.register_name": N_("name registrations from this address"),
    "server.quota.other": N_("requests"),
    "server.store_failed": N_("the database could not store this (busy or unavailable); try again"),
    "server.unavailable": N_("the database is unavailable; try again"),
    # -- a value described in words (inside other reasons)
    "value.fraction": N_("{number!r} (a number with a fraction or exponent)"),
    "value.digits": N_("{digits}"),
    "value.long_digits": N_("{head}...{tail} ({length:,} characters)"),
    "value.true": N_("true"),
    "value.false": N_("false"),
    "value.null": N_("null"),
    "value.string": N_("the string {text!r}"),
    "value.array": N_("an array"),
    "value.object": N_("an object"),
    "value.integer": N_("{number}"),
    "text": N_("{text}"),
}


class _Formatter(string.Formatter):
    """``str.format`` plus the ``!j`` conversion (a JSON string literal)."""

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "j":
            return json.dumps(value, ensure_ascii=False)
        return super().convert_field(value, conversion)


_FORMATTER: Final = _Formatter()


def _identity(text: str) -> str:
    return text


@attrs.frozen(slots=True)
class Reason:
    """A reason's stable ``code`` and its ``params``; ``str()`` is the English text."""

    code: str
    params: Mapping[str, Param] = attrs.field(factory=dict)

    def render(self, tr: Translate = _identity) -> str:
        """The text, the template and every nested reason passed through ``tr``."""
        values = {
            key: value.render(tr) if isinstance(value, Reason) else value
            for key, value in self.params.items()
        }
        return _FORMATTER.vformat(tr(TEMPLATES[self.code]), (), values)

    def __str__(self) -> str:
        return self.render()

    def translated(self) -> str:
        """The text in the current language."""
        return self.render(_)

    def to_json(self) -> dict[str, Any]:
        """``{"code", "params"}``, nested reasons as the same kind of object."""
        return {
            "code": self.code,
            "params": {
                key: value.to_json() if isinstance(value, Reason) else value
                for key, value in self.params.items()
            },
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Reason:
        """The reason of :meth:`to_json`'s object (an unknown code reads as its English text)."""
        params = {
            key: cls.from_json(value) if isinstance(value, Mapping) else value
            for key, value in obj["params"].items()
        }
        return cls(str(obj["code"]), params)


def text(words: str) -> Reason:
    """Text with no code of its own (a system's message, such as an OS error)."""
    return Reason("text", {"text": words})


def in_field(field: str | None, problem: Reason) -> Reason:
    """``problem`` placed in a field (``field 'score': ...``), or itself when there is none."""
    return problem if field is None else Reason("field", {"field": field, "problem": problem})


__all__ = ["TEMPLATES", "Param", "Reason", "in_field", "text"]
