// play_page.js: the server's "/" page, one fair game played in the browser.
//
// Protocol (README "Fair play", schema/SPEC.md section 11): "New game" asks the
// server for a game and shows its commitment (the SHA-256 of a secret server
// seed) before anything else; only then is the client seed sent (the one the
// player typed, else 32 random hex characters from crypto.getRandomValues).
// Each move is POSTed with its number n; its answer is the board after the move
// and the spawn the server drew.  The page never knows the server seed before
// the game ends (the API does not send it); at the end it fetches the revealed
// seed, checks SHA-256(server seed) against the commitment shown before the
// first move, and links to the game's replay page, which verifies the signed
// record itself.
//
// Keys: arrows and WASD; a swipe on the board (pointer events, so touch, pen or
// a mouse drag).  A move that changes nothing is dropped here (rules.js) without
// asking the server.  Keys pressed while a move is on its way wait in a short
// queue, so fast typing loses nothing and moves are never sent out of order.
// Player text (names, seeds) is only ever put in with textContent.
//
// Ending a game signs it: its score counts as it stands.  So "End game", and
// "New game" while a game is on, first ask ("End and sign game 108 now? ..."),
// and after the end the status says what was signed.

import { applyMove, boardFromRows, boardToRows, isWon } from "./rules.js";
import { ApiRefusal, apiFinish, apiGame, apiMove, apiNewGame, apiRandomClientSeed, apiStart } from "./api_client.js";
import { BoardView } from "./board_view.js";
import { commitmentOf } from "./fair.js";

const PLAY_KEYS = Object.freeze({
  ArrowUp: "U",
  ArrowDown: "D",
  ArrowLeft: "L",
  ArrowRight: "R",
  w: "U",
  W: "U",
  a: "L",
  A: "L",
  s: "D",
  S: "D",
  d: "R",
  D: "R",
});
const PLAY_QUEUE_MAX = 4;
const PLAY_SWIPE_MIN_PX = 24;
const PLAY_BEST_KEY = "twenty48.best";
const PLAY_NAME_KEY = "twenty48.player";
const PLAY_GAME_KEY = "twenty48.game";

function playEl(id) {
  return document.getElementById(id);
}

function playStorage(kind) {
  try {
    return kind === "session" ? window.sessionStorage : window.localStorage;
  } catch (error) {
    void error;
    return null; // storage disabled: the page works, it just forgets
  }
}

function playRead(kind, key) {
  const storage = playStorage(kind);
  try {
    return storage ? storage.getItem(key) : null;
  } catch (error) {
    void error;
    return null;
  }
}

function playWrite(kind, key, value) {
  const storage = playStorage(kind);
  try {
    if (storage && value === null) {
      storage.removeItem(key);
    } else if (storage) {
      storage.setItem(key, value);
    }
  } catch (error) {
    void error;
  }
}

function playCodePoints(text) {
  return Array.from(text).length;
}

class PlayPage {
  constructor() {
    this.root = playEl("game");
    this.boardView = new BoardView(playEl("board")); // the export's board, same look
    this.game = null; // {id, token, commitment, clientSeed, player, board, score, moves, won}
    this.phase = "idle"; // idle | starting | playing | ending | over
    this.queue = [];
    this.busy = false;
    this.pumping = null; // the running drain of the queue, if any
    this.spawnCell = -1;
    this.best = Number(playRead("local", PLAY_BEST_KEY)) || 0;
    this.pointer = null;
    this.pendingAnswer = null; // resolves the open "End and sign?" question
  }

  install() {
    const name = playRead("local", PLAY_NAME_KEY);
    if (name) {
      playEl("player").value = name;
    }
    playEl("new-game").addEventListener("submit", (event) => {
      event.preventDefault();
      this.newGame();
    });
    playEl("finish").addEventListener("click", () => this.askThenEnd());
    playEl("confirm-end-yes").addEventListener("click", () => this.answerEnd(true));
    playEl("confirm-end-no").addEventListener("click", () => this.answerEnd(false));
    document.addEventListener("keydown", (event) => this.onKey(event));
    const wrap = playEl("board-wrap");
    wrap.addEventListener("pointerdown", (event) => {
      this.pointer = { id: event.pointerId, x: event.clientX, y: event.clientY };
    });
    wrap.addEventListener("pointerup", (event) => this.onPointerUp(event));
    wrap.addEventListener("pointercancel", () => {
      this.pointer = null;
    });
    this.render();
    this.resume();
  }

  // ------------------------------------------------------------------ input

  onKey(event) {
    if (event.ctrlKey || event.altKey || event.metaKey) {
      return;
    }
    const target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) {
      return; // typing a name or a seed
    }
    const letter = PLAY_KEYS[event.key];
    if (letter === undefined) {
      return;
    }
    if (this.phase === "playing") {
      event.preventDefault(); // arrows must not scroll the page
      this.enqueue(letter);
    }
  }

  onPointerUp(event) {
    const start = this.pointer;
    this.pointer = null;
    if (start === null || start.id !== event.pointerId) {
      return;
    }
    const dx = event.clientX - start.x;
    const dy = event.clientY - start.y;
    if (Math.max(Math.abs(dx), Math.abs(dy)) < PLAY_SWIPE_MIN_PX) {
      return;
    }
    if (Math.abs(dx) > Math.abs(dy)) {
      this.enqueue(dx > 0 ? "R" : "L");
    } else {
      this.enqueue(dy > 0 ? "D" : "U");
    }
  }

  enqueue(letter) {
    if (this.phase !== "playing" || this.queue.length >= PLAY_QUEUE_MAX) {
      return;
    }
    this.queue.push(letter);
    this.markPending();
    this.pump();
  }

  markPending() {
    // For tests and assistive tools: moves waiting or on their way ("0": settled).
    this.root.dataset.pending = String(this.queue.length + (this.busy ? 1 : 0));
  }

  pump() {
    // One drain at a time, so moves go out strictly one after another.
    if (this.pumping === null) {
      this.pumping = this.drain().finally(() => {
        this.pumping = null;
        this.markPending();
      });
    }
    return this.pumping;
  }

  async drain() {
    this.busy = true;
    try {
      while (this.queue.length > 0 && this.phase === "playing") {
        const letter = this.queue.shift();
        this.markPending();
        if (!applyMove(this.game.board, letter).moved) {
          continue; // changes nothing: not a move (SPEC 3.4), the server is not asked
        }
        await this.sendMove(letter);
      }
    } finally {
      this.busy = false;
      if (this.phase !== "playing") {
        this.queue = []; // keys pressed after the end are not moves of any game
      }
    }
  }

  // ------------------------------------------------------------------ protocol

  async newGame() {
    if (this.phase === "starting" || this.phase === "ending") {
      return;
    }
    const player = playEl("player").value.trim();
    if (!player) {
      this.status("Type a name first: the leaderboard shows it.", true);
      playEl("player").focus();
      return;
    }
    const typed = playEl("seed-input").value;
    if (typed && playCodePoints(typed) > 128) {
      this.status("Your seed is longer than 128 characters.", true);
      return;
    }
    if (this.phase === "playing") {
      if (!(await this.confirmEnd())) {
        return; // the player keeps this game
      }
      await this.endGame(); // the current game is finished and signed as it stands
    }
    playWrite("local", PLAY_NAME_KEY, player);
    if (document.activeElement && document.activeElement.blur) {
      document.activeElement.blur(); // keys go to the game from now on
    }
    this.phase = "starting";
    this.queue = [];
    this.game = null;
    this.spawnCell = -1;
    this.clearFair();
    this.status("Asking the server for a game…");
    this.render();
    try {
      const created = await apiNewGame(player);
      const clientSeed = typed || apiRandomClientSeed();
      this.game = {
        id: created.id,
        token: created.token,
        commitment: created.commitment,
        clientSeed,
        player,
        board: new Uint8Array(16),
        score: 0,
        moves: 0,
        won: false,
      };
      // The commitment is on screen before the client seed is even sent.
      playEl("commitment").textContent = created.commitment;
      playEl("client-seed").textContent = clientSeed;
      this.status("Commitment received; sending your seed…");
      this.remember();
      const opening = await apiStart(created.id, created.token, clientSeed);
      this.takeState(opening);
      this.phase = "playing";
      this.status("Your move: arrow keys, WASD or swipe.");
    } catch (error) {
      this.phase = "idle";
      this.status("Could not start a game: " + this.reason(error), true);
    }
    this.render();
  }

  async sendMove(letter) {
    const game = this.game;
    let answer;
    try {
      answer = await apiMove(game.id, game.token, game.moves + 1, letter);
    } catch (error) {
      if (error instanceof ApiRefusal && error.status === 422) {
        return; // the server agrees it changes nothing
      }
      if (this.phase !== "playing") {
        return; // the game is being ended meanwhile: the end shows the server's state
      }
      this.queue = [];
      this.status("Move not played: " + this.reason(error), true);
      await this.resync();
      return;
    }
    const wasWon = game.won;
    this.takeState(answer);
    this.spawnCell = answer.spawn ? answer.spawn.cell : -1;
    if (answer.finished || answer.over) {
      await this.reveal(answer.over ? "Game over" : "Game ended");
      return;
    }
    if (game.won && !wasWon) {
      this.status("2048! Keep going for a higher score.");
    } else {
      this.status("");
    }
    this.render();
  }

  // ------------------------------------------------------------------ asking first

  confirmEnd() {
    // Shows "End and sign game N now? ..." and resolves true (End and sign) or false.
    if (this.phase !== "playing" || this.game === null) {
      return Promise.resolve(false);
    }
    if (this.pendingAnswer !== null) {
      this.pendingAnswer(false); // one question at a time
    }
    playEl("confirm-end-text").textContent =
      "End and sign game " + this.game.id + " now? Its score counts as it stands.";
    playEl("confirm-end").hidden = false;
    this.root.dataset.asking = "end";
    playEl("confirm-end-no").focus();
    return new Promise((resolve) => {
      this.pendingAnswer = resolve;
    });
  }

  answerEnd(end) {
    playEl("confirm-end").hidden = true;
    delete this.root.dataset.asking;
    const resolve = this.pendingAnswer;
    this.pendingAnswer = null;
    if (document.activeElement && document.activeElement.blur) {
      document.activeElement.blur(); // the keys go back to the game
    }
    if (resolve !== null) {
      resolve(end);
    }
  }

  async askThenEnd() {
    if (await this.confirmEnd()) {
      await this.endGame();
    }
  }

  async endGame() {
    if (this.phase !== "playing" || this.game === null) {
      return;
    }
    this.phase = "ending";
    this.queue = [];
    this.render();
    if (this.pumping !== null) {
      await this.pumping; // the move on its way is answered first (it may end the game)
      if (this.phase === "over") {
        return;
      }
    }
    try {
      const answer = await apiFinish(this.game.id, this.game.token);
      this.takeState(answer);
    } catch (error) {
      this.phase = "playing";
      this.status("Could not end the game: " + this.reason(error), true);
      this.render();
      return;
    }
    await this.reveal("Game ended");
  }

  async reveal(title) {
    // The game is finished on the server: only now does the API show the seed.
    this.phase = "ending";
    this.queue = [];
    this.render();
    const game = this.game;
    let view = null;
    try {
      view = await apiGame(game.id);
      if (!view.finished) {
        view = await apiFinish(game.id, game.token); // over but not yet finished: finish it
      }
    } catch (error) {
      this.status("The game ended, but its seed could not be fetched: " + this.reason(error), true);
    }
    this.phase = "over";
    playWrite("session", PLAY_GAME_KEY, null);
    if (view && typeof view.server_seed === "string") {
      await this.showSeed(view.server_seed);
    }
    playEl("overlay-text").textContent = title;
    const link = playEl("replay-link");
    link.href = "/games/" + encodeURIComponent(String(game.id));
    link.hidden = false;
    playEl("overlay-replay").href = link.href;
    if (this.pendingAnswer !== null) {
      this.answerEnd(false); // nothing left to ask about
    }
    const moves = game.moves === 1 ? "1 move" : game.moves + " moves";
    const tile = Math.max(...boardToRows(game.board).flat());
    this.status(
      title + ". Signed game " + game.id + ": " + game.score + " points in " + moves +
        ", largest tile " + tile + "; the replay page checks its record. Press New game to play again.",
    );
    this.render();
  }

  async showSeed(serverSeed) {
    const game = this.game;
    playEl("server-seed").textContent = serverSeed;
    const check = playEl("fair-check");
    // SPEC 11.2 (fair.js: WebCrypto, or pure JS on plain-http pages served to other hosts).
    if ((await commitmentOf(serverSeed)) === game.commitment) {
      check.textContent = "✓ SHA-256 of the server seed is the commitment you saw before your first move.";
      check.className = "fair-check ok";
      this.root.dataset.commitmentChecked = "true";
    } else {
      check.textContent = "✗ The revealed server seed does not match the commitment: this game was not fair.";
      check.className = "fair-check bad";
      this.root.dataset.commitmentChecked = "false";
    }
  }

  async resync() {
    // After a failure the server's state is the truth (a move may have landed).
    try {
      const view = await apiGame(this.game.id);
      if (view.started) {
        this.takeState(view);
      }
      if (view.finished) {
        await this.reveal(view.over ? "Game over" : "Game ended");
        return;
      }
    } catch (error) {
      void error;
    }
    this.render();
  }

  async resume() {
    // A reload keeps the game of this tab (its token is in sessionStorage only).
    const saved = playRead("session", PLAY_GAME_KEY);
    if (!saved) {
      return;
    }
    let game;
    try {
      game = JSON.parse(saved);
    } catch (error) {
      void error;
      playWrite("session", PLAY_GAME_KEY, null);
      return;
    }
    try {
      const view = await apiGame(game.id);
      if (!view.started || view.commitment !== game.commitment) {
        playWrite("session", PLAY_GAME_KEY, null);
        return;
      }
      this.game = { ...game, board: new Uint8Array(16), score: 0, moves: 0, won: false };
      playEl("commitment").textContent = game.commitment;
      playEl("client-seed").textContent = game.clientSeed;
      this.takeState(view);
      if (view.finished) {
        await this.reveal(view.over ? "Game over" : "Game ended");
        return;
      }
      this.phase = "playing";
      this.status("Game resumed: your move.");
    } catch (error) {
      void error;
      playWrite("session", PLAY_GAME_KEY, null);
    }
    this.render();
  }

  remember() {
    const game = this.game;
    const saved = {
      id: game.id,
      token: game.token,
      commitment: game.commitment,
      clientSeed: game.clientSeed,
      player: game.player,
    };
    playWrite("session", PLAY_GAME_KEY, JSON.stringify(saved));
  }

  takeState(answer) {
    const game = this.game;
    game.board = boardFromRows(answer.board);
    game.score = answer.score;
    game.moves = answer.moves;
    game.won = isWon(game.board);
    if (game.score > this.best) {
      this.best = game.score;
      playWrite("local", PLAY_BEST_KEY, String(this.best));
    }
  }

  clearFair() {
    playEl("commitment").textContent = "none yet";
    playEl("client-seed").textContent = "none yet";
    playEl("server-seed").textContent = "revealed when the game ends";
    const check = playEl("fair-check");
    check.textContent = "";
    check.className = "fair-check";
    playEl("replay-link").hidden = true;
    delete this.root.dataset.commitmentChecked;
  }

  reason(error) {
    if (error instanceof ApiRefusal) {
      return error.reason;
    }
    return error && error.message ? error.message : String(error);
  }

  // ------------------------------------------------------------------ view

  status(text, isError = false) {
    const element = playEl("status");
    element.textContent = text;
    element.className = isError ? "status error" : "status";
  }

  render() {
    const game = this.game;
    const board = game ? game.board : null;
    this.boardView.render(board || new Uint8Array(16), this.spawnCell >= 0 ? this.spawnCell : null);
    const score = game ? game.score : 0;
    const moves = game ? game.moves : 0;
    playEl("score").textContent = String(score);
    playEl("moves").textContent = String(moves);
    playEl("best").textContent = String(this.best);
    playEl("finish").disabled = this.phase !== "playing";
    playEl("new-game-button").disabled = this.phase === "starting" || this.phase === "ending";
    playEl("overlay").hidden = this.phase !== "over";
    const data = this.root.dataset;
    data.state = this.phase;
    data.pending = String(this.queue.length + (this.busy ? 1 : 0));
    data.score = String(score);
    data.moves = String(moves);
    data.board = board ? boardToRows(board).flat().join(",") : "";
    if (game) {
      data.gameId = String(game.id);
    } else {
      delete data.gameId;
    }
  }
}

if (typeof document !== "undefined") {
  const playPage = new PlayPage();
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => playPage.install());
  } else {
    playPage.install();
  }
}
