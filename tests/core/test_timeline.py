"""Random access to replay steps agrees with the sequential replay."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from support.common import ROOT

from twenty48_replay import Record, replay
from twenty48_replay.core.timeline import CHECKPOINT_EVERY, Timeline

LONG = Record.from_json((ROOT / "tests" / "data" / "long-2000.json").read_text())
STEPS = list(replay(LONG))
TIMELINE = Timeline(LONG)


def test_every_step_matches_sequential_replay() -> None:
    assert len(TIMELINE) == len(STEPS) == 2001
    assert list(TIMELINE) == STEPS


@given(st.integers(-2001, 2000))
def test_random_access(number: int) -> None:
    assert TIMELINE[number] == STEPS[number]


def test_checkpoint_edges_and_bounds() -> None:
    for n in (CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, CHECKPOINT_EVERY + 1, 2 * CHECKPOINT_EVERY):
        assert TIMELINE[n] == STEPS[n]
    for bad in (2001, -2002):
        try:
            TIMELINE[bad]
        except IndexError:
            continue
        raise AssertionError(bad)


def test_winning_step_is_the_first_2048() -> None:
    win = TIMELINE.winning_step
    assert win is not None
    assert STEPS[win].max_tile == 2048
    assert STEPS[win - 1].max_tile == 1024


def test_invalid_record_stops_before_the_null_move() -> None:
    record = Record(LONG.seed, LONG.moves[:300] + "U" * 40, 0)
    timeline = Timeline(record)
    assert timeline.error is not None
    assert timeline.error.move_number == timeline.last + 1
    assert list(timeline) == list(replay(record))
