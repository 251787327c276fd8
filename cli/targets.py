"""Resolving ``ID|FILE`` arguments, and reporting an invalid record the same way everywhere.

``replay``, ``analyze``, ``hint --record`` and ``export --format svg|gif``
all read a record by :func:`load_checked`: it verifies the record once, does
what it can (the command draws, analyses or hints from the valid steps),
and :meth:`Loaded.finish` then puts the reasons on stderr and exits 1, so an
invalid record never passes silently with exit 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import typer

from twenty48_replay.bulk.sources import read_records
from twenty48_replay.core.errors import EXIT_FAILED, RecordError
from twenty48_replay.core.i18n import _
from twenty48_replay.core.reasons import Reason
from twenty48_replay.core.record import Record
from twenty48_replay.core.replay import verify

from .common import open_store
from .limits import MAX_GAME_ID
from .output import fail

if TYPE_CHECKING:
    from twenty48_replay.core.replay import Step
    from twenty48_replay.core.timeline import Timeline


def game_id(text: str) -> int | None:
    """``text`` as a game id: ASCII digits only, at most 2**63 - 1; None if it is not one.

    ``str.isdigit`` alone also accepts ``"²"`` (which ``int`` refuses) and
    Arabic-Indic digits; numbers beyond 64 bits would overflow the driver.
    """
    if not (text.isascii() and text.isdigit()):
        return None
    digits = text.lstrip("0") or "0"
    if len(digits) > 19 or int(digits) > MAX_GAME_ID:  # int() refuses over 4,300 digits
        raise typer.BadParameter(
            _("game id {id} is above the largest id ({largest})").format(
                id=text[:25] + ("..." if len(text) > 25 else ""), largest=MAX_GAME_ID
            )
        )
    return int(digits)


def stored_game(target: str) -> int | None:
    """The game id ``target`` names, or None when it names a record file.

    A whole number that is not an existing file is a game id in the store.
    """
    number = game_id(target)
    return number if number is not None and not Path(target).exists() else None


def load_target(target: str, db: str | None, index: int | None = None) -> tuple[Record, str]:
    """The record named by ``target`` and a label for it.

    A target that is a whole number and not an existing file is a game id in
    the store; anything else is a record file (``-`` for stdin).  For a JSON
    Lines file, ``index`` picks the record on that line (default: the first).
    """
    number = stored_game(target)
    if number is not None:
        with open_store(db) as store:
            # The label is only ever shown to people (headers, error lines), never
            # put into --json output, so it reads in the chosen language.
            return store.game_as_record(number), _("game {id}").format(id=number)
    for item in read_records(target):
        if index is not None and item.index != index:
            continue
        if item.record is None:
            assert item.error is not None
            raise item.error
        label = target if item.index == 1 else f"{target}:{item.index}"
        return item.record, label
    if index is None:
        raise RecordError(Reason("input.no_records"), source=target)
    raise RecordError(Reason("input.no_record", {"line": index}), source=target)


@attrs.frozen
class Loaded:
    """A record, its label for messages, and why it is invalid (empty: valid), in words."""

    record: Record
    label: str
    reasons: tuple[str, ...]
    #: The stored game's id (None for a record file).
    game: int | None = None

    def finish(self) -> None:
        """After the command has done what it can: an invalid record's reasons, exit 1."""
        if self.reasons:
            fail(
                _("{label}: INVALID: {reasons}").format(
                    label=self.label, reasons="; ".join(self.reasons)
                )
            )
            raise typer.Exit(EXIT_FAILED)


def load_checked(target: str, db: str | None, index: int | None = None) -> Loaded:
    """:func:`load_target`, verified: the record's claims replayed and compared."""
    record, label = load_target(target, db, index)
    return Loaded(record, label, tuple(verify(record).translated_reasons()), stored_game(target))


def step_at(timeline: Timeline, at: int | None, label: str, option: str = "--at") -> Step:
    """Step ``at`` of ``timeline`` (None: the last), or a usage error naming the range."""
    number = timeline.last if at is None else at
    try:
        return timeline[number]
    except IndexError:
        raise typer.BadParameter(
            _("{option} {number}: {label} has steps 0..{last}").format(
                option=option, number=number, label=label, last=timeline.last
            )
            + (_(" (the valid steps of an invalid record)") if timeline.error is not None else "")
        ) from None
