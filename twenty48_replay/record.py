"""The record format, version 1: a seed, a move string and claims, as JSON.

The reader is strict on purpose, because a record is a public contract that
other languages must read the same way (schema/SPEC.md, section 6): it
refuses duplicate keys, numbers that are not written as integers, values
outside the limits, and anything that is not UTF-8, always with a
:class:`RecordError` that names the field.  Structuring and unstructuring go
through one cattrs converter; validation happens before it, so the converter
only ever sees clean data.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import attrs
import cattrs

from twenty48_replay.board import MAX_TILE, Board
from twenty48_replay.errors import RecordError
from twenty48_replay.rng import seed_key

FORMAT: Final = "twenty48-record"
VERSION: Final = 1
MAX_MOVES: Final = 1_000_000
MAX_INTEGER: Final = 2**53
MAX_INPUT_BYTES: Final = 64 * 1024 * 1024
#: Deepest nesting of arrays/objects accepted (the spec asks for at least 64).
MAX_NESTING: Final = 100
TILE_VALUES: Final = frozenset([0] + [2**e for e in range(1, 18)])
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
    def from_json(cls, text: str | bytes) -> Record:
        """Read one record from JSON text; raises :class:`RecordError`."""
        return cls.from_dict(loads_strict(text))

    @classmethod
    def from_dict(cls, data: object) -> Record:
        """Read one record from already-parsed JSON; raises :class:`RecordError`."""
        return converter.structure(validate_record_dict(data), cls)

    def to_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict: format keys first, then ``extra``."""
        out: dict[str, Any] = converter.unstructure(self)
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        """The record as JSON text (compact unless ``indent`` is given)."""
        separators = (",", ":") if indent is None else (",", ": ")
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=indent, separators=separators)


# ---------------------------------------------------------------- reading JSON


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise RecordError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


class _Fraction(float):
    """A JSON number written with a fraction or exponent: never an integer."""


def _refuse_constant(name: str) -> Any:
    raise RecordError(f"{name} is not a JSON number")


def loads_strict(text: str | bytes) -> Any:
    """Parse JSON the way the spec demands (UTF-8, no duplicate keys, no NaN)."""
    if isinstance(text, bytes):
        if len(text) > MAX_INPUT_BYTES:
            raise RecordError(f"input is {len(text)} bytes, the limit is {MAX_INPUT_BYTES}")
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RecordError(f"input is not UTF-8 (byte {exc.start + 1})") from None
    elif text.startswith("\ufeff"):
        text = text[1:]
    try:
        return json.loads(
            text,
            object_pairs_hook=_no_duplicates,
            parse_float=_Fraction,
            parse_constant=_refuse_constant,
        )
    except RecordError:
        raise
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise RecordError("not JSON this reader accepts: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal with too many digits
        raise RecordError(f"not JSON this reader accepts: {exc}") from None


# ---------------------------------------------------------------- validation


def _describe(value: object) -> str:
    if isinstance(value, _Fraction):
        return f"{float(value)!r} (a number with a fraction or exponent)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        shown = value if len(value) <= 20 else value[:17] + "..."
        return f"the string {shown!r}"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return repr(value)


def _integer(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or isinstance(value, _Fraction):
        raise RecordError(f"{_describe(value)} is not an integer", field=field)
    if value < 0:
        raise RecordError(f"{value} is negative", field=field)
    if value > MAX_INTEGER:
        raise RecordError(f"{value} is over the limit of 2^53", field=field)
    return value


def _tile(value: object, field: str) -> int:
    number = _integer(value, field)
    if number not in TILE_VALUES:
        raise RecordError(f"{number} is not 0 or a power of two from 2 to {MAX_TILE}", field=field)
    return number


def _grid(value: object, field: str) -> Grid:
    if not isinstance(value, list) or len(value) != 4:
        raise RecordError("must be an array of 4 rows", field=field)
    grid = []
    for r, row in enumerate(value):
        if not isinstance(row, list) or len(row) != 4:
            raise RecordError("must be an array of 4 tile values", field=f"{field}[{r}]")
        a, b, c, d = (_tile(v, f"{field}[{r}][{col}]") for col, v in enumerate(row))
        grid.append((a, b, c, d))
    return tuple(grid)


def _moves(value: object) -> str:
    if not isinstance(value, str):
        raise RecordError(f"{_describe(value)} is not a string", field="moves")
    if len(value) > MAX_MOVES:
        raise RecordError(f"{len(value)} moves, the limit is {MAX_MOVES:,}", field="moves")
    if not MOVE_LETTERS.issuperset(value):
        position = next(i for i, ch in enumerate(value) if ch not in MOVE_LETTERS)
        raise RecordError(
            f"letter {value[position]!r} at move {position + 1} is not U, D, L or R", field="moves"
        )
    return value


def validate_record_dict(data: object) -> dict[str, Any]:
    """Check parsed JSON against the v1 format; returns the clean field dict."""
    if not isinstance(data, dict):
        raise RecordError(f"a record is a JSON object, not {_describe(data)}")
    for key in ("format", "version", "seed", "moves", "score"):
        if key not in data:
            raise RecordError("is missing", field=key)
    if data["format"] != FORMAT:
        raise RecordError(f"{_describe(data['format'])} is not {FORMAT!r}", field="format")
    version = data["version"]
    if isinstance(version, bool) or not isinstance(version, int) or isinstance(version, _Fraction):
        raise RecordError(f"{_describe(version)} is not an integer", field="version")
    if version != VERSION:
        raise RecordError(
            f"version {version} is not supported (this reader knows 1)", field="version"
        )
    seed = data["seed"]
    if not isinstance(seed, str):
        raise RecordError(f"{_describe(seed)} is not a string", field="seed")
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
            raise RecordError("0 is not a tile", field="max_tile")
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
            raise RecordError(f"{_describe(value)} is not a {expected.__name__}", field=key)
        extra[key] = _plain(value, key)
    if "fair" in extra or "signature" in extra:
        # Imported here: a self-seeded record (most of them) never pays for it.
        from twenty48_replay.fair import validate_fair_fields

        validate_fair_fields(data)
    clean["extra"] = extra
    return clean


def _plain(value: Any, field: str, depth: int = 1) -> Any:
    """Turn reader-internal number types back into plain JSON values.

    Also enforces the nesting limit, so that no later step (writing the
    record back, storing its metadata) can hit Python's recursion limit.
    """
    if isinstance(value, _Fraction):
        return float(value)
    if isinstance(value, (list, dict)):
        if depth >= MAX_NESTING:
            raise RecordError(f"nested deeper than {MAX_NESTING} levels", field=field)
        if isinstance(value, list):
            return [_plain(v, field, depth + 1) for v in value]
        return {k: _plain(v, field, depth + 1) for k, v in value.items()}
    return value


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
