// replay_page.js: the entry of the self-verifying replay page (twenty48_replay/web/page.py).
//
// The page embeds {"record": <the record's JSON text>, "trust": null | the well-known document
// of the trusted key or key set (SPEC 11.6: {algorithm, key_id, public_key[, keys]})}
// in <script type="application/json" id="t48-data">.  This module verifies the record with
// verify.js (the spec in JavaScript), shows the verdict and the fair-play checks, fills in the
// record's details and hands the timeline to the viewer.  Record text is untrusted: it reaches
// the page only through textContent, with control, line-separator and bidi characters made
// visible the way the CLI shows them (twenty48_replay/core/text.py, printable).
//
// When verification has finished, #verdict gets data-score, data-max-tile, data-moves,
// data-fair, data-signature and, last, data-valid ("true"/"false"), and the performance mark
// "t48-verdict" is set (the benchmark reads it).

import { parseTrustedKeySet } from "./key_sets.js";
import { reasonText, translator } from "./reasons.js";
import { verifyRecord } from "./verify.js";
import { BoardView } from "./board_view.js";
import { ReplayViewer } from "./viewer.js";

const PAGE_UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const PAGE_UNSAFE_KEEP_LINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const PAGE_MAX_SHOWN = 2000;
// The page's language: translate(english) from the catalog the page embeds (messages.py).
let pageT = (english) => english;

// English words (marked in messages.py for the catalog) in the page's language, values filled in.
function pageSay(english, values = {}) {
  return pageT(english).replace(/\{([a-z_]+)\}/g, (match, name) => (name in values ? String(values[name]) : match));
}
const PAGE_FAIR_STATUS = {
  fair: "every check passed",
  unchecked: "the signature was not checked",
  "not fair": "a check failed",
};

function pageEscapeChar(ch) {
  const code = ch.charCodeAt(0);
  return code <= 0xff ? "\\x" + code.toString(16).padStart(2, "0") : "\\u" + code.toString(16).padStart(4, "0");
}

// Untrusted text made safe to show: every control character as a visible escape, as the CLI does.
export function pagePrintable(text, keepLines = false) {
  let shown = String(text);
  let more = 0;
  if (shown.length > PAGE_MAX_SHOWN) {
    more = shown.length - PAGE_MAX_SHOWN;
    shown = shown.slice(0, PAGE_MAX_SHOWN);
  }
  shown = shown.replace(keepLines ? PAGE_UNSAFE_KEEP_LINES : PAGE_UNSAFE, pageEscapeChar);
  return more ? shown + "\u2026 " + pageSay("({count} more characters)", { count: more }) : shown;
}

function pageDisplay(value, keepLines = false) {
  if (typeof value === "string") {
    return pagePrintable(value, keepLines);
  }
  if (typeof value === "boolean") {
    return pageT(value ? "Yes" : "No");
  }
  let text;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    text = String(value);
  }
  return pagePrintable(text === undefined ? String(value) : text, keepLines);
}

function pageElement(doc, tag, text, className) {
  const element = doc.createElement(tag);
  if (text !== undefined) {
    element.textContent = text;
  }
  if (className) {
    element.className = className;
  }
  return element;
}

// The record's descriptive fields, for the details list; never used for verification.
function pageRecordFields(recordText) {
  let record;
  try {
    record = JSON.parse(recordText);
  } catch (error) {
    return [];
  }
  if (!record || typeof record !== "object" || Array.isArray(record)) {
    return [];
  }
  const fair = record.fair && typeof record.fair === "object" && !Array.isArray(record.fair) ? record.fair : {};
  const rows = [
    ["Player", record.player, false],
    ["Seed", record.seed, true],
    ["Started", record.started, false],
    ["Finished", record.finished, false],
    ["Client", record.client, false],
    ["Assisted", record.assisted, false],
    ["Notes", record.notes, false],
    ["Server game", fair.game_id, false],
    ["Server key id", fair.key_id, true],
    ["Client seed", fair.client_seed, false],
    ["Commitment", fair.commitment, true],
    ["Server seed", fair.server_seed, true],
    ["Game started", fair.started, false],
    ["Game ended", fair.ended, false],
  ];
  return rows.filter((row) => row[1] !== undefined && row[1] !== null);
}

function pageShowDetails(doc, recordText) {
  const list = doc.getElementById("details");
  list.textContent = "";
  const fields = pageRecordFields(recordText);
  for (const [label, value, mono] of fields) {
    list.appendChild(pageElement(doc, "dt", pageT(label)));
    list.appendChild(pageElement(doc, "dd", pageDisplay(value, label === "Notes"), mono ? "t48-mono" : ""));
  }
  return fields;
}

// One line per fair-play check: [state, text] with state "pass", "fail" or "skip".
export function pageFairChecks(verdict, trust) {
  const fair = verdict.fair;
  if (!fair) {
    return [["skip", pageSay("Self-seeded game: the player chose the seed, so there are no fair-play claims to check.")]];
  }
  const reasons = (fair.codes || []).slice();
  const bare = (reasons) => reasons.map((reason) => reasonText(reason, pageT).replace(/^fair: /, "")).join("; ");
  const take = (code) => {
    const found = reasons.filter((reason) => reason.code === code);
    for (const reason of found) {
      reasons.splice(reasons.indexOf(reason), 1);
    }
    return found;
  };
  const commitment = take("fair.commitment");
  const seed = take("fair.seed");
  const checks = [];
  const signatureChecked = fair.signature === "checked";
  if (reasons.length && !signatureChecked) {
    checks.push(["fail", pageSay("Fair-play data unusable: {problem}", { problem: bare(reasons) })]);
    return checks;
  }
  checks.push(
    commitment.length
      ? ["fail", pageSay("Commitment: {problem}", { problem: bare(commitment).replace(/^commitment /, "") })]
      : ["pass", pageSay("Commitment: the server seed revealed after the game is the one committed to before it.")],
  );
  checks.push(
    seed.length
      ? ["fail", pageSay("Seed derivation: {problem}", { problem: bare(seed).replace(/^seed /, pageT("the seed") + " ") })]
      : ["pass", pageSay("Seed derivation: the game's seed comes from the server seed and the player's seed.")],
  );
  if (signatureChecked) {
    // The key that signed: the record names it (with a key set, not always the current one).
    const signer = verdict.record && verdict.record.fair ? verdict.record.fair.key_id : trust && trust.key_id;
    const key = signer ? " " + signer : "";
    checks.push(
      reasons.length
        ? ["fail", pageSay("Signature: {problem}", { problem: bare(reasons).replace(/^signature /, "") })]
        : ["pass", pageSay("Signature: signed by the trusted server key{key}.", { key })],
    );
  } else {
    checks.push(["skip", pageSay("Signature: not checked; no trusted key was given when this page was made (twenty48 export --trust).")]);
  }
  return checks;
}

function pageShowChecks(doc, checks, status) {
  const list = doc.getElementById("fair-checks");
  list.textContent = "";
  const marks = { pass: "\u2713", fail: "\u2717", skip: "\u2013" };
  if (status) {
    const head = pageElement(doc, "li", undefined, "t48-fair-status");
    head.appendChild(pageElement(doc, "strong", pageSay("Fair play: {status}", { status: pageDisplay(pageT(status)) })));
    const why = PAGE_FAIR_STATUS[status];
    if (why) {
      head.appendChild(doc.createTextNode(" (" + pageT(why) + ")"));
    }
    list.appendChild(head);
  }
  for (const [state, text] of checks) {
    const item = pageElement(doc, "li", undefined, state);
    const mark = pageElement(doc, "span", marks[state], "t48-mark");
    mark.setAttribute("aria-label", pageT(state === "pass" ? "passed" : state === "fail" ? "failed" : "not checked"));
    item.appendChild(mark);
    item.appendChild(pageElement(doc, "span", pageDisplay(text)));
    list.appendChild(item);
  }
  list.hidden = false;
}

function pageSummary(verdict) {
  return pageSay("score {score}, max tile {tile}, {moves} moves", { score: verdict.score, tile: verdict.maxTile, moves: verdict.moves });
}

function pageShowVerdict(doc, verdict, trust) {
  const box = doc.getElementById("verdict");
  const text = doc.getElementById("verdict-text");
  const mark = box.querySelector(".t48-mark");
  const list = doc.getElementById("verdict-reasons");
  const valid = verdict.valid === true;
  const readable = Boolean(verdict.timeline);
  box.classList.add(valid ? "ok" : "bad");
  mark.textContent = valid ? "\u2713" : "\u2717";
  if (valid) {
    text.textContent = pageSay("verified: {summary}", { summary: pageSummary(verdict) });
  } else if (readable) {
    text.textContent = pageSay("NOT verified (replayed: {summary})", { summary: pageSummary(verdict) });
  } else {
    text.textContent = pageSay("NOT verified: the record cannot be read");
  }
  list.textContent = "";
  const codes = verdict.reasonCodes || [];
  const reasons = codes.length ? codes.map((code) => reasonText(code, pageT)) : (verdict.reasons || []).slice();
  if (verdict.error && !reasons.length) {
    // The reader's reason from its code, so a page in another language says it in that one.
    reasons.push(verdict.errorCode ? reasonText(verdict.errorCode, pageT) : verdict.error);
  }
  for (const reason of reasons) {
    list.appendChild(pageElement(doc, "li", pageDisplay(reason)));
  }
  list.hidden = list.childElementCount === 0;
  const note = doc.getElementById("verdict-note");
  if (readable && typeof verdict.invalidMove === "number") {
    const valid = verdict.moves === 1 ? pageSay("1 valid move") : pageSay("{count} valid moves", { count: verdict.moves });
    note.textContent = pageSay("Move {number} changes nothing, so the replay below stops at the {valid} before it.", { number: verdict.invalidMove, valid });
    note.hidden = false;
  }
  if (readable) {
    pageShowChecks(doc, pageFairChecks(verdict, trust), verdict.fair ? verdict.fair.status : "");
  }
  if (readable) {
    box.dataset.score = String(verdict.score);
    box.dataset.maxTile = String(verdict.maxTile);
    box.dataset.moves = String(verdict.moves);
  }
  box.dataset.fair = verdict.fair ? String(verdict.fair.status) : "self-seeded";
  box.dataset.signature = verdict.fair && verdict.fair.signature ? String(verdict.fair.signature) : "";
  box.dataset.valid = valid ? "true" : "false";
}

// A stand-in timeline for a record that cannot be read: the empty board, one position.
const PAGE_EMPTY_TIMELINE = {
  length: 1,
  at() {
    return { board: new Uint8Array(16), score: 0, move: null, spawn: null, won: false, over: false };
  },
};

export async function startReplayPage(doc) {
  const data = JSON.parse(doc.getElementById("t48-data").textContent);
  pageT = translator(data.messages || null) || ((english) => english);
  const trust = data.trust || null;
  const fields = pageShowDetails(doc, data.record);
  const player = fields.find((row) => row[0] === "Player");
  const boardView = new BoardView(doc.getElementById("board"), pageT("board"));
  let verdict;
  try {
    verdict = await verifyRecord(data.record, trust ? { trustedKey: parseTrustedKeySet(trust) } : {});
  } catch (error) {
    const problem = error && error.problem ? reasonText(error.problem, pageT) : String(error);
    verdict = { valid: false, reasons: [pageSay("the page could not verify the record: {problem}", { problem })], timeline: null, fair: null };
  }
  const viewer = new ReplayViewer(doc, verdict.timeline || PAGE_EMPTY_TIMELINE, boardView, pageT);
  pageShowVerdict(doc, verdict, trust);
  doc.title = pageT("2048 replay") + (player ? " \u00b7 " + pageDisplay(player[1]) : "") + (verdict.timeline ? " \u00b7 " + pageSay("score {score}", { score: verdict.score }) : "");
  if (typeof performance !== "undefined" && performance.mark) {
    performance.mark("t48-verdict");
  }
  return viewer;
}

if (typeof document !== "undefined" && document.getElementById("t48-data")) {
  globalThis.twenty48Page = startReplayPage(document);
}
