"""The record reader: strict on bad input, lossless on good input, in step with the JSON Schema."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import json_texts as jt
from support.common import SCHEMA, load_json

from twenty48_replay import Record, RecordError
from twenty48_replay.core.record import _CORE_KEYS, MAX_MOVES

CORE_KEYS = list(_CORE_KEYS)

VALIDATOR = jsonschema.Draft202012Validator(load_json(SCHEMA / "record.schema.json"))


def base(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "format": "twenty48-record",
        "version": 1,
        "seed": "s",
        "moves": "LR",
        "score": 0,
    }
    record.update(changes)
    return {k: v for k, v in record.items() if v is not _DROP}


_DROP = object()


def test_round_trip_keeps_unknown_keys_in_order() -> None:
    text = (
        '{"format":"twenty48-record","zeta":[1,{"b":2.5}],"version":1,"seed":"Grüße",'
        '"moves":"LURD","score":4,"player":"ana","alpha":null,"max_tile":8}'
    )
    record = Record.from_json(text)
    assert record.player == "ana"
    assert list(record.extra) == ["zeta", "player", "alpha"]
    again = Record.from_json(record.to_json())
    assert again == record
    assert list(json.loads(record.to_json())) == [
        "format",
        "version",
        "seed",
        "moves",
        "score",
        "max_tile",
        "zeta",
        "player",
        "alpha",
    ]
    assert json.loads(record.to_json())["zeta"] == [1, {"b": 2.5}]


def test_bom_and_bytes_are_accepted() -> None:
    text = json.dumps(base())
    assert Record.from_json(("\ufeff" + text).encode("utf-8")) == Record.from_json(text)


BAD: list[tuple[str, Any, str]] = [
    ("format", "twenty48", "format"),
    ("version", 2, "not supported"),
    ("version", 1.0, "not an integer"),
    ("version", True, "not an integer"),
    ("score", 12.0, "not an integer"),
    ("score", True, "not an integer"),
    ("score", "12", "not an integer"),
    ("score", -1, "negative"),
    ("score", 2**53 + 1, "2^53"),
    ("seed", "", "empty"),
    ("seed", "x" * 129, "129 characters"),
    ("seed", 5, "not a string"),
    ("seed", "\ud800", "UTF-8"),
    ("moves", "LUX", "'X' at move 3"),
    ("moves", "lu", "at move 1"),
    ("moves", "LU\n", "at move 3"),
    ("moves", "L" * (MAX_MOVES + 1), "limit"),
    ("max_tile", 3, "power of two"),
    ("max_tile", 0, "not a tile"),
    ("max_tile", 262144, "power of two"),
    ("final_board", [[0] * 4] * 3, "4 rows"),
    ("final_board", [[0] * 4] * 3 + [[0, 0, 3, 0]], "final_board[3][2]"),
    ("final_board", [[0] * 4] * 3 + [[0, 0, 0]], "final_board[3]"),
    ("player", 5, "not a str"),
    ("assisted", "yes", "not a bool"),
    ("score", _DROP, "missing"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD, ids=lambda x: str(x)[:20])
def test_unreadable_records_name_the_field(field: str, value: Any, message: str) -> None:
    data = base(**{field: value})
    text = json.dumps(data)
    with pytest.raises(RecordError, match=re.escape(message)) as info:
        Record.from_json(text)
    assert info.value.exit_code == 2
    assert info.value.field is None or info.value.field.startswith(field)
    # The JSON Schema says the same, except where the spec documents a gap:
    # a JSON Schema validator sees 12.0 as an integer and cannot check UTF-8.
    if not (isinstance(value, float) or value == "\ud800"):
        assert not VALIDATOR.is_valid(json.loads(text)), (field, value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"score":1}',
            "duplicate key 'score'",
        ),
        ('{"format":"twenty48-record"', "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":NaN}', "NaN"),
        (
            '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":1e3}',
            "not an integer",
        ),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        (
            '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":'
            + "9" * 5000
            + "}",
            r"is over the limit of 2\^53",
        ),
    ],
)
def test_malformed_json(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        Record.from_json(text)


def test_invalid_utf8_is_unreadable() -> None:
    with pytest.raises(RecordError, match="not UTF-8"):
        Record.from_json(b'{"seed": "\xff"}')


def test_limits_at_their_edges_are_accepted() -> None:
    record = Record.from_json(json.dumps(base(seed="🎲" * 128, score=2**53, moves="L" * MAX_MOVES)))
    assert len(record.seed) == 128
    assert VALIDATOR.is_valid(record.to_dict())


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@pytest.mark.slow
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "format",
                "version",
                "seed",
                "moves",
                "score",
                "max_tile",
                "final_board",
                "player",
                "assisted",
                "other",
            ]
        ),
        json_values,
    )
)
def test_reader_and_schema_agree_on_arbitrary_objects(data: dict[str, Any]) -> None:
    text = json.dumps(data)
    try:
        Record.from_json(text)
        accepted = True
    except RecordError:
        accepted = False
    floats_present = "." in text or "e" in text.lower()
    if accepted:
        assert VALIDATOR.is_valid(data)
    elif not floats_present:
        assert not VALIDATOR.is_valid(data)


@given(
    st.text(alphabet="UDLR", max_size=50), st.integers(0, 2**53), st.text(min_size=1, max_size=128)
)
def test_valid_shapes_round_trip(moves: str, score: int, seed: str) -> None:
    try:
        seed.encode("utf-8")
    except UnicodeEncodeError:
        return
    record = Record(seed, moves, score, extra={"notes": "x"})
    assert Record.from_json(record.to_json()) == record
    assert VALIDATOR.is_valid(record.to_dict())


def test_nesting_limit() -> None:
    def nested(depth: int) -> str:
        return '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":' + (
            "[" * depth + "]" * depth + "}"
        )

    assert Record.from_json(nested(64)).extra["x"]
    with pytest.raises(RecordError, match="nested deeper than 100 levels"):
        Record.from_json(nested(150))


METADATA_KEYS = ["player", "started", "finished", "client", "notes"]


@pytest.mark.slow
@given(
    st.dictionaries(st.sampled_from(METADATA_KEYS), jt.ANY_TEXT, max_size=5),
    st.dictionaries(
        # "fair" and "signature" are fair-play keys with rules of their own (SPEC section 11).
        st.text(max_size=6).filter(
            lambda k: k not in [*CORE_KEYS, *METADATA_KEYS, "assisted", "fair", "signature"]
        ),
        jt.json_values,
        max_size=4,
    ),
)
def test_every_readable_record_writes_back_to_the_same_values(
    metadata: dict[str, str], unknown: dict[str, tuple[str, bool]]
) -> None:
    """SPEC 6.3 (issue 9, section 8): read r, write r, read again: the same values, or r refused.

    Metadata strings carry control characters and lone surrogates; unknown
    keys carry nested values, floats at the edges of a double, integers of
    hundreds of digits.  Refused exactly when a number overflows or underflows.
    """
    members = ['"format":"twenty48-record","version":1,"seed":"s","moves":"LR","score":0']
    members += [f"{json.dumps(k)}:{json.dumps(v)}" for k, v in metadata.items()]
    members += [f"{json.dumps(k)}:{text}" for k, (text, _refused) in unknown.items()]
    text = "{" + ",".join(members) + "}"
    if any(r for _t, r in unknown.values()):
        with pytest.raises(RecordError, match="IEEE double"):
            Record.from_json(text)
        return
    record = Record.from_json(text)
    expected = jt.reference_value(text)
    assert jt.typed(record.to_dict()) == jt.typed(expected)
    written = record.to_json()
    written.encode("utf-8")  # always writable as UTF-8 (lone surrogates come out escaped)
    again = Record.from_json(written.encode("utf-8"))
    assert again == record
    assert jt.typed(again.to_dict()) == jt.typed(record.to_dict())
    assert again.to_json() == written


@pytest.mark.parametrize(
    ("number", "refused"),
    [
        ("1e400", True),
        ("-1e400", True),
        ("1e-400", True),
        ("-2.4e-324", True),
        ("2.5e-324", False),
        ("0e-999", False),
        ("-0.0", False),
        ("1.7976931348623157e308", False),
        ("1" + "0" * 5000, False),
        ("-" + "9" * 100_000, False),
    ],
)
def test_numbers_in_unknown_keys(number: str, refused: bool) -> None:
    text = '{"format":"twenty48-record","version":1,"seed":"s","moves":"","score":0,"x":'
    data = (text + number + "}").encode()
    if refused:
        with pytest.raises(RecordError, match="IEEE double") as info:
            Record.from_json(data)
        assert info.value.exit_code == 2
        return
    record = Record.from_json(data)
    assert record.to_json().endswith(
        f',"x":{number if "e" not in number else repr(float(number))}}}'
    )
    assert Record.from_json(record.to_json()) == record


@given(st.text(max_size=50) | st.text(alphabet="UDLRudlr\u0155x", max_size=50))
def test_the_fast_move_letter_check_is_the_set_check(text: str) -> None:
    from twenty48_replay.core.record import MOVE_LETTERS, only_move_letters

    assert only_move_letters(text) == MOVE_LETTERS.issuperset(text)
