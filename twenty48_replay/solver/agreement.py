"""How often a game's moves are the solver's own choices, at several depths (a bot signal).

A bot that plays with an expectimax search agrees with that search at the
depth it used on nearly every move, while a person, or the same search at
another depth, agrees far less often: measured on this project's own
solver, its default-strength games agree with a fixed 2-ply search on only
about 55-65% of their moves, but with the default strength itself on all
of them.  So the match rate is measured against a *ladder*: fixed depths of
1, 2, ... plies and every strength the solver offers, and the highest rate
on any rung is the signal (which rung, and every rung's rate, are kept for
a person to review).

Only real choices count: a position with a single valid move says nothing
about who played it.  The work per game is bounded: at most
``Rung.positions`` positions are searched per rung, drawn without
replacement from the game's choices by a generator seeded with ``key`` (the
server derives it from the game's server seed, which was secret while the
game was played, so a player could not know which moves would be checked).
A rung with fewer positions checks a prefix of the same draw.

This module is pure library code (the server runs it in its analysis
process); it never looks at clocks: move timing is the server's part.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from twenty48_replay.core.board import Board, Direction
from twenty48_replay.core.game import GameState
from twenty48_replay.solver.dispatch import default_settings
from twenty48_replay.solver.play import best_move
from twenty48_replay.solver.settings import SearchSettings

#: The deepest fixed-depth rung the ladder may have (each ply costs several times the last).
MAX_FIXED_PLIES = 6
#: The most positions a rung may search in one game.
MAX_POSITIONS = 10_000


@attrs.frozen
class Rung:
    """One search the moves are compared with: a name for people and its settings."""

    name: str
    settings: SearchSettings
    #: At most this many of the game's choices are searched with it.
    positions: int


def fixed_depth(plies: int) -> SearchSettings:
    """A search of exactly ``plies`` plies.

    The node budget never cuts a search before ``min_plies`` (see
    :func:`~twenty48_replay.solver.expectimax.search`), so this is the same
    search whatever budget a bot gave it.
    """
    return SearchSettings(min_plies=plies, max_plies=plies)


def offered_strengths() -> tuple[tuple[str, SearchSettings], ...]:
    """Every strength the solver offers its users (``hint``, ``autoplay``, the library default).

    ``default`` is the default of the search that runs here (the C search's
    budget when the native solver is built, NumPy's otherwise), as
    ``best_move`` without settings uses it.  ``--strength deep`` is left off
    the ladder: a second or more a position (minutes with NumPy).
    """
    return (("default", default_settings()),)


def ladder(fixed_plies: int, positions: int) -> tuple[Rung, ...]:
    """Fixed depths 1 .. ``fixed_plies`` and every offered strength, each on ``positions``."""
    if not 1 <= fixed_plies <= MAX_FIXED_PLIES:
        raise ValueError(f"fixed_plies must be from 1 to {MAX_FIXED_PLIES}, not {fixed_plies}")
    if not 1 <= positions <= MAX_POSITIONS:
        raise ValueError(f"positions must be from 1 to {MAX_POSITIONS}, not {positions}")
    rungs = [Rung(str(plies), fixed_depth(plies), positions) for plies in range(1, fixed_plies + 1)]
    rungs += [Rung(name, settings, positions) for name, settings in offered_strengths()]
    return tuple(rungs)


@attrs.frozen
class RungResult:
    """How many of the searched positions had the rung's choice played."""

    name: str
    matches: int
    checked: int

    @property
    def rate(self) -> float:
        return self.matches / self.checked if self.checked else 0.0


@attrs.frozen
class Agreement:
    """The engine-match figures of one game."""

    #: Moves in the game, and how many of them were real choices (two or more valid moves).
    moves: int
    choices: int
    rungs: tuple[RungResult, ...]

    @property
    def best(self) -> RungResult | None:
        """The rung the game agrees with most (the earlier, shallower one on a tie)."""
        searched = [r for r in self.rungs if r.checked]
        if not searched:
            return None
        return max(searched, key=lambda r: (r.rate, -self.rungs.index(r)))


def choices(seed: str, letters: str) -> tuple[list[tuple[Board, str]], int]:
    """The positions of a game where more than one move was valid, with the move played.

    Returns them and the number of moves replayed (a move that changes
    nothing ends the replay: the server never stores one).
    """
    state = GameState.new(seed)
    found: list[tuple[Board, str]] = []
    played = 0
    for letter in letters:
        board = state.board
        if len(board.valid_directions()) > 1:
            found.append((board, letter))
        try:
            state = state.play(Direction(letter))[0]
        except ValueError:  # NullMoveError, or a letter that is not a move
            break
        played += 1
    return found, played


def draw(population: int, count: int, key: bytes) -> list[int]:
    """``count`` distinct indices below ``population`` in a random order fixed by ``key``."""
    return random.Random(key).sample(range(population), min(count, population))


def agreement(seed: str, letters: str, rungs: Sequence[Rung], key: bytes) -> Agreement:
    """Search a bounded sample of the game's choices with every rung and count the matches."""
    found, played = choices(seed, letters)
    order = draw(len(found), max((r.positions for r in rungs), default=0), key)
    results = []
    for rung in rungs:
        matches = checked = 0
        for index in order[: rung.positions]:
            board, letter = found[index]
            choice, _values = best_move(board, rung.settings)
            checked += 1
            matches += choice is not None and choice.letter == letter
        results.append(RungResult(rung.name, matches, checked))
    return Agreement(played, len(found), tuple(results))
