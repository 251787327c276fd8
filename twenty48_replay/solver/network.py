"""Which n-tuple network the solver searches with, loaded once per process.

* ``TWENTY48_WEIGHTS=PATH`` (or a command's ``--weights PATH``) chooses a
  weights file; ``TWENTY48_WEIGHTS=none`` chooses the hand-tuned heuristic.
* Otherwise the weights shipped in the package (:data:`DEFAULT_FILE`), when
  they are there; the heuristic when they are not (a source checkout before
  the weights were trained, an installation without them).

A file that was asked for and cannot be used is a :class:`WeightsError` (one
line, exit 2).  The shipped file, when present but unusable, is refused the
same way: an installation whose weights are damaged should be reinstalled,
not quietly play weaker.  No NumPy: the network is a memory-mapped file
handed to the C extension.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Final

import attrs

from twenty48_replay.solver import weights as wf
from twenty48_replay.solver.weights import WeightsError

ENV_VAR: Final = "TWENTY48_WEIGHTS"
#: ``TWENTY48_WEIGHTS=none``: search with the hand-tuned heuristic.
NONE: Final = "none"
#: The shipped weights, inside the package.
DEFAULT_FILE: Final = Path(__file__).resolve().parent / "data" / "ntuple-4x6.t48w"
#: Searches after which a sparse network is copied dense into memory (ntuple_expand):
#: a dense lookup is one memory access, a sparse one two (measured: 160 against 255 ns
#: a node at depth 2), and the copy costs about 60 ms and 2 bytes a weight (134 MB for
#: the default shape, only the nonzero pages written).  A hint (one search) never pays.
EXPAND_AFTER: Final = 8


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


def chosen_path(explicit: str | None = None) -> tuple[Path | None, bool]:
    """The weights file to use and whether it was asked for (None: the heuristic).

    ``explicit`` (a ``--weights`` value) wins over ``TWENTY48_WEIGHTS``, which wins
    over the shipped file; the word ``none`` in either means the heuristic.
    """
    for value in (explicit, os.environ.get(ENV_VAR, "").strip() or None):
        if value is not None:
            return (None, True) if value.lower() == NONE else (Path(value), True)
    return (DEFAULT_FILE, False) if DEFAULT_FILE.exists() else (None, False)


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
