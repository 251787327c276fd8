"""The key bar: every key a screen offers, readable whole at any terminal width.

Textual's footer lays its keys in one row and cuts whatever does not fit
(at 60 columns the play screen lost "q Quit").  This footer chooses what
to show for the width it has, in three steps:

1. every key with its full label, if they all fit;
2. else every key with its shorter key name (``↑↓←→`` for ``↑↓←→ wasd hjkl``),
   then also with its shorter label where the screen gives one;
3. else ``? Keys`` (the help card lists every key), the screen's most
   needed keys in their rank while they fit, then as many of the others
   as still fit, shown in their order.

A key is never cut: it is shown whole or, in step 3, left to the help card,
and the help entry then says so.  A key that would do nothing now (a move
after game over) is struck through rather than dimmed: dim text reads
below 4.5:1 in 16 colours.  The entries are Textual's own
``FooterKey`` widgets, so they look, click and update (``check_action``)
as in any footer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from twenty48_replay.core.i18n import N_, _

if TYPE_CHECKING:
    from textual.binding import Binding

#: The action of the help key; its entry reads "Keys" when the bar leaves keys out.
HELP_ACTION = "help"
#: The help entry's label when some keys are only on the help card.
KEYS_LABEL = N_("Keys")


@dataclass(frozen=True)
class Shorter:
    """How a key bar entry reads on a narrower bar (see the module docstring).

    ``key`` replaces the key display and ``label`` (English, translated
    where shown) the description.  ``keep`` ranks the entries kept on the
    narrowest bar (1 first; None: only if there is room); the help entry
    always comes first, since it leads to the rest.
    """

    key: str | None = None
    label: str | None = None
    keep: int | None = None


@dataclass(frozen=True)
class Entry:
    """One key as the bar shows it."""

    key: str
    key_display: str
    label: str
    action: str
    enabled: bool

    @property
    def width(self) -> int:
        """Cells it takes: one space either side of the key, one after the label."""
        return cell_len(self.key_display) + 2 + cell_len(self.label) + 1


def _total(entries: Iterable[Entry]) -> int:
    return sum(entry.width for entry in entries)


def choose_entries(forms: list[list[Entry]], ranks: Mapping[str, int], width: int) -> list[Entry]:
    """The entries for a bar ``width`` cells wide (steps of the module docstring).

    ``forms`` lists the whole bar from its longest form to its shortest; the
    first that fits wins.  Otherwise the shortest form is cut down: the help
    entry (relabelled "Keys"), then the ranked entries while they fit, then
    any other that still fits, shown in the bar's order.
    """
    for entries in forms:
        if _total(entries) <= width:
            return entries
    keys_label = _(KEYS_LABEL)
    shortest = [
        Entry(e.key, e.key_display, keys_label, e.action, e.enabled)
        if e.action == HELP_ACTION
        else e
        for e in forms[-1]
    ]
    order = sorted(
        range(len(shortest)),
        key=lambda i: (
            0 if shortest[i].action == HELP_ACTION else 1,
            ranks.get(shortest[i].action, len(shortest) + 1),
            i,
        ),
    )
    kept: set[int] = set()
    used = 0
    for index in order:
        if used + shortest[index].width <= width:
            kept.add(index)
            used += shortest[index].width
    return [entry for index, entry in enumerate(shortest) if index in kept]


class KeyBar(Footer):
    """A footer that fits its keys to the terminal's width (module docstring).

    The screen names the shorter forms in its ``KEY_BAR_SHORT``, a mapping from
    action to :class:`Shorter`; without one every entry keeps its full form.
    """

    DEFAULT_CSS = """
    KeyBar {
        height: 1;
    }
    KeyBar FooterKey.-disabled {
        text-style: strike;
    }
    """

    def __init__(self) -> None:
        # Never compact: the widths above assume the roomy key style.
        super().__init__(show_command_palette=False, compact=False)
        self._width = 0

    def _shorter(self) -> Mapping[str, Shorter]:
        found = getattr(self.screen, "KEY_BAR_SHORT", None)
        return found if isinstance(found, Mapping) else {}

    def _bar_width(self) -> int:
        width = self.size.width or self.screen.size.width or self.app.size.width
        return int(width)

    def entries(self, width: int | None = None) -> list[Entry]:
        """What the bar shows at ``width`` (default: its own width)."""
        shorter = self._shorter()
        full: list[Entry] = []
        short_keys: list[Entry] = []
        shortest: list[Entry] = []
        for binding, enabled in self._shown_bindings():
            key_display = self.app.get_key_display(binding)
            label = binding.description
            form = shorter.get(binding.action, Shorter())
            key = form.key if form.key is not None else key_display
            short_label = _(form.label) if form.label is not None else label
            full.append(Entry(binding.key, key_display, label, binding.action, enabled))
            short_keys.append(Entry(binding.key, key, label, binding.action, enabled))
            shortest.append(Entry(binding.key, key, short_label, binding.action, enabled))
        ranks = {action: form.keep for action, form in shorter.items() if form.keep is not None}
        return choose_entries([full, short_keys, shortest], ranks, width or self._bar_width())

    def _shown_bindings(self) -> Iterable[tuple[Binding, bool]]:
        """The active bindings marked ``show``, one per action, in their order."""
        seen: set[str] = set()
        for _namespace, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and binding.action not in seen:
                seen.add(binding.action)
                yield binding, enabled

    def compose(self) -> ComposeResult:
        """One ``FooterKey`` per chosen entry."""
        if not self._bindings_ready:
            return
        self._width = self._bar_width()
        for entry in self.entries(self._width):
            yield FooterKey(
                entry.key, entry.key_display, entry.label, entry.action, disabled=not entry.enabled
            ).data_bind(compact=Footer.compact)

    def on_resize(self, event: events.Resize) -> None:
        """A new width may call for another choice of entries."""
        if event.size.width != self._width and self._bindings_ready:
            self.call_after_refresh(self.recompose)
