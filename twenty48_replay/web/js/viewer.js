// viewer.js: stepping through a verified game: buttons, keys, a slider to jump anywhere, autoplay.
//
// The viewer reads positions from verify.js's timeline (`length`, `at(i)` in O(1)), so going to
// any step is one board render: no replay happens here.  Manual navigation pauses autoplay.
// Keys: Left/Right one move, Up/Down ten moves, Home/End first/last, Space play/pause; keys
// typed into the slider or the speed menu are left to them (the slider moves with the arrows
// on its own).

const VIEWER_ARROWS = { U: "\u2191", D: "\u2193", L: "\u2190", R: "\u2192" };
const VIEWER_MIN_DELAY_MS = 16;

// The cell a spawn landed on, whatever shape the timeline gives it (index, or {cell}/{index}).
export function viewerSpawnCell(spawn) {
  if (typeof spawn === "number") {
    return spawn;
  }
  if (spawn && typeof spawn === "object") {
    if (typeof spawn.cell === "number") {
      return spawn.cell;
    }
    if (typeof spawn.index === "number") {
      return spawn.index;
    }
  }
  return null;
}

export class ReplayViewer {
  constructor(doc, timeline, boardView, translate = null) {
    this.doc = doc;
    // The page's language (replay_page.js's catalog): English words in, the reader's out.
    this.say = (english, values = {}) =>
      (translate === null ? english : translate(english)).replace(/\{([a-z_]+)\}/g, (match, name) => (name in values ? String(values[name]) : match));
    this.timeline = timeline;
    this.boardView = boardView;
    this.last = Math.max(timeline.length - 1, 0);
    this.step = -1;
    this.speed = 5;
    this.playing = false;
    this.timer = null;
    const el = (id) => doc.getElementById(id);
    this.el = {
      score: el("score"),
      moveNumber: el("move-number"),
      caption: el("step-caption"),
      arrow: el("move-arrow"),
      slider: el("slider"),
      first: el("first"),
      prev: el("prev"),
      play: el("play"),
      next: el("next"),
      lastButton: el("last"),
      speed: el("speed"),
    };
    this.el.slider.max = String(this.last);
    this.el.slider.disabled = this.last === 0;
    const speed = Number(this.el.speed.value);
    if (speed > 0) {
      this.speed = speed;
    }
    this.wire();
    this.show(0);
  }

  wire() {
    const e = this.el;
    e.first.addEventListener("click", () => this.go(0));
    e.prev.addEventListener("click", () => this.go(this.step - 1));
    e.next.addEventListener("click", () => this.go(this.step + 1));
    e.lastButton.addEventListener("click", () => this.go(this.last));
    e.play.addEventListener("click", () => this.toggle());
    e.slider.addEventListener("input", () => this.go(Number(e.slider.value)));
    e.speed.addEventListener("change", () => {
      this.speed = Number(e.speed.value) || 1;
      if (this.playing) {
        this.anchor();
      }
    });
    this.doc.addEventListener("keydown", (event) => this.onKey(event));
  }

  onKey(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      return;
    }
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowUp: 10, ArrowDown: -10 };
    if (event.key in moves) {
      this.go(this.step + moves[event.key]);
    } else if (event.key === "Home") {
      this.go(0);
    } else if (event.key === "End") {
      this.go(this.last);
    } else if (event.key === " " && tag !== "BUTTON") {
      this.toggle();
    } else {
      return;
    }
    event.preventDefault();
  }

  // Manual navigation: pause autoplay, then show step n.
  go(n) {
    this.pause();
    this.show(n);
  }

  // Show step n (clamped to the game); the one place that changes what is on screen.
  show(n) {
    const step = Math.min(Math.max(Math.trunc(Number(n)) || 0, 0), this.last);
    this.step = step;
    const position = this.timeline.at(step);
    this.boardView.render(position.board, step === 0 ? null : viewerSpawnCell(position.spawn));
    const e = this.el;
    e.score.textContent = String(position.score);
    e.moveNumber.textContent = String(step);
    e.caption.textContent = this.say("move {step} / {last}", { step, last: this.last }) + viewerEnding(position, step, this.last, this.say);
    e.arrow.textContent = step === 0 ? "" : VIEWER_ARROWS[position.move] || "";
    e.arrow.title = step === 0 ? "" : this.say("move {step}: {letter}", { step, letter: position.move || "" });
    if (e.slider.value !== String(step)) {
      e.slider.value = String(step);
    }
    e.first.disabled = step === 0;
    e.prev.disabled = step === 0;
    e.next.disabled = step === this.last;
    e.lastButton.disabled = step === this.last;
    e.play.disabled = this.last === 0;
  }

  toggle() {
    if (this.playing) {
      this.pause();
    } else {
      this.play();
    }
  }

  play() {
    if (this.last === 0) {
      return;
    }
    if (this.step >= this.last) {
      this.show(0);
    }
    this.playing = true;
    this.el.play.textContent = this.say("Pause");
    this.anchor();
    this.schedule();
  }

  pause() {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.playing) {
      this.playing = false;
      this.el.play.textContent = this.say("Play");
    }
  }

  // Autoplay follows the clock, not the timer count: at 500 moves/s one tick shows
  // several moves, and a slow tick never makes the game play slower than chosen.
  anchor() {
    this.anchorTime = performance.now();
    this.anchorStep = this.step;
  }

  schedule() {
    const delay = Math.max(VIEWER_MIN_DELAY_MS, 1000 / this.speed);
    this.timer = setTimeout(() => this.tick(), delay);
  }

  tick() {
    this.timer = null;
    if (!this.playing) {
      return;
    }
    const elapsed = performance.now() - this.anchorTime;
    const target = this.anchorStep + Math.max(1, Math.floor((elapsed * this.speed) / 1000));
    this.show(Math.min(target, this.last));
    if (this.step >= this.last) {
      this.pause();
    } else {
      this.schedule();
    }
  }
}

function viewerEnding(position, step, last, say) {
  if (step !== last) {
    return "";
  }
  if (position.over) {
    return " \u00b7 " + say("game over");
  }
  if (position.won) {
    return " \u00b7 " + say("2048 reached");
  }
  return "";
}
