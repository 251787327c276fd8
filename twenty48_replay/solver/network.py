"""Which evaluation the solver searches with, and the n-tuple network, loaded once per process.

* ``--evaluation heuristic|network`` (a command's option; ``evaluation`` here)
  asks for one of the two.
* Without it, ``TWENTY48_WEIGHTS=PATH`` chooses a weights file and
  ``TWENTY48_WEIGHTS=none`` the hand-tuned heuristic.
* Otherwise :data:`DEFAULT_EVALUATION`: the network of the weights shipped in
  the package (:data:`DEFAULT_FILE`) when they are there and readable.

The hand-tuned heuristic stands in, with a one-line :attr:`Choice.note`,
when the network was wanted but no weights file can be read: the shipped
file missing (only noted when the network was asked for: a source checkout
has no weights) or damaged, or no C search to use it.  A file named with
``TWENTY48_WEIGHTS`` that cannot be used is a :class:`WeightsError` instead
(one line, exit 2): what was asked for by name is never quietly replaced.
No NumPy: the network is a memory-mapped file handed to the C extension.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Final

import attrs

from twenty48_replay.core.i18n import N_, _
from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.settings import EVALUATIONS, HEURISTIC, NETWORK
from twenty48_replay.solver.weights import WeightsError

ENV_VAR: Final = "TWENTY48_WEIGHTS"
#: ``TWENTY48_WEIGHTS=none``: search with the hand-tuned heuristic.
NONE: Final = "none"
#: The shipped weights, inside the package (package data: pyproject.toml's
#: ``solver/data/*.t48w``, in the wheel and the sdist).
DEFAULT_FILE: Final = Path(__file__).resolve().parent / "data" / "ntuple-4x6.t48w"
#: What the solver evaluates with when neither ``--evaluation`` nor ``TWENTY48_WEIGHTS``
#: says: NETWORK (the shipped network when its file is there and readable, else the
#: heuristic) or HEURISTIC (the hand-tuned evaluation even when weights are shipped).
#: The one line to change to make the default the other.
DEFAULT_EVALUATION: Final = NETWORK
#: Searches after which a sparse network is copied dense into memory (ntuple_expand):
#: a dense lookup is one memory access, a sparse one two (measured: 160 against 255 ns
#: a node at depth 2), and the copy costs about 60 ms and 2 bytes a weight (134 MB for
#: the default shape, only the nonzero pages written).  A hint (one search) never pays.
EXPAND_AFTER: Final = 8


#: The notes of a heuristic standing in for the network (one line each).
NO_C_SEARCH: Final = N_(
    "the network needs the native solver, which is not built or not chosen here: "
    "using the hand-tuned evaluation"
)
NO_SHIPPED: Final = N_("no network weights at {path}: using the hand-tuned evaluation")
DAMAGED: Final = N_(
    "{problem}; using the hand-tuned evaluation (reinstall the package to restore its weights)"
)


@attrs.define(eq=False)
class Network:
    """A loaded network: its file (checked, mapped) and the C extension's handle to it."""

    weights: wf.Weights
    handle: Any
    module: Any = None
    searches: int = 0
    dense: Any = None

    def search_handle(self) -> Any:
        """The handle a search should use: the file's, or after :data:`EXPAND_AFTER`
        searches a dense copy in memory (same values, faster lookups)."""
        self.searches += 1
        if self.dense is None and self.searches >= EXPAND_AFTER and self.module is not None:
            self.dense = self.module.ntuple_expand(self.handle)
        return self.handle if self.dense is None else self.dense

    @property
    def path(self) -> str:
        return self.weights.path

    def describe(self) -> str:
        """``ntuple-4x6.t48w: 4 tuples of 6 cells, 1,200,000 games of training``."""
        header = self.weights.header
        games = header.metadata.get("games")
        shape = self.weights.shape
        lengths = sorted({len(t) for t in shape.tuples})
        cells = "/".join(str(n) for n in lengths)
        trained = f", {games:,} games of training" if isinstance(games, int) else ""
        return f"{Path(self.path).name}: {len(shape.tuples)} tuples of {cells} cells{trained}"


@attrs.frozen
class Choice:
    """What a search evaluates with: ``network`` (None: the hand-tuned heuristic) and,
    when the heuristic stands in for a network that was wanted, a one-line ``note``
    (translated when the choice was made) saying why."""

    network: Network | None
    note: str | None = None

    @property
    def evaluation(self) -> str:
        return HEURISTIC if self.network is None else NETWORK


def chosen_path(explicit: str | None = None) -> tuple[Path | None, bool]:
    """The weights file to use and whether it was asked for (None: the heuristic).

    ``explicit`` (a path given on the command line) wins over ``TWENTY48_WEIGHTS``, which
    wins over the shipped file (when :data:`DEFAULT_EVALUATION` is the network); the word
    ``none`` in either means the heuristic.
    """
    for value in (explicit, os.environ.get(ENV_VAR, "").strip() or None):
        if value is not None:
            return (None, True) if value.lower() == NONE else (Path(value), True)
    shipped = DEFAULT_EVALUATION == NETWORK and DEFAULT_FILE.exists()
    return (DEFAULT_FILE, False) if shipped else (None, False)


@functools.cache
def _load(path: str, module: Any) -> Network:
    loaded = wf.load(path)
    return Network(loaded, loaded.network(module), module)


def network(module: Any, explicit: str | None = None) -> Network | None:
    """The network to search with (None: the heuristic), loaded once per file.

    Raises :class:`WeightsError` when the chosen file cannot be used.
    """
    path, _asked = chosen_path(explicit)
    if path is None:
        return None
    try:
        return _load(str(path), module)
    except WeightsError:
        raise
    except (OSError, ValueError) as exc:  # anything the checks did not name
        raise WeightsError(path, wf.UNREADABLE, why=str(exc)) from None


def choose(module: Any, evaluation: str | None = None) -> Choice:
    """The evaluation to search with (see the module docstring), ``module`` being the C
    solver (None: no C search, so no network).

    ``evaluation``: ``"heuristic"``, ``"network"`` or None (``TWENTY48_WEIGHTS``, then
    :data:`DEFAULT_EVALUATION`).  Remembered per process for the same question, so a
    damaged shipped file is read (and noted) once.  Raises :class:`WeightsError` when
    the file named by ``TWENTY48_WEIGHTS`` cannot be used.
    """
    if evaluation is not None and evaluation not in EVALUATIONS:
        raise ValueError(f"evaluation must be one of {EVALUATIONS}, not {evaluation!r}")
    env = os.environ.get(ENV_VAR, "").strip() or None
    return _choose(module, evaluation, env, str(DEFAULT_FILE), DEFAULT_EVALUATION)


@functools.cache
def _choose(
    module: Any, evaluation: str | None, env: str | None, shipped: str, default: str
) -> Choice:
    named = env is not None and env.lower() != NONE
    asked = named or evaluation == NETWORK
    if evaluation is None:
        evaluation = (NETWORK if named else HEURISTIC) if env is not None else default
    if evaluation == HEURISTIC:
        return Choice(None)
    if module is None:
        return Choice(None, _(NO_C_SEARCH) if asked else None)
    if named:
        assert env is not None
        return Choice(network(module, env))  # a named file: its errors are the command's
    if not Path(shipped).exists():
        return Choice(None, _(NO_SHIPPED).format(path=shipped) if asked else None)
    try:
        return Choice(network(module, shipped))
    except WeightsError as exc:
        return Choice(None, _(DAMAGED).format(problem=exc.translated()))
