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
// Nothing the server sends is trusted (play_witness.js, the same checks as `play --server`):
// the commitment must be 64 lowercase hex before it is shown, the opening two tiles of 2
// or 4, and each move's answer the slide of the board shown plus one new 2 or 4 on an
// empty cell, with the right score, flags and move number; at the end the signed record
// is fetched, replayed and compared with every board shown, and checked with the
// server's key (verify.js).  A broken rule stops the game at once: #game gets
// data-fair="broken", #fair-check says which rule at which move, and the evidence (every
// answer received, in order; the token only as its SHA-256) is kept in this browser's
// localStorage ("twenty48.evidence", the newest five) and offered for download.  An
// unusable answer (wrong shape, too large, not whole within the deadline) stops it with
// data-fair="unusable"; a game that passes every check ends with data-fair="checked".
//
// Ending a game signs it: its score counts as it stands.  So "End game", and
// "New game" while a game is on, first ask ("End and sign game 108 now? ..."),
// and after the end the status says what was signed.

import { applyMove, boardToRows, isWon } from "./rules.js";
import {
  ApiRefusal,
  ApiUnusable,
  apiFinish,
  apiGame,
  apiKeyBytes,
  apiListen,
  apiMove,
  apiNewGame,
  apiRandomClientSeed,
  apiRecordBytes,
  apiRegister,
  apiStart,
} from "./api_client.js";
import { BoardView } from "./board_view.js";
import { commitmentOf } from "./fair.js";
import { readKeySetFile } from "./key_sets.js";
import { TrustedKeyError } from "./trusted_keys.js";
import { Witness, WitnessUnfair, WitnessUnusable } from "./play_witness.js";
import { pageTranslate, say } from "./page_words.js";
import { reasonTemplates, reasonText } from "./reasons.js";
import { REFUSAL_TEMPLATES } from "./refusal_templates.js";

// The server's refusals come with their code (error_code): said in the page's language.
reasonTemplates(REFUSAL_TEMPLATES);

// Whether a server's reason and every reason inside it are refusal codes this page knows.
function playKnownRefusal(r) {
  if (r === null || typeof r !== "object" || !Object.prototype.hasOwnProperty.call(REFUSAL_TEMPLATES, r.code)) return false;
  return Object.values(r.params).every((value) => value === null || typeof value !== "object" || playKnownRefusal(value));
}

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
const PLAY_EVIDENCE_KEY = "twenty48.evidence";
const PLAY_EVIDENCE_KEPT = 5;
// Secrets of the names this browser registered on this server (local storage is per
// origin, so per server): {name: secret}.  Shown only when the player asks ("Show the
// secret kept here", to carry the name to a terminal); never put in evidence or a URL.
const PLAY_SECRETS_KEY = "twenty48.secrets";
const PLAY_SECRET_PATTERN = /^[A-Za-z0-9_-]{16,256}$/;

function playSecrets() {
  try {
    const kept = JSON.parse(playRead("local", PLAY_SECRETS_KEY) || "{}");
    return kept !== null && typeof kept === "object" && !Array.isArray(kept) ? kept : {};
  } catch (error) {
    void error;
    return {};
  }
}

function playSecretOf(name) {
  const secret = Object.prototype.hasOwnProperty.call(playSecrets(), name) ? playSecrets()[name] : null;
  return typeof secret === "string" && PLAY_SECRET_PATTERN.test(secret) ? secret : null;
}

function playKeepSecret(name, secret) {
  const kept = playSecrets();
  kept[name] = secret;
  playWrite("local", PLAY_SECRETS_KEY, JSON.stringify(kept));
}

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
    this.boardView = new BoardView(playEl("board"), say("board")); // the export's board, same look
    this.game = null; // {id, token, commitment, clientSeed, player, board, score, moves, won}
    this.witness = null; // play_witness.js: every answer of this game, checked as it arrives
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
    playEl("show-secret").addEventListener("click", () => this.showSecret());
    playEl("player").addEventListener("input", () => this.hideSecret()); // another name's is not shown
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
        if (this.queue.length > 0 && this.phase === "playing") {
          // Keys that came after a drain that sent nothing ended, but before this callback
          // ran (all in one task): they found the drain still set and did not start one.
          this.pump();
        }
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
      this.status(say("Type a name first: the leaderboard shows it."), true);
      playEl("player").focus();
      return;
    }
    if (this.givenSecret() === false) {
      this.status(say("That is not a name's secret: it is 16 to 256 letters, digits, - and _."), true);
      playEl("name-secret").focus();
      return;
    }
    const typed = playEl("seed-input").value;
    if (typed && playCodePoints(typed) > 128) {
      this.status(say("Your seed is longer than 128 characters."), true);
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
    this.hideSecret();
    this.phase = "starting";
    this.queue = [];
    this.game = null;
    this.spawnCell = -1;
    this.clearFair();
    this.status(say("Asking the server for a game…"));
    this.render();
    try {
      const secret = await this.nameSecret(player);
      const clientSeed = typed || apiRandomClientSeed();
      const witness = new Witness(window.location.origin, player, clientSeed);
      this.witness = witness;
      apiListen((request, sent, status, answer) => witness.received(request, sent, status, answer));
      // The commitment is checked (64 lowercase hex) before it is shown or anything is played.
      const created = witness.created(await apiNewGame(player, secret));
      if (secret !== null && secret === this.givenSecret()) {
        // The server took it: the name's secret, kept here from now on (never in a URL).
        playKeepSecret(player, secret);
        playEl("name-secret").value = "";
        playEl("secret-box").open = false;
        this.root.dataset.registered = player;
      }
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
      this.status(say("Commitment received; sending your seed…"));
      this.remember();
      this.takeShown(witness.opened(await apiStart(created.id, created.token, clientSeed)));
      this.phase = "playing";
      this.status(say("Your move: arrow keys, WASD or swipe."));
    } catch (error) {
      if (this.isVerdict(error)) {
        this.stopUnfair(error);
        return;
      }
      this.phase = "idle";
      if (error instanceof ApiRefusal && error.status === 401) {
        this.status(say("This name is registered here, and its secret is not in this browser: give its secret, or choose another name."), true);
        playEl("secret-box").open = true;
        playEl("name-secret").focus();
      } else {
        this.status(say("Could not start a game: {reason}", { reason: this.reason(error) }), true);
      }
    }
    this.render();
  }

  showSecret() {
    // The secret this browser keeps for the name typed, to give it to `twenty48 player-secret
    // --keep` in a terminal: shown only on this click, in a read-only field, never in a URL.
    const player = playEl("player").value.trim();
    const secret = player ? playSecretOf(player) : null;
    const field = playEl("kept-secret");
    const help = playEl("kept-secret-help");
    help.hidden = false;
    if (secret === null) {
      field.value = "";
      field.hidden = true;
      help.textContent = player
        ? say("No secret of {name} is kept in this browser.", { name: player })
        : say("Type the name first.");
      return;
    }
    field.value = secret;
    field.hidden = false;
    help.textContent = say(
      "Whoever has this secret can play as {name}. To play the name in a terminal, paste it into: twenty48 player-secret --server {url} --player {name} --keep",
      { name: player, url: window.location.origin },
    );
    field.focus();
    field.select();
  }

  hideSecret() {
    const field = playEl("kept-secret");
    field.value = "";
    field.hidden = true;
    playEl("kept-secret-help").hidden = true;
  }

  givenSecret() {
    // A secret typed into "I have this name's secret" (a name registered elsewhere, such as
    // with `twenty48 play --register`): null when none, false when it cannot be one.
    const typed = playEl("name-secret").value.trim();
    if (!typed) return null;
    return PLAY_SECRET_PATTERN.test(typed) ? typed : false;
  }

  async nameSecret(player) {
    // The secret typed in, else the kept secret of this name, or a new one when "Keep this
    // name mine" is ticked.
    const given = this.givenSecret();
    if (given !== null) {
      return given;
    }
    const kept = playSecretOf(player);
    if (kept !== null || !playEl("register").checked) {
      return kept;
    }
    this.status(say("Registering the name…"));
    const answer = await apiRegister(player);
    const secret = answer !== null && typeof answer === "object" ? answer.secret : null;
    if (typeof secret !== "string" || !PLAY_SECRET_PATTERN.test(secret)) {
      throw new ApiUnusable("the server's answer to the registration holds no secret");
    }
    playKeepSecret(player, secret);
    playEl("register").checked = false;
    this.root.dataset.registered = player;
    return secret;
  }

  async sendMove(letter) {
    const game = this.game;
    const n = game.moves + 1;
    let answer;
    try {
      answer = await apiMove(game.id, game.token, n, letter);
    } catch (error) {
      if (error instanceof ApiRefusal && error.status === 422) {
        // The page sends only moves that change the board: refusing one breaks the rules.
        this.stopUnfair(this.witness.refused(n, letter, error.reason));
        return;
      }
      if (this.isVerdict(error)) {
        this.stopUnfair(error);
        return;
      }
      if (this.phase !== "playing") {
        return; // the game is being ended meanwhile: the end shows the server's state
      }
      this.queue = [];
      this.status(say("Move not played: {reason}", { reason: this.reason(error) }), true);
      await this.resync();
      return;
    }
    let checked;
    try {
      checked = this.witness.moved(n, letter, answer);
    } catch (error) {
      this.stopUnfair(error);
      return;
    }
    const wasWon = game.won;
    this.takeShown(checked.shown);
    this.spawnCell = checked.spawn.cell;
    if (answer.finished || answer.over) {
      await this.reveal(answer.over ? "Game over" : "Game ended");
      return;
    }
    if (game.won && !wasWon) {
      this.status(say("2048! Keep going for a higher score."));
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
    playEl("confirm-end-text").textContent = say("End and sign game {id} now? Its score counts as it stands.", {
      id: this.game.id,
    });
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
    let finished;
    try {
      finished = await apiFinish(this.game.id, this.game.token);
    } catch (error) {
      if (this.isVerdict(error)) {
        this.stopUnfair(error);
        return;
      }
      this.phase = "playing";
      this.status(say("Could not end the game: {reason}", { reason: this.reason(error) }), true);
      this.render();
      return;
    }
    await this.reveal("Game ended", finished);
  }

  async reveal(title, finished = null) {
    // The game is finished on the server: only now does the API show the seed.  The reveal
    // and then the signed record are checked against everything this page was shown.
    this.phase = "ending";
    this.queue = [];
    this.render();
    const game = this.game;
    const witness = this.witness;
    let serverSeed = null;
    try {
      let view = finished;
      if (view === null) {
        view = await apiGame(game.id);
        if (!view.finished) {
          view = await apiFinish(game.id, game.token); // over but not yet finished: finish it
        }
      }
      serverSeed = await witness.revealed(view);
      // The server publishes a key set (its keys over time): the record must be signed by a
      // listed key, not revoked, in use when the game ended (SPEC 11.6), as verify --trust URL,
      // and the answer is read by the same rule as a key file (64 KiB, 100 levels deep).
      const key = readKeySetFile(await apiKeyBytes());
      await witness.checkRecord(await apiRecordBytes(game.id), key);
      this.root.dataset.fair = "checked";
    } catch (error) {
      if (this.isVerdict(error)) {
        this.stopUnfair(error);
        return;
      }
      this.status(say("The game ended, but it could not be checked: {reason}", { reason: this.reason(error) }), true);
    }
    this.phase = "over";
    playWrite("session", PLAY_GAME_KEY, null);
    if (serverSeed !== null) {
      await this.showSeed(serverSeed);
    }
    if (this.root.dataset.fair === "checked") {
      const check = playEl("fair-check");
      check.textContent = say(
        "✓ Every answer followed the rules, SHA-256 of the server seed is the commitment you saw before your first move, and the signed record replays to exactly the game you were shown.",
      );
      check.className = "fair-check ok";
    }
    playEl("overlay-text").textContent = say(title);
    const link = playEl("replay-link");
    link.href = "/games/" + encodeURIComponent(String(game.id));
    link.hidden = false;
    playEl("overlay-replay").href = link.href;
    if (this.pendingAnswer !== null) {
      this.answerEnd(false); // nothing left to ask about
    }
    if (this.root.dataset.fair === "checked") {
      const moves = game.moves === 1 ? say("1 move") : say("{count} moves", { count: game.moves });
      const tile = Math.max(...boardToRows(game.board).flat());
      this.status(
        say(
          "{title}. Signed game {id}: {score} points in {moves}, largest tile {tile}; the replay page checks its record. Press New game to play again.",
          { title: say(title), id: game.id, score: game.score, moves, tile },
        ),
      );
    }
    this.render();
  }

  isVerdict(error) {
    // What stops a game for good: a broken rule, or an answer that cannot be used.
    return (
      error instanceof WitnessUnfair ||
      error instanceof WitnessUnusable ||
      error instanceof ApiUnusable ||
      error instanceof TrustedKeyError
    );
  }

  stopUnfair(error) {
    // The game stops at once: the verdict on the page, the evidence kept and offered.
    const broken = error instanceof WitnessUnfair;
    this.phase = "over";
    this.queue = [];
    playWrite("session", PLAY_GAME_KEY, null);
    this.root.dataset.fair = broken ? "broken" : "unusable";
    const check = playEl("fair-check");
    // The verdict in the page's language, from its code; the evidence keeps the English words.
    check.textContent = "✗ " + this.reason(error);
    check.className = "fair-check bad";
    playEl("overlay-text").textContent = broken ? say("Not fair") : say("Stopped");
    if (broken && error.evidence) {
      this.keepEvidence(error.evidence);
      this.status(say("The server broke the rules; the game is stopped. The evidence is kept in this browser."), true);
    } else {
      this.status(say("The server's answer cannot be used; the game is stopped."), true);
    }
    this.render();
  }

  keepEvidence(evidence) {
    const document_ = { ...evidence, saved: new Date().toISOString() };
    const text = JSON.stringify(document_, null, 2);
    let kept = [];
    try {
      const old = JSON.parse(playRead("local", PLAY_EVIDENCE_KEY) || "[]");
      if (Array.isArray(old)) kept = old;
    } catch (error) {
      void error;
    }
    kept = [document_, ...kept].slice(0, PLAY_EVIDENCE_KEPT);
    while (kept.length > 0) {
      playWrite("local", PLAY_EVIDENCE_KEY, JSON.stringify(kept));
      if (playRead("local", PLAY_EVIDENCE_KEY) !== null) break;
      kept.pop(); // over the storage quota: keep fewer
    }
    const link = playEl("evidence-link");
    if (link.href && link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
    link.href = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    link.download = "twenty48-evidence-game-" + String(evidence.game_id) + ".json";
    link.hidden = false;
  }

  async showSeed(serverSeed) {
    const game = this.game;
    playEl("server-seed").textContent = serverSeed;
    const check = playEl("fair-check");
    // SPEC 11.2 (fair.js: WebCrypto, or pure JS on plain-http pages served to other hosts).
    if ((await commitmentOf(serverSeed)) === game.commitment) {
      check.textContent = say("✓ SHA-256 of the server seed is the commitment you saw before your first move.");
      check.className = "fair-check ok";
      this.root.dataset.commitmentChecked = "true";
    } else {
      check.textContent = say("✗ The revealed server seed does not match the commitment: this game was not fair.");
      check.className = "fair-check bad";
      this.root.dataset.commitmentChecked = "false";
    }
  }

  async resync() {
    // After a failure the server's state is the truth (a move may have landed); it must be
    // the position last shown or one valid move beyond it.
    try {
      const view = await apiGame(this.game.id);
      if (view.started) {
        this.takeShown(this.witness.caughtUp(view));
      }
      if (view.finished) {
        await this.reveal(view.over ? "Game over" : "Game ended");
        return;
      }
    } catch (error) {
      if (this.isVerdict(error)) {
        this.stopUnfair(error);
        return;
      }
    }
    this.render();
  }

  async resume() {
    // A reload keeps the game of this tab (its token and what it was shown are in
    // sessionStorage only); the server's state must be the position last shown.
    const saved = playRead("session", PLAY_GAME_KEY);
    if (!saved) {
      return;
    }
    let game;
    try {
      game = JSON.parse(saved);
      if (!Array.isArray(game.shown) || game.shown.length === 0) throw new Error("nothing shown");
    } catch (error) {
      void error;
      playWrite("session", PLAY_GAME_KEY, null);
      return;
    }
    const witness = new Witness(window.location.origin, game.player, game.clientSeed);
    witness.restoreShown(game.shown, game.id, game.commitment);
    apiListen((request, sent, status, answer) => witness.received(request, sent, status, answer));
    try {
      const view = await apiGame(game.id);
      if (!view.started || view.commitment !== game.commitment) {
        playWrite("session", PLAY_GAME_KEY, null);
        return;
      }
      this.witness = witness;
      this.game = { ...game, board: new Uint8Array(16), score: 0, moves: 0, won: false };
      delete this.game.shown;
      playEl("commitment").textContent = game.commitment;
      playEl("client-seed").textContent = game.clientSeed;
      this.takeShown(witness.caughtUp(view));
      if (view.finished) {
        await this.reveal(view.over ? "Game over" : "Game ended");
        return;
      }
      this.phase = "playing";
      this.status(say("Game resumed: your move."));
    } catch (error) {
      if (this.isVerdict(error) && this.game !== null) {
        this.stopUnfair(error);
        return;
      }
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
      shown: this.witness ? this.witness.savedShown() : [],
    };
    playWrite("session", PLAY_GAME_KEY, JSON.stringify(saved));
  }

  takeShown(shown) {
    // A position the witness has checked: shown, and remembered for a reload.
    const game = this.game;
    game.board = Uint8Array.from(shown.board);
    game.score = shown.score;
    game.moves = shown.moves;
    game.won = isWon(game.board);
    if (game.score > this.best) {
      this.best = game.score;
      playWrite("local", PLAY_BEST_KEY, String(this.best));
    }
    this.remember();
  }

  clearFair() {
    playEl("commitment").textContent = say("none yet");
    playEl("client-seed").textContent = say("none yet");
    playEl("server-seed").textContent = say("revealed when the game ends");
    const check = playEl("fair-check");
    check.textContent = "";
    check.className = "fair-check";
    playEl("replay-link").hidden = true;
    playEl("evidence-link").hidden = true;
    delete this.root.dataset.commitmentChecked;
    delete this.root.dataset.fair;
  }

  reason(error) {
    // In the page's language: a reason from its code (the witness's, or the server's refusal
    // with a code this page knows), the client's own words from their template; a refusal
    // without a known code is the server's text and is shown as sent.
    const coded = error && error.code !== null && typeof error.code === "object";
    if (coded && pageTranslate !== null && (!(error instanceof ApiRefusal) || playKnownRefusal(error.code))) {
      return reasonText(error.code, pageTranslate);
    }
    if (error && error.words) {
      // A value that is itself one of the catalog's sentences (the JSON reader's) is said too,
      // and the server's reason inside (a 429's, a 503's) from its code.
      const codes = error.words.codes || {};
      const values = {};
      for (const [name, value] of Object.entries(error.words.values)) {
        const code = codes[name];
        if (pageTranslate !== null && playKnownRefusal(code)) {
          values[name] = reasonText(code, pageTranslate);
        } else {
          values[name] = typeof value === "string" && pageTranslate !== null ? pageTranslate(value) : value;
        }
      }
      return say(error.words.template, values);
    }
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
