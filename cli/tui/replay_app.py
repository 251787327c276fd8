"""``twenty48 replay``: the full-screen viewer that walks a record step by step.

Everything on screen is drawn from one :class:`~twenty48_replay.core.replay.Step`,
fetched by number from the :class:`~twenty48_replay.core.timeline.Timeline`
(checkpointed, so any jump costs well under a millisecond).  The viewer
therefore keeps no game state of its own beyond the step number: stepping,
jumping, "go to" and autoplay are all the same :meth:`ReplayScreen.go_to`,
and what is shown can never drift from what the rules replay.

The board, tiles, score boxes, palette and help card are the play UI's
(:mod:`.widgets`, :mod:`.screens`), so a replay looks like the game it
came from.
"""

from __future__ import annotations

from time import monotonic
from typing import TYPE_CHECKING, Any, ClassVar, Final

import typer
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, ProgressBar, Static

from twenty48_replay.core.i18n import N_, _, ngettext
from twenty48_replay.core.i18n import number as format_number
from twenty48_replay.core.replay import Step
from twenty48_replay.core.text import printable
from twenty48_replay.core.timeline import Timeline

from ..directions import ARROWS, NAMES, arrow_and_name
from ..evaluation_text import points
from ..render import cell_name
from .keybar import KeyBar, Shorter
from .language import translate_bindings
from .replay_layout import Banner, plan
from .screens import Dialog, HelpCard, HelpScreen, ReasonsCard, dialog_css, undimmed
from .widgets import (
    COMPACT,
    LAYOUTS,
    MEDIUM,
    TILE_BACKGROUNDS,
    BoardView,
    ChromeColours,
    Responsive,
    ScoreBox,
    page_css,
)

if TYPE_CHECKING:
    from twenty48_replay.solver.evaluation import EvaluationGraph

#: The evaluation line when there is no graph (no network can be used).
NO_GRAPH_LINE: Final = N_("evaluation graph: none (it needs the solver's n-tuple network)")

#: Autoplay speeds in moves per second; ``+``/``-`` move along this list.
SPEEDS: Final = (1, 2, 4, 8, 16, 32, 64)
#: Index into SPEEDS at start: 8 moves/s follows the play and crosses a
#: 2,000-move game in about four minutes.
DEFAULT_SPEED: Final = 3
#: Most redraws per second in autoplay; faster speeds advance several steps a frame.
FRAME_RATE: Final = 30
#: How far PgUp/PgDn jump.
PAGE: Final = 10

#: The original's colour for a tile that just merged, used for alerts here.
ALERT = "#f65e3b"
INVALID_RED = "#c0392b"
WIN_GOLD = TILE_BACKGROUNDS[2048]

REPLAY_HELP = HelpCard(
    heading=N_("twenty48 replay — keys"),
    keys=(
        (N_("→ ← l h"), N_("one move forward\u00a0/ back")),
        (N_("PgDn PgUp"), N_("ten moves forward\u00a0/ back")),
        (N_("Home End"), N_("the opening / the last step")),
        (N_("g 0-9"), N_("go to a move number: g, or its first digit (negative: from the end)")),
        (N_("space"), N_("play / pause (stops at the end)")),
        ("+ -", N_("faster / slower")),
        ("i", N_("every reason an invalid record fails, on a card")),
        ("?", N_("this help")),
        ("q", N_("quit")),
    ),
    notes=(
        N_(
            "Step k is the board after move k and its spawn, the outlined tile. "
            "Nothing is written: a replay only reads."
        ),
        N_(
            "With the solver's n-tuple network, the line under the progress bar gives its "
            "expected final score after the move shown, and what the move cost against its "
            "best move."
        ),
    ),
)


def parse_step(text: str, last: int) -> int | str:
    """The step number typed into "go to", or an error message saying why not.

    Negative numbers count from the end, as ``twenty48 replay --at`` does.
    """
    text = text.strip().replace(",", "").replace("_", "")
    try:
        number = int(text)
    except ValueError:
        if not text:
            return _("type a move number")
        return _("not a move number: {text}").format(text=repr(text))
    resolved = number + last + 1 if number < 0 else number
    if not 0 <= resolved <= last:
        return _("move {number} is outside 0..{last}").format(number=number, last=last)
    return resolved


class GotoScreen(Dialog[int | None]):
    """A small prompt for a move number; dismisses with the step, or None on escape.

    A bad entry keeps the prompt open with the error under it, so a typo
    costs one correction instead of a new ``g``.
    """

    DEFAULT_CSS = (
        dialog_css("GotoScreen", width=46)
        + """
    GotoScreen Input {
        width: 100%;
        background: $t48-input;
        color: $t48-text;
        border: tall $t48-button;
    }
    GotoScreen Input:focus {
        border: tall $t48-alert;
    }
    GotoScreen #goto-error {
        color: $t48-alert;
        text-style: bold;
        height: auto;
        min-height: 1;
    }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", N_("Cancel"))]

    def __init__(self, last: int, current: int, text: str = "") -> None:
        super().__init__()
        translate_bindings(self)
        self.last = last
        self.current = current
        #: Typed before the input exists; it starts with this text.
        self.pending = text

    def compose(self) -> ComposeResult:
        """Title, the input and a line for errors."""
        with Vertical(id="goto"):
            yield Static(_("Go to move"), classes="title")
            yield Input(
                self.pending,
                placeholder=_("0 – {last}  (now {current}; -1 = last)").format(
                    last=self.last, current=self.current
                ),
                id="goto-input",
                select_on_focus=False,  # a digit typed to open the prompt is kept, not replaced
            )
            yield Static("", id="goto-error", classes="body", markup=False)
            yield Static(undimmed(_("[dim]enter: go · escape: cancel[/dim]")), classes="body")

    def type_text(self, text: str) -> None:
        """Add keys typed elsewhere (before the prompt was up) to the number."""
        try:
            field = self.query_one(Input)
        except NoMatches:
            self.pending += text
        else:
            field.insert_text_at_cursor(text)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the input: try the number."""
        event.stop()
        self._submit(event.value)

    def on_key(self, event: events.Key) -> None:
        """Keys that arrive before the input has the focus still count.

        ``g948`` typed or pasted quickly reaches this screen while it is
        still mounting; without this the digits would be lost and enter
        would submit an empty prompt.
        """
        field = self.query_one(Input)
        if field.has_focus:
            return
        if event.character is not None and event.character in "0123456789-,":
            self.type_text(event.character)
            event.stop()
        elif event.key == "enter":
            self._submit(field.value)
            event.stop()

    def _submit(self, text: str) -> None:
        """Go if the text is a step of this replay, else say why and stay open."""
        result = parse_step(text, self.last)
        if isinstance(result, str):
            self.query_one("#goto-error", Static).update(printable(result))
            return
        self.dismiss(result)

    def action_cancel(self) -> None:
        """Back to the viewer where it was."""
        self.dismiss(None)


class ReplayScreen(Responsive, Screen[None]):
    """The viewer: board, counters, markers, progress; owns every viewer key.

    As in the play UI the bindings live on the screen, so the help card and
    the "go to" prompt switch them off while they are up.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right", "step(1)", N_("Step"), key_display="← →"),
        Binding("left", "step(-1)", N_("Back"), show=False),
        Binding("l", "step(1)", N_("Step"), show=False),
        Binding("h", "step(-1)", N_("Back"), show=False),
        Binding("pagedown", f"step({PAGE})", f"±{PAGE}", key_display="PgUp/Dn"),
        Binding("pageup", f"step(-{PAGE})", N_("Back 10"), show=False),
        Binding("home", "start", N_("Start"), show=False),
        Binding("end", "end", N_("End"), show=False),
        Binding("g", "goto", N_("Go to")),
        Binding("space", "toggle_play", N_("Play"), key_display=N_("space")),
        Binding("space", "toggle_play('pause')", N_("Pause"), key_display=N_("space")),
        Binding("plus", "speed(1)", N_("Speed"), key_display="+ -"),
        Binding("equals_sign", "speed(1)", N_("Faster"), show=False),
        Binding("minus", "speed(-1)", N_("Slower"), show=False),
        Binding("question_mark", "help", N_("Help"), key_display="?"),
        Binding("q", "quit_viewer", N_("Quit")),
        # The banner points to it when the reasons do not all fit; the help card lists it.
        Binding("i", "reasons", N_("Reasons"), show=False),
    ]
    #: The key bar's shorter forms (see :mod:`.keybar`); the help card lists every key.
    KEY_BAR_SHORT: ClassVar[dict[str, Shorter]] = {
        "quit_viewer": Shorter(keep=1),
        "step(1)": Shorter(key="←→", keep=2),
        "toggle_play": Shorter(keep=3),
        "toggle_play('pause')": Shorter(keep=3),
    }

    DEFAULT_CSS = (
        page_css("ReplayScreen")
        + """
    ReplayScreen #header {
        height: 1;
    }
    ReplayScreen #title {
        width: 1fr;
        text-style: bold;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ReplayScreen #win-note {
        width: auto;
        margin-left: 2;
        text-style: bold;
        color: $t48-alert;
    }
    ReplayScreen #banner {
        width: 100%;
        height: auto;
        padding: 0 1;
        background: $t48-invalid;
        color: $t48-light;
        text-style: bold;
    }
    ReplayScreen #page-row {
        width: 100%;
        height: auto;
        align-horizontal: center;
    }
    ReplayScreen.-no-margins #top, ReplayScreen.-no-margins #bottom {
        margin-top: 0;
    }
    ReplayScreen.-no-progress #bottom {
        display: none;
    }
    ReplayScreen.-no-title #header {
        display: none;
    }
    ReplayScreen #top {
        height: auto;
        margin-top: 1;
    }
    ReplayScreen #spawned {
        margin-bottom: 0;
    }
    ReplayScreen .marker {
        width: 100%;
        height: 1;
        text-align: center;
        text-style: bold;
        color: $t48-light;
    }
    ReplayScreen #win-marker.-on {
        background: $t48-gold;
    }
    ReplayScreen #end-marker.-end {
        background: $t48-button;
    }
    ReplayScreen #end-marker.-over {
        background: $t48-alert;
    }
    ReplayScreen #end-marker.-invalid {
        background: $t48-invalid;
    }
    ReplayScreen #bottom {
        height: 1;
        margin-top: 1;
    }
    ReplayScreen #progress {
        width: 52;
    }
    ReplayScreen #progress Bar {
        width: 44;
    }
    ReplayScreen #progress Bar > .bar--bar, ReplayScreen #progress Bar > .bar--complete {
        color: $t48-gold;
        background: $t48-box;
    }
    ReplayScreen #play-state {
        width: 1fr;
        text-align: right;
        text-style: bold;
    }
    ReplayScreen #play-state.-playing {
        color: $t48-alert;
    }
    ReplayScreen.-medium #top, ReplayScreen.-compact #top {
        margin-top: 0;
    }
    ReplayScreen.-medium #bottom {
        margin-top: 0;
    }
    ReplayScreen.-medium #progress {
        width: 34;
    }
    ReplayScreen.-medium #progress Bar {
        width: 26;
    }
    ReplayScreen.-compact #bottom {
        display: none;
    }
    ReplayScreen #evaluation {
        width: 100%;
        height: 1;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    ReplayScreen.-no-evaluation #evaluation {
        display: none;
    }
    ReplayScreen.-compact ScoreBox {
        margin-bottom: 0;
    }
    ReplayScreen.-compact .marker {
        text-wrap: nowrap;
    }
    """
    )

    def __init__(
        self,
        timeline: Timeline,
        label: str,
        reasons: list[str],
        graph: EvaluationGraph | None = None,
        graph_note: str = "",
    ) -> None:
        super().__init__()
        translate_bindings(self)
        self.timeline = timeline
        self.label = label
        self.reasons = list(reasons)
        #: The network's expected score, move by move (None: no line, or ``graph_note``).
        self.graph = graph
        self.graph_note = graph_note
        #: Computed once: a bisection over the timeline, not free per redraw.
        self.winning_step = timeline.winning_step
        self.step = 0
        self.current: Step = timeline[0]
        self.speed_index = DEFAULT_SPEED
        self._autoplay: Timer | None = None
        #: When autoplay (re)started counting, and from which step.
        self._play_origin = (monotonic(), 0)
        #: The "go to" prompt while it is open.
        self._goto: GotoScreen | None = None

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        """The invalid banner (full width), header, board and counters, progress, keys."""
        if self.reasons:
            yield Banner(
                printable(_("INVALID: {reasons}").format(reasons="; ".join(self.reasons))),
                id="banner",
            )
        with Vertical(id="page-row"), Vertical(id="page"):
            with Horizontal(id="header"):
                yield Static(self.title_text(), id="title", markup=False)
                yield Static(self.win_note(), id="win-note", markup=False)
            with Horizontal(id="top"):
                yield BoardView(id="board")
                with Vertical(id="side"):
                    yield ScoreBox(_("MOVE"), id="move")
                    yield ScoreBox(_("SCORE"), id="score")
                    yield ScoreBox(_("PLAYED"), id="played")
                    yield ScoreBox(_("SPAWNED"), id="spawned")
                    yield Static("", id="win-marker", classes="marker", markup=False)
                    yield Static("", id="end-marker", classes="marker", markup=False)
            with Horizontal(id="bottom"):
                yield ProgressBar(total=max(self.timeline.last, 1), show_eta=False, id="progress")
                yield Static("", id="play-state", markup=False)
            if self.graph is not None or self.graph_note:
                yield Static("", id="evaluation", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        """Open on the opening board, paused."""
        self.go_to(0)
        self._show_play_state()

    def title_text(self) -> str:
        """What is being replayed: label, seed, player, length of the record.

        Under 78 columns only the label and the seed: the MOVE box says the
        length, and the one header line would otherwise cut the rest.
        """
        record = self.timeline.record
        parts = [
            _("replay · {label}").format(label=printable(self.label)),
            _("seed {seed}").format(seed=printable(record.seed)),
        ]
        if self._narrow():
            return " · ".join(parts)
        if record.player:
            parts.append(_("player {name}").format(name=printable(record.player)))
        count = record.move_count
        parts.append(ngettext("{n} move", "{n} moves", count).format(n=format_number(count)))
        return " · ".join(parts)

    def win_note(self) -> str:
        """The header's pointer to the winning move, so it can be found with ``g``."""
        if self.winning_step is None:
            return ""
        if self._narrow():
            return _("★ 2048 at {number}").format(number=self.winning_step)
        return _("★ 2048 reached at move {number}").format(number=self.winning_step)

    def _opening_spawns(self) -> str:
        """What the SPAWNED box says at the opening; two words in a 40x15 box of ten columns."""
        return _("two tiles") if self.has_class(COMPACT) else _("two opening tiles")

    def _narrow(self) -> bool:
        return self.has_class(MEDIUM) or self.has_class(COMPACT)

    # ------------------------------------------------------------------ display

    @property
    def board_view(self) -> BoardView:
        """The board widget."""
        return self.query_one(BoardView)

    @property
    def speed(self) -> int:
        """Autoplay speed in moves per second."""
        return SPEEDS[self.speed_index]

    @property
    def playing(self) -> bool:
        """Autoplay is running."""
        return self._autoplay is not None

    def go_to(self, number: int) -> None:
        """Show step ``number`` (clamped to the timeline), the one way the view changes.

        A running autoplay carries on from here: stepping or jumping while
        it plays moves the point it counts from.
        """
        self._show(number)
        self._play_origin = (monotonic(), self.step)

    def _show(self, number: int) -> None:
        """Draw step ``number`` (clamped) in every widget."""
        number = max(0, min(number, self.timeline.last))
        self.step = number
        self.current = step = self.timeline[number]
        opening = step.move is None
        self.board_view.show(step.board, None if opening else step.spawn.cell)
        self.query_one("#move", ScoreBox).show(
            number, _("of {last}").format(last=format_number(self.timeline.last))
        )
        self.query_one("#score", ScoreBox).show(
            step.score, f"+{step.gained}" if step.gained else ""
        )
        played = self.query_one("#played", ScoreBox)
        spawned = self.query_one("#spawned", ScoreBox)
        if step.move is None:
            played.show_text(_("opening"))
            spawned.show_text(self._opening_spawns())
        else:
            letter = step.move.letter
            played.show_text(f"{ARROWS[letter]} {letter} · {_(NAMES[letter])}")
            spawned.show_text(
                _("{value} at {cell}").format(
                    value=step.spawn.value, cell=cell_name(step.spawn.cell)
                )
            )
        self._show_markers()
        self.query_one(ProgressBar).update(progress=number)
        for line in self.query("#evaluation").results(Static):
            line.update(self.evaluation_text())

    def evaluation_text(self) -> str:
        """The evaluation line of the step shown: the network's expected final score after
        the move that led here, and what it cost against the network's best move."""
        if self.graph is None:
            return _(NO_GRAPH_LINE) if self.graph_note else ""
        if self.step == 0:
            first = self.graph.at(1)
            if first is None:
                return ""
            return _("network: expected final score {expected} with {best}").format(
                expected=points(first.best_expected), best=arrow_and_name(first.best.letter)
            )
        move = self.graph.at(self.step)
        if move is None:
            return ""
        if move.best is move.played:
            return _("network: expected score {expected} · the network's choice").format(
                expected=points(move.expected)
            )
        return _(
            "network: expected score {expected} · {best} kept {best_expected} · "
            "this move cost about {cost}"
        ).format(
            expected=points(move.expected),
            best=arrow_and_name(move.best.letter),
            best_expected=points(move.best_expected),
            cost=points(move.cost),
        )

    def apply_layout(self, width: int, height: int) -> None:
        """The arrangement that shows the whole banner, if any (see :mod:`.replay_layout`)."""
        banners = self.query(Banner)
        banner = banners.first() if banners else None
        chosen = plan(width, height, banner)
        arrangement = chosen.arrangement
        for name in LAYOUTS:
            self.set_class(name == arrangement.layout, name)
        self.set_class(not arrangement.margins, "-no-margins")
        self.set_class(not arrangement.progress, "-no-progress")
        self.set_class(not arrangement.title, "-no-title")
        # The evaluation line only where a row is left over: every arrangement keeps its size.
        spare = height - arrangement.rows - chosen.banner_rows
        self.set_class(spare < 1 or arrangement.layout == COMPACT, "-no-evaluation")
        if banner is not None:
            banner.rows = chosen.banner_rows
            banner.refresh(layout=True)
        if self.is_mounted:
            self._show_markers()
            self.query_one("#title", Static).update(self.title_text())
            self.query_one("#win-note", Static).update(self.win_note())
            if self.current.move is None:
                self.query_one("#spawned", ScoreBox).show_text(self._opening_spawns())

    def _show_markers(self) -> None:
        """Highlight the winning move and the end (game over, or why the replay stops).

        The compact layout's side column is 10 cells wide, so it says each in a word.
        """
        compact = self.has_class(COMPACT)
        win = self.query_one("#win-marker", Static)
        at_win = self.step == self.winning_step
        win_text = _("★ 2048") if compact else _("★ 2048 reached here!")
        win.update(win_text if at_win else "")
        win.set_class(at_win, "-on")
        end = self.query_one("#end-marker", Static)
        kind = ""
        text = ""
        if self.step == self.timeline.last:
            error = self.timeline.error
            if error is not None:
                text = (
                    _("✗ invalid")
                    if compact
                    else _("✗ move {number} is invalid").format(number=error.move_number)
                )
                kind = "-invalid"
            elif self.current.over:
                kind, text = "-over", _("over") if compact else _("game over")
            else:
                kind, text = "-end", _("end") if compact else _("end of game (not over)")
        end.update(text)
        for name in ("-invalid", "-over", "-end"):
            end.set_class(name == kind, name)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Of the two space bindings only the one that fits applies.

        So the footer says Play while paused and Pause while playing.
        """
        if action == "toggle_play":
            return self.playing == (parameters == ("pause",))
        if action == "reasons":
            return bool(self.reasons)
        return True

    def _show_play_state(self) -> None:
        """Playing or paused, and the speed ``+``/``-`` would change."""
        self.refresh_bindings()
        state = self.query_one("#play-state", Static)
        icon = _("▶ playing") if self.playing else _("‖ paused")
        state.update(_("{state} · {speed} moves/s").format(state=icon, speed=self.speed))
        state.set_class(self.playing, "-playing")

    # ------------------------------------------------------------------ navigation

    def action_step(self, delta: int) -> None:
        """Forward or back by ``delta`` moves (stops at either end)."""
        self.go_to(self.step + delta)

    def action_start(self) -> None:
        """The opening board."""
        self.go_to(0)

    def action_end(self) -> None:
        """The last valid step."""
        self.go_to(self.timeline.last)

    def action_goto(self, text: str = "") -> None:
        """Ask for a move number (autoplay pauses so the board holds still)."""
        self.stop_autoplay()
        self._goto = GotoScreen(self.timeline.last, self.step, text)
        self.app.push_screen(self._goto, self._after_goto)

    def _after_goto(self, number: int | None) -> None:
        self._goto = None
        if number is not None:
            self.go_to(number)

    def on_key(self, event: events.Key) -> None:
        """A digit opens "go to" with it, so typing ``948`` and enter is enough.

        Digits that still reach this screen while the prompt is mounting (a
        fast ``g948``) go to the prompt rather than being lost.
        """
        if event.character is None or not event.character.isdigit():
            return
        event.stop()
        if self._goto is None:
            self.action_goto(event.character)
        else:
            self._goto.type_text(event.character)

    # ------------------------------------------------------------------ autoplay

    def action_toggle_play(self, _which: str = "play") -> None:
        """Start or stop autoplay; from the last step it starts over from the opening.

        ``_which`` only tells the two space bindings apart (see check_action).
        """
        if self.playing:
            self.stop_autoplay()
            return
        if self.step >= self.timeline.last:
            if self.timeline.last == 0:
                return
            self.go_to(0)
        self._start_timer()
        self._show_play_state()

    def _start_timer(self) -> None:
        """Tick at the speed, at most FRAME_RATE times a second.

        Faster speeds move several steps per tick: redrawing 64 times a
        second would cost more than the eye can follow.
        """
        self._play_origin = (monotonic(), self.step)
        interval = 1 / min(self.speed, FRAME_RATE)
        self._autoplay = self.set_interval(interval, self._autoplay_tick)

    def stop_autoplay(self) -> None:
        """Stop autoplay if it runs (at the end, on space, under a dialog)."""
        if self._autoplay is not None:
            self._autoplay.stop()
            self._autoplay = None
        self._show_play_state()

    def _autoplay_tick(self) -> None:
        """Move to the step due by the clock; the last step stops autoplay there.

        Counting from a start time rather than one step per tick keeps the
        shown speed true when a busy machine delays or skips timer ticks.
        """
        since, origin = self._play_origin
        due = origin + int((monotonic() - since) * self.speed)
        if due > self.step:
            self._show(due)
        if self.step >= self.timeline.last:
            self.stop_autoplay()

    def action_speed(self, delta: int) -> None:
        """Faster or slower along SPEEDS; a running autoplay takes the new pace at once."""
        index = max(0, min(self.speed_index + delta, len(SPEEDS) - 1))
        if index == self.speed_index:
            return
        self.speed_index = index
        if self._autoplay is not None:
            self._autoplay.stop()
            self._start_timer()
        self._show_play_state()

    # ------------------------------------------------------------------ other keys

    def action_help(self) -> None:
        """The key list (autoplay pauses under it)."""
        self.stop_autoplay()
        self.app.push_screen(HelpScreen(REPLAY_HELP))

    def action_reasons(self) -> None:
        """Every reason an invalid record fails, on a card of its own (autoplay pauses)."""
        if not self.reasons:
            return
        self.stop_autoplay()
        self.app.push_screen(HelpScreen(ReasonsCard(self.reasons)))

    def action_quit_viewer(self) -> None:
        """Leave; a replay changes nothing, so there is nothing to save."""
        self.app.exit()


class ReplayApp(ChromeColours, App[None]):
    """The ``twenty48 replay`` application: one viewer screen over a timeline."""

    TITLE = "twenty48 replay"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        timeline: Timeline,
        label: str,
        reasons: list[str],
        graph: EvaluationGraph | None = None,
        graph_note: str = "",
    ) -> None:
        super().__init__()
        self.timeline = timeline
        self.replay_screen = ReplayScreen(timeline, label, reasons, graph, graph_note)

    @property
    def step(self) -> int:
        """The step on the board now."""
        return self.replay_screen.step

    def get_default_screen(self) -> Screen[Any]:
        """The viewer is the app's base screen."""
        return self.replay_screen


def run_replay_app(
    timeline: Timeline,
    label: str,
    reasons: list[str],
    graph: EvaluationGraph | None = None,
    graph_note: str = "",
) -> None:
    """Run the viewer until the user quits.

    An invalid record's reasons are in the viewer's banner; afterwards
    ``twenty48 replay`` prints them and exits 1 (:meth:`Loaded.finish`),
    as its printing modes do, so scripts and shells see the same verdict
    whichever way the record was looked at.
    """
    app = ReplayApp(timeline, label, reasons, graph, graph_note)
    app.run()
    if app.return_code:
        raise typer.Exit(app.return_code)


__all__ = ["GotoScreen", "ReplayApp", "ReplayScreen", "parse_step", "run_replay_app"]
