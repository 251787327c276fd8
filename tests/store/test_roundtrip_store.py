"""Issue 9, section 8: import a record into a real SQLite store, export it, get the same values.

Records are generated as JSON text (see ``json_texts``): valid games with
metadata strings full of control characters and lone surrogates, and
unknown keys holding nested values, floats at the edges of a double and
integers of hundreds of digits.  A record the reader refuses is out of scope
(SPEC 6.3 refuses it everywhere); every other one must come back from
``game_as_record`` with its seed, moves, score, metadata and unknown keys
exactly (types included: 1, 1.0 and true differ), in their order.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st
from support import json_texts as jt

from twenty48_replay import Direction, GameState, Record, RecordError
from twenty48_replay.store import Store

METADATA_KEYS = ["player", "notes", "client", "finished"]
RESERVED = {"format", "version", "seed", "moves", "score", "max_tile", "final_board", "started"}
RESERVED |= {"assisted", *METADATA_KEYS}


@st.composite
def games(draw: st.DrawFn) -> tuple[str, str, int]:
    """A seed and a string of valid moves, with its score."""
    seed = draw(st.text(st.characters(exclude_categories=["Cs"]), min_size=1, max_size=40))
    state = GameState.new(seed)
    letters = []
    for direction in draw(st.lists(st.sampled_from(list(Direction)), max_size=30)):
        if state.board.slide(direction).changed:
            state, _gained, _spawn = state.play(direction)
            letters.append(direction.letter)
    return seed, "".join(letters), state.score


@settings(max_examples=120)
@example(  # issue 9, section 5: a lone surrogate and a NUL in player and metadata
    ("s", "", 0),
    {"player": "a\ud800\x00b", "notes": "\x1b]52;c;eA==\x07\udc00"},
    False,
    {"x": ('[1e-300,"\\ud800",' + "9" * 700 + ',{"\\u0000":-0.0}]', False)},
)
@given(
    games(),
    st.dictionaries(st.sampled_from(METADATA_KEYS), jt.ANY_TEXT, max_size=4),
    st.booleans(),
    st.dictionaries(
        st.text(max_size=6).filter(lambda k: k not in RESERVED), jt.json_values, max_size=3
    ),
)
def test_store_round_trip_keeps_every_value(
    game: tuple[str, str, int],
    metadata: dict[str, str],
    assisted: bool,
    unknown: dict[str, tuple[str, bool]],
) -> None:
    seed, moves, score = game
    members = [
        '"format":"twenty48-record"',
        '"version":1',
        f'"seed":{json.dumps(seed)}',
        f'"moves":"{moves}"',
        f'"score":{score}',
        '"started":"2024-05-01T12:00:00Z"',
        f'"assisted":{json.dumps(assisted)}',
    ]
    members += [f"{json.dumps(k)}:{json.dumps(v)}" for k, v in metadata.items()]
    members += [f"{json.dumps(k)}:{text}" for k, (text, _refused) in unknown.items()]
    text = "{" + ",".join(members) + "}"
    try:
        record = Record.from_json(text)
    except RecordError:
        return  # refused on reading: the same everywhere (tests/core/test_record.py)
    with tempfile.TemporaryDirectory() as tmp:
        with Store(str(Path(tmp) / "games.db")) as store:
            game_id = store.import_record(record).game_id
        with Store(str(Path(tmp) / "games.db")) as store:  # reopened: read from the file
            exported = store.game_as_record(game_id)
    assert (exported.seed, exported.moves, exported.score) == (seed, moves, score)
    assert jt.typed(exported.extra) == jt.typed(record.extra)
    meant = jt.reference_value(text)
    for key in ("format", "version", "seed", "moves", "score"):
        del meant[key]
    assert jt.typed(exported.extra) == jt.typed(meant)
    again = Record.from_json(exported.to_json().encode("utf-8"))
    assert again == exported
