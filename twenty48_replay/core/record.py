"""The record format, version 1: a seed, a move string and claims, as JSON.

The reader is strict on purpose, because a record is a public contract that
other languages must read the same way (schema/SPEC.md, section 6): it
refuses duplicate keys, numbers that are not written as integers, values
outside the limits, and anything that is not UTF-8, always with a
:class:`RecordError` that names the field.  Structuring and unstructuring go
through one cattrs converter; validation happens before it, so the converter
only ever sees clean data.

Every readable record writes back to the same values (SPEC 6.3): integers of
any length are kept exactly (those too long for Python's ``int()`` as
:class:`BigInteger`, their digits), other numbers as the nearest IEEE double,
and a number that would become infinite or zero on the way is refused.
Memory stays bounded (SPEC 7): the input is at most 16 MiB and a cheap count
before parsing refuses more than :data:`MAX_VALUES` JSON values, so no input
can make the parser build millions of objects.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from typing import Any, Final

import attrs
import cattrs

from twenty48_replay.core.board import MAX_TILE, Board
from twenty48_replay.core.errors import RecordError
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.rng import seed_key

FORMAT: Final = "twenty48-record"
VERSION: Final = 1
MAX_MOVES: Final = 1_000_000
MAX_INTEGER: Final = 2**53
#: Bytes of one record (a .json file, a single-record stdin, one JSON Lines line without its LF).
MAX_INPUT_BYTES: Final = 16 * 1024 * 1024
#: JSON values in one record, at every depth, the record object included (SPEC 7).
MAX_VALUES: Final = 1_000_000
#: Deepest nesting of arrays/objects accepted (the spec asks for at least 64).
MAX_NESTING: Final = 100
#: Longer integers stay text (:class:`BigInteger`): ``int()`` is quadratic and capped past 4,300.
_INT_DIGITS: Final = 640
TILE_VALUES: Final = frozenset([0] + [2**e for e in range(1, 18)])
_INT_ONLY: Final = {int}
MOVE_LETTERS: Final = frozenset("UDLR")
#: Optional keys whose meaning the format defines, with their JSON type.
METADATA_TYPES: Final[dict[str, type]] = {
    "player": str,
    "started": str,
    "finished": str,
    "client": str,
    "notes": str,
    "assisted": bool,
}
# "fair" and "signature" (fair play, SPEC section 11) are checked by fair.validate_fair_fields.
_CORE_KEYS: Final = ("format", "version", "seed", "moves", "score", "max_tile", "final_board")

Grid = tuple[tuple[int, int, int, int], ...]


@attrs.frozen(slots=True, eq=True)
class Record:
    """One game as a seed, its valid moves and what the player claims.

    ``extra`` holds every other top-level key (metadata such as ``player``
    and unknown keys) in its original order, so a round trip keeps them.
    """

    seed: str
    moves: str
    score: int
    max_tile: int | None = None
    final_board: Grid | None = None
    extra: dict[str, Any] = attrs.field(factory=dict, hash=False)

    @property
    def player(self) -> str | None:
        """The ``player`` metadata, if any."""
        value = self.extra.get("player")
        return value if isinstance(value, str) else None

    @property
    def move_count(self) -> int:
        """Number of moves in the record."""
        return len(self.moves)

    @property
    def final_board_value(self) -> Board | None:
        """The claimed final board as a :class:`Board`."""
        return None if self.final_board is None else Board.from_rows(self.final_board)

    @classmethod
    def from_json(cls, text: str | bytes, *, bom: bool = True) -> Record:
        """Read one record from JSON text; raises :class:`RecordError`.

        ``bom=False`` refuses a byte order mark (see :func:`loads_strict`).
        """
        return cls.from_dict(loads_strict(text, bom=bom))

    @classmethod
    def from_dict(cls, data: object) -> Record:
        """Read one record from already-parsed JSON; raises :class:`RecordError`."""
        return converter.structure(validate_record_dict(data), cls)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict: format keys first, then ``extra``."""
        out: dict[str, Any] = converter.unstructure(self)
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        """The record as JSON text (compact unless ``indent`` is given).

        Indented, each row of ``final_board`` stays on one line (``[2, 4, 0, 0]``),
        so the board reads as a board instead of sixteen lines of numbers.
        """
        data = self.to_dict()
        if indent is None or self.final_board is None:
            return dumps_value(data, indent=indent)
        marker = "final-board-" + os.urandom(8).hex()
        data["final_board"] = marker
        text = dumps_value(data, indent=indent)
        pad = " " * indent
        rows = ",\n".join(
            pad * 2 + "[" + ", ".join(str(cell) for cell in row) + "]" for row in self.final_board
        )
        return text.replace(f'"{marker}"', "[\n" + rows + "\n" + pad + "]", 1)


@attrs.frozen(slots=True)
class BigInteger:
    """A JSON integer too long for ``int()`` (over 640 digits), kept as its exact digits.

    Only unknown keys can hold one (a claim that long is over its limit);
    :func:`dumps_value` writes it back digit for digit.
    """

    digits: str

    @property
    def negative(self) -> bool:
        """Whether the number is below zero."""
        return self.digits.startswith("-")


_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def dumps_value(value: Any, *, indent: int | None = None, ensure_ascii: bool = False) -> str:
    """JSON text of a value read by this module, :class:`BigInteger` digits included.

    Text with a lone surrogate is written with every non-ASCII character
    escaped (``\\udc00``), since it has no UTF-8 form.

    The standard encoder cannot write raw number text, so each big integer
    first becomes a string holding a random marker, then the quoted marker
    is replaced by the digits.  Use this (not ``json.dumps``) for ``extra``.
    """
    found: list[str] = []
    marker = "\x00" + os.urandom(8).hex() + ":"

    def default(obj: object) -> str:
        if isinstance(obj, BigInteger):
            found.append(obj.digits)
            return f"{marker}{len(found) - 1}"
        raise TypeError(f"{type(obj).__name__} is not JSON")

    separators = (",", ":") if indent is None else (",", ": ")
    options: dict[str, Any] = {
        "indent": indent,
        "separators": separators,
        "allow_nan": False,
        "default": default,
    }
    text = json.dumps(value, ensure_ascii=ensure_ascii, **options)
    if not ensure_ascii and _SURROGATE.search(text):
        # A lone surrogate (readable, SPEC 6.3) has no UTF-8: escape it, so the text stays writable.
        found.clear()
        text = json.dumps(value, ensure_ascii=True, **options)
    if found:
        quoted = json.dumps(marker)[:-1]  # '"\u0000<hex>:' as the encoder writes it
        text = re.sub(re.escape(quoted) + r'(\d+)"', lambda m: found[int(m.group(1))], text)
    return text


def loads_value(text: str | bytes) -> Any:
    """Parse JSON written by :func:`dumps_value` (e.g. stored metadata), big integers too."""
    return json.loads(text, parse_int=_parse_int)


# ---------------------------------------------------------------- reading JSON


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)  # in C; only a dict shorter than its pairs has a duplicate to name
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _value in pairs:
            if key in seen:
                raise RecordError(Reason("json.duplicate_key", {"key": key}))
            seen.add(key)
    return obj


def _refuse_constant(name: str) -> Any:
    raise RecordError(Reason("json.constant", {"name": name}))


def _parse_int(digits: str) -> int | BigInteger:
    return int(digits) if len(digits) <= _INT_DIGITS else BigInteger(digits)


#: Python's JSON parser's messages (without a trailing " at"), as reason codes.
_JSON_WORDS: Final = {
    "Expecting value": "json.expecting_value",
    "Expecting property name enclosed in double quotes": "json.expecting_name",
    "Expecting ':' delimiter": "json.expecting_colon",
    "Expecting ',' delimiter": "json.expecting_comma",
    "Extra data": "json.extra_data",
    "Invalid control character": "json.control_character",
    "Invalid \\escape": "json.bad_escape",
    "Invalid \\uXXXX escape": "json.bad_unicode_escape",
    "Unterminated string starting": "json.unterminated_string",
    "Illegal trailing comma before end of object": "json.trailing_comma_object",
    "Illegal trailing comma before end of array": "json.trailing_comma_array",
}

_ZERO_SIGNIFICAND: Final = re.compile(r"-?[0.]*(?:[eE].*)?")


def _parse_float(text: str) -> float:
    """A number with a fraction or exponent: the nearest double, if that is the same number.

    SPEC 6.3: out of range (rounds to infinity) or non-zero but rounding to
    zero is unreadable, so that writing the record back never changes it.
    """
    value = float(text)
    if math.isinf(value):
        raise RecordError(Reason("json.number_too_large", {"number": _short(text)}))
    if value == 0.0 and not _ZERO_SIGNIFICAND.fullmatch(text):
        raise RecordError(Reason("json.number_too_small", {"number": _short(text)}))
    return value


def _short(text: str) -> Reason:
    if len(text) <= 24:
        return Reason("value.digits", {"digits": text})
    return Reason("value.long_digits", {"head": text[:10], "tail": text[-10:], "length": len(text)})


#: A JSON string, or an unterminated one up to the end (possessive: linear on any input;
#: with backtracking, thousands of unclosed ``"\\`` made the scan quadratic).
_STRING_BYTES: Final = re.compile(rb'"[^"\\]*+(?:\\.[^"\\]*+)*+(?:"|\\?\Z)', re.DOTALL)


def count_values(data: bytes) -> int:
    """How many JSON values ``data`` holds, at every depth, the outermost one included.

    Exact for valid JSON, in C-speed passes and without building anything:
    strings become ``0``, whitespace goes, and then every comma adds a
    value, as does every ``[`` or ``{`` that is not empty (the first
    element), plus the outermost value.  A quick bound over the raw bytes
    settles the usual case (a record holds a few dozen values).
    """
    quick = 1 + data.count(b",") + data.count(b"[") + data.count(b"{")
    if quick <= MAX_VALUES:
        return quick
    skeleton = _STRING_BYTES.sub(b"0", data).translate(None, b" \t\r\n")
    return (
        1
        + skeleton.count(b",")
        + skeleton.count(b"[")
        + skeleton.count(b"{")
        - skeleton.count(b"[]")
        - skeleton.count(b"{}")
    )


def loads_strict(text: str | bytes, *, bom: bool = True) -> Any:
    """Parse JSON the way the spec demands (UTF-8, no duplicate keys, no NaN, the limits).

    ``bom`` allows one byte order mark at the very start; the readers of
    :mod:`twenty48_replay.bulk.sources` pass ``bom=True`` only for the record
    that starts a file or stream, so a BOM anywhere else is an error.
    """
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    if len(data) > MAX_INPUT_BYTES:
        raise RecordError(Reason("input.too_large", {"size": len(data), "limit": MAX_INPUT_BYTES}))
    values = count_values(data)
    if values > MAX_VALUES:
        raise RecordError(Reason("input.too_many_values", {"count": values, "limit": MAX_VALUES}))
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig" if bom else "utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(Reason("input.not_utf8", {"byte": exc.start + 1})) from None
    elif bom and text.startswith("\ufeff"):
        text = text[1:]
    # With at most _INT_DIGITS digits in all, no integer can need BigInteger, and the
    # decoder's own int() (in C) gives what _parse_int would, without a call per number.
    few_digits = len(data) - len(data.translate(None, b"0123456789")) <= _INT_DIGITS
    del data
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_int=None if few_digits else _parse_int,
            parse_float=_parse_float,
            parse_constant=_refuse_constant,
        )
    except RecordError:
        raise
    except json.JSONDecodeError as exc:
        if not exc.doc.strip(" \t\r\n"):
            raise RecordError(Reason("json.empty")) from None
        # Some of json's messages end in "at" already ("Unterminated string starting at").
        words = exc.msg.removesuffix(" at")
        problem = _JSON_WORDS.get(words)
        raise RecordError(
            Reason(
                "json.syntax",
                {
                    "problem": Reason(problem) if problem else Reason("text", {"text": words}),
                    "line": exc.lineno,
                    "column": exc.colno,
                },
            )
        ) from None
    except RecursionError:
        raise RecordError(Reason("json.too_deep")) from None
    except ValueError as exc:  # pragma: no cover - every number goes through a hook
        raise RecordError(Reason("json.refused", {"problem": str(exc)})) from None


# ---------------------------------------------------------------- validation


def _describe(value: object) -> Reason:
    """A value in words, for a reason (a reason itself, so that it is translated)."""
    if isinstance(value, float):
        return Reason("value.fraction", {"number": value})
    if isinstance(value, BigInteger):
        return _short(value.digits)
    if isinstance(value, bool):
        return Reason("value.true" if value else "value.false")
    if value is None:
        return Reason("value.null")
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return Reason("value.string", {"text": shown})
    if isinstance(value, list):
        return Reason("value.array")
    if isinstance(value, dict):
        return Reason("value.object")
    if isinstance(value, int):
        return Reason("value.integer", {"number": value})
    return Reason("text", {"text": repr(value)})


def _integer(value: object, field: str) -> int:
    if isinstance(value, BigInteger):
        why = "record.negative" if value.negative else "record.over_limit"
        raise RecordError(Reason(why, {"value": _describe(value)}), field=field)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(Reason("record.not_integer", {"value": _describe(value)}), field=field)
    if value < 0:
        raise RecordError(Reason("record.negative", {"value": value}), field=field)
    if value > MAX_INTEGER:
        raise RecordError(Reason("record.over_limit", {"value": value}), field=field)
    return value


def _tile(value: object, field: str) -> int:
    number = _integer(value, field)
    if number not in TILE_VALUES:
        raise RecordError(
            Reason("record.not_tile", {"value": number, "max": MAX_TILE}), field=field
        )
    return number


def _grid(value: object, field: str) -> Grid:
    if type(value) is list and len(value) == 4:  # the usual, valid case at C speed
        rows = [tuple(row) for row in value if type(row) is list and len(row) == 4]
        if len(rows) == 4:
            cells = rows[0] + rows[1] + rows[2] + rows[3]
            if set(map(type, cells)) == _INT_ONLY and TILE_VALUES.issuperset(cells):
                return tuple(rows)  # four 4-tuples, checked
    if not isinstance(value, list) or len(value) != 4:
        raise RecordError(Reason("record.not_rows"), field=field)
    grid = []
    for r, row in enumerate(value):
        if not isinstance(row, list) or len(row) != 4:
            raise RecordError(Reason("record.not_row"), field=f"{field}[{r}]")
        a, b, c, d = (_tile(v, f"{field}[{r}][{col}]") for col, v in enumerate(row))
        grid.append((a, b, c, d))
    return tuple(grid)


def only_move_letters(text: str) -> bool:
    """Whether ``text`` holds only U, D, L and R (the empty string does).

    In C-speed passes: a set's ``issuperset`` looks up every character as an
    object, which cost more per move than the native core's whole replay.
    """
    return text.isascii() and not text.encode("ascii").translate(None, b"UDLR")


def _moves(value: object) -> str:
    if not isinstance(value, str):
        raise RecordError(Reason("record.not_string", {"value": _describe(value)}), field="moves")
    if len(value) > MAX_MOVES:
        raise RecordError(
            Reason("record.too_many_moves", {"count": len(value), "limit": MAX_MOVES}),
            field="moves",
        )
    if not only_move_letters(value):
        position = next(i for i, ch in enumerate(value) if ch not in MOVE_LETTERS)
        raise RecordError(
            Reason("record.move_letter", {"letter": value[position], "number": position + 1}),
            field="moves",
        )
    return value


def validate_record_dict(data: object) -> dict[str, Any]:
    """Check parsed JSON against the v1 format; returns the clean field dict."""
    if not isinstance(data, dict):
        raise RecordError(Reason("record.not_object", {"value": _describe(data)}))
    for key in ("format", "version", "seed", "moves", "score"):
        if key not in data:
            raise RecordError(Reason("record.missing"), field=key)
    if data["format"] != FORMAT:
        raise RecordError(
            Reason("record.format", {"value": _describe(data["format"]), "expected": FORMAT}),
            field="format",
        )
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, (int, BigInteger)):
        raise RecordError(
            Reason("record.not_integer", {"value": _describe(version)}), field="version"
        )
    if version != VERSION:
        raise RecordError(Reason("record.version", {"value": _describe(version)}), field="version")
    seed = data["seed"]
    if not isinstance(seed, str):
        raise RecordError(Reason("record.not_string", {"value": _describe(seed)}), field="seed")
    seed_key(seed)
    clean: dict[str, Any] = {
        "seed": seed,
        "moves": _moves(data["moves"]),
        "score": _integer(data["score"], "score"),
        "max_tile": None,
        "final_board": None,
    }
    if "max_tile" in data:
        max_tile = _tile(data["max_tile"], "max_tile")
        if max_tile == 0:
            raise RecordError(Reason("record.zero_tile"), field="max_tile")
        clean["max_tile"] = max_tile
    if "final_board" in data:
        clean["final_board"] = _grid(data["final_board"], "final_board")
    extra = {}
    for key, value in data.items():
        if key in _CORE_KEYS:
            continue
        expected = METADATA_TYPES.get(key)
        if expected is not None and (
            not isinstance(value, expected) or (expected is str and isinstance(value, bool))
        ):
            raise RecordError(
                Reason("record.wrong_type", {"value": _describe(value), "type": expected.__name__}),
                field=key,
            )
        _check_nesting(value, key)
        extra[key] = value
    if "fair" in extra or "signature" in extra:
        # Imported here: a self-seeded record (most of them) never pays for it.
        from twenty48_replay.core.fair import validate_fair_fields

        validate_fair_fields(data)
    clean["extra"] = extra
    return clean


def _check_nesting(value: Any, field: str) -> None:
    """Enforce the nesting limit, so that no later step (writing the record
    back, storing its metadata) can hit Python's recursion limit.

    Iterative and copy-free: a record may hold a million values.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= MAX_NESTING:
                raise RecordError(Reason("record.too_deep", {"limit": MAX_NESTING}), field=field)
            children = item.values() if isinstance(item, dict) else item
            stack.extend(
                (child, depth + 1) for child in children if isinstance(child, (list, dict))
            )


# ---------------------------------------------------------------- cattrs


def _make_converter() -> cattrs.Converter:
    conv = cattrs.Converter()

    def structure_record(data: Mapping[str, Any], _cls: type[Record]) -> Record:
        return Record(
            seed=data["seed"],
            moves=data["moves"],
            score=data["score"],
            max_tile=data.get("max_tile"),
            final_board=data.get("final_board"),
            extra=dict(data.get("extra", {})),
        )

    def unstructure_record(record: Record) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "seed": record.seed,
            "moves": record.moves,
            "score": record.score,
        }
        if record.max_tile is not None:
            out["max_tile"] = record.max_tile
        if record.final_board is not None:
            out["final_board"] = [list(row) for row in record.final_board]
        out.update(record.extra)
        return out

    conv.register_structure_hook(Record, structure_record)
    conv.register_unstructure_hook(Record, unstructure_record)
    return conv


#: The converter for records; other modules register their types on it.
converter: Final = _make_converter()
