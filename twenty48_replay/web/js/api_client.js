// api_client.js: the fair-play JSON API of `twenty48 serve` (README "Fair play",
// schema/SPEC.md section 11), for the server's own pages.  Same protocol as
// twenty48_replay/fairplay/client.py:
//
//   apiNewGame(player)               POST /api/games            -> {id, token, commitment}
//   apiStart(id, token, clientSeed)  POST /api/games/{id}/start -> {board, score, moves, ...}
//   apiMove(id, token, n, letter)    POST /api/games/{id}/moves -> the board after move n and its spawn
//   apiFinish(id, token)             POST /api/games/{id}/finish -> reveals the server seed
//   apiGame(id)                      GET  /api/games/{id}       -> the public state (server seed once finished)
//   apiRecordBytes(id)               GET  /api/games/{id}/record -> the signed record's bytes (for verify.js)
//   apiKeyBytes()                    GET  /.well-known/twenty48-key -> the answer's bytes, for
//                                    key_sets.js's readKeySetFile (the key-file rule, SPEC 11.6)
//   apiLeaderboard(limit)            GET  /api/leaderboard
//   apiRandomClientSeed()            32 lowercase hex characters from crypto.getRandomValues
//   apiListen(listener)              listener(request, sent, status, answer) hears every JSON
//                                    answer as it arrives (play_witness.js keeps them as evidence)
//
// A dropped connection or a 502/503/504 is sent again, unchanged: a move names
// its number n, so the server answers a repeated n with the move from its log
// instead of applying it twice.  A 429 (over the server's rate limit: nothing was
// done) is sent again after its Retry-After (at most API_MAX_RETRY_AFTER_MS), so a
// held-down key is slowed to the limit instead of ending the game.  Any other refusal rejects with ApiRefusal
// (status, the server's one-line reason, and its code with parameters when the answer has
// one: .code = {code, params}, so that a page says it in its language).  The token only ever goes into
// the Authorization header; it is never logged or shown.
//
// Nothing the server sends is trusted: every request, its retries included, must be
// answered in full within API_DEADLINE_MS; an answer is read up to API_MAX_ANSWER bytes
// with the records' strict JSON reader (json.js: no duplicate keys, no NaN, deep nesting
// refused).  An answer that breaks these bounds rejects with ApiUnusable (the game cannot
// go on; the CLI's exit 2).  Objects come back as plain objects; a number with a fraction
// or too large stays a JsonFloat / JsonBigInt, which no shape check takes for an integer.
//
// The client's own words (an unusable answer, a server out of reach) are English templates
// with values: .message is the English text, and .words = {template, values} lets a page say
// them in its language (play_page.js; the templates are in web/messages.py's catalog list).

import { JsonBigInt, JsonFloat, readJson } from "./json.js";

export const API_RETRIES = 6;
export const API_RETRY_STATUSES = Object.freeze([502, 503, 504]);
export const API_RATE_LIMITED = 429;
export const API_MAX_RETRY_AFTER_MS = 5000;
export const API_DEADLINE_MS = 15000;
export const API_MAX_ANSWER = 16 * 1024 * 1024;

let apiListener = null;

// An English template with its {name} fields filled in from values.
function apiFill(template, values) {
  return template.replace(/\{([a-z_]+)\}/g, (match, name) => (name in values ? String(values[name]) : match));
}

export class ApiRefusal extends Error {
  constructor(status, reason, words = null, code = null) {
    super(status === null ? reason : "server answered " + status + ": " + reason);
    this.name = "ApiRefusal";
    this.status = status; // null: the server could not be reached
    this.reason = reason;
    this.words = words; // the client's own words ({template, values}); null: the server's reason
    this.code = code; // the server's reason as {code, params} (its error_code), or null
  }
}

export class ApiUnusable extends Error {
  constructor(template, values = {}) {
    super(apiFill(template, values));
    this.name = "ApiUnusable";
    this.kind = "unusable";
    this.words = { template, values };
  }
}

function apiWords(template, values = {}) {
  return { template, values, text: apiFill(template, values) };
}

export function apiListen(listener) {
  apiListener = listener;
}

function apiDelay(attempt) {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * 2 ** attempt)));
}

function apiRetryAfterMs(header) {
  // A Retry-After in whole seconds, as the server sends it; 1 s when absent or unusable.
  if (typeof header !== "string" || !/^[0-9]{1,6}$/.test(header)) return 1000;
  return Math.min(API_MAX_RETRY_AFTER_MS, Math.max(100, Number(header) * 1000));
}

function apiPlain(value) {
  // readJson's Maps as plain objects (a "__proto__" key stays an own property).
  if (value instanceof Map) {
    const out = {};
    for (const [key, item] of value) {
      Object.defineProperty(out, key, { value: apiPlain(item), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
  if (Array.isArray(value)) return value.map(apiPlain);
  if (value instanceof JsonFloat || value instanceof JsonBigInt) return value;
  return value;
}

async function apiReadBounded(response, signal) {
  // The body, at most API_MAX_ANSWER bytes (a longer one is refused, not buffered).
  if (!response.body || !response.body.getReader) {
    const whole = new Uint8Array(await response.arrayBuffer());
    return whole.length > API_MAX_ANSWER ? null : whole;
  }
  const reader = response.body.getReader();
  const parts = [];
  let size = 0;
  for (;;) {
    if (signal && signal.aborted) throw signal.reason || new DOMException("aborted", "AbortError");
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > API_MAX_ANSWER) {
      reader.cancel().catch(() => {});
      return null;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return bytes;
}

function apiParse(bytes) {
  try {
    return { value: apiPlain(readJson(bytes)) };
  } catch (error) {
    return { error: error && error.message ? error.message : String(error) };
  }
}

function apiReasonOf(value) {
  if (value && typeof value === "object" && typeof value.error === "string") {
    return value.error.slice(0, 500);
  }
  return null;
}

function apiCodeShape(value, depth) {
  // {code, params}: a short dotted code, params of JSON scalars or such objects (4 deep at most).
  if (value === null || typeof value !== "object" || Array.isArray(value) || depth > 4) return null;
  const { code, params } = value;
  if (typeof code !== "string" || !/^[a-z_]+(\.[a-z_]+){0,3}$/.test(code)) return null;
  if (params === null || typeof params !== "object" || Array.isArray(params)) return null;
  const kept = {};
  for (const [name, item] of Object.entries(params)) {
    if (!/^[a-z_]{1,32}$/.test(name)) return null;
    if (typeof item === "string") {
      kept[name] = item.slice(0, 500);
    } else if (item === null || typeof item === "boolean" || (typeof item === "number" && Number.isSafeInteger(item))) {
      kept[name] = item;
    } else {
      const inner = apiCodeShape(item, depth + 1);
      if (inner === null) return null;
      kept[name] = inner;
    }
  }
  return { code, params: kept };
}

function apiCodeOf(value) {
  // The refusal's reason as a code with parameters (SPEC 8.8: "error_code"), when well formed.
  return value && typeof value === "object" ? apiCodeShape(value.error_code, 0) : null;
}

async function apiExchange(method, path, body, token) {
  // One request and its retries, within the deadline: {status, bytes, value}.
  const headers = { Accept: "application/json" };
  if (body !== null || method === "POST") {
    // The server refuses a POST under /api/ that does not say JSON (415), a body or not.
    headers["Content-Type"] = "application/json";
  }
  if (token !== null) {
    headers.Authorization = "Bearer " + token;
  }
  const shown = method + " " + path;
  const giveUp = Date.now() + API_DEADLINE_MS;
  const late = () =>
    new ApiUnusable("no whole answer from the server to {request} within {seconds} s", { request: shown, seconds: API_DEADLINE_MS / 1000 });
  let failure = apiWords("no answer");
  let wait = null; // what a 429 asked for (ms)
  for (let attempt = 0; attempt <= API_RETRIES; attempt++) {
    if (attempt > 0) {
      const pause = wait === null ? Math.min(2000, 50 * 2 ** attempt) : wait;
      if (Date.now() + pause >= giveUp) break;
      await (wait === null ? apiDelay(attempt) : new Promise((resolve) => setTimeout(resolve, pause)));
      wait = null;
    }
    const left = giveUp - Date.now();
    if (left <= 0) throw late();
    const signal = typeof AbortSignal !== "undefined" && AbortSignal.timeout ? AbortSignal.timeout(left) : null;
    const init = { method, headers, cache: "no-store", credentials: "omit" };
    if (signal !== null) init.signal = signal;
    if (body !== null) {
      init.body = JSON.stringify(body);
    }
    let response;
    let bytes;
    try {
      response = await fetch(path, init);
      bytes = await apiReadBounded(response, signal);
    } catch (error) {
      if ((signal !== null && signal.aborted) || Date.now() >= giveUp) throw late();
      failure = apiWords("cannot reach the server ({problem})", { problem: error && error.message ? error.message : error });
      continue;
    }
    if (response.status === API_RATE_LIMITED) {
      const parsed = bytes === null ? {} : apiParse(bytes);
      failure = apiWords("the server answered {status}: {reason}", { status: 429, reason: apiReasonOf(parsed.value) || "rate limited" });
      failure.codes = { reason: apiCodeOf(parsed.value) };
      wait = apiRetryAfterMs(response.headers.get("Retry-After"));
      continue;
    }
    if (API_RETRY_STATUSES.includes(response.status)) {
      const parsed = bytes === null ? {} : apiParse(bytes);
      failure = apiWords("the server answered {status}: {reason}", {
        status: response.status,
        reason: apiReasonOf(parsed.value) || response.statusText || "unavailable",
      });
      failure.codes = { reason: apiCodeOf(parsed.value) };
      continue;
    }
    if (bytes === null) throw new ApiUnusable("the server's answer to {request} is unusable: it is over {limit} bytes", { request: shown, limit: API_MAX_ANSWER });
    const parsed = apiParse(bytes);
    if (response.status >= 400) {
      if (apiListener !== null && "value" in parsed) apiListener(shown, body, response.status, parsed.value);
      const reason = apiReasonOf(parsed.value) || response.statusText || "refused";
      throw new ApiRefusal(response.status, reason, null, apiCodeOf(parsed.value));
    }
    if (!("value" in parsed)) throw new ApiUnusable("the server's answer to {request} is unusable: {problem}", { request: shown, problem: parsed.error });
    if (apiListener !== null) apiListener(shown, body, response.status, parsed.value);
    return { status: response.status, bytes, value: parsed.value };
  }
  if (Date.now() >= giveUp) throw late();
  throw new ApiRefusal(null, failure.text, { template: failure.template, values: failure.values, codes: failure.codes || {} });
}

export async function apiCall(method, path, body = null, token = null) {
  return (await apiExchange(method, path, body, token)).value;
}

export function apiRandomClientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function apiNewGame(player, secret = null) {
  // secret: a registered name's, sent as the bearer token (the server refuses the name without it).
  return apiCall("POST", "/api/games", { player }, secret);
}

export async function apiRegister(name) {
  // Registers a name; the answer holds its secret, so no listener (a game's witness,
  // whose evidence may be downloaded and sent to others) ever hears it.
  const listener = apiListener;
  apiListener = null;
  try {
    return await apiCall("POST", "/api/players", { name });
  } finally {
    apiListener = listener;
  }
}

export async function apiStart(id, token, clientSeed) {
  try {
    return await apiCall("POST", "/api/games/" + id + "/start", { client_seed: clientSeed }, token);
  } catch (error) {
    // A start that landed before its answer was lost is refused as "already
    // started" when sent again: it is ours if the game holds our client seed.
    if (error instanceof ApiRefusal && error.status === 409) {
      const state = await apiGame(id);
      if (state.started && state.client_seed === clientSeed && !state.finished) {
        return state;
      }
    }
    throw error;
  }
}

export function apiMove(id, token, n, letter) {
  return apiCall("POST", "/api/games/" + id + "/moves", { move: letter, n }, token);
}

export function apiFinish(id, token) {
  return apiCall("POST", "/api/games/" + id + "/finish", null, token);
}

export function apiGame(id) {
  return apiCall("GET", "/api/games/" + id);
}

export async function apiRecordBytes(id) {
  return (await apiExchange("GET", "/api/games/" + id + "/record", null, null)).bytes;
}

export async function apiKeyBytes() {
  return (await apiExchange("GET", "/.well-known/twenty48-key", null, null)).bytes;
}

export function apiLeaderboard(limit = 100) {
  return apiCall("GET", "/api/leaderboard?limit=" + limit);
}
