// api_client.js: the fair-play JSON API of `twenty48 serve` (README "Fair play",
// schema/SPEC.md section 11), for the server's own pages.  Same protocol as
// twenty48_replay/client.py:
//
//   apiNewGame(player)               POST /api/games            -> {id, token, commitment}
//   apiStart(id, token, clientSeed)  POST /api/games/{id}/start -> {board, score, moves, ...}
//   apiMove(id, token, n, letter)    POST /api/games/{id}/moves -> the board after move n and its spawn
//   apiFinish(id, token)             POST /api/games/{id}/finish -> reveals the server seed
//   apiGame(id)                      GET  /api/games/{id}       -> the public state (server seed once finished)
//   apiLeaderboard(limit)            GET  /api/leaderboard
//   apiRandomClientSeed()            32 lowercase hex characters from crypto.getRandomValues
//
// A dropped connection or a 502/503/504 is sent again, unchanged: a move names
// its number n, so the server answers a repeated n with the move from its log
// instead of applying it twice.  Any other refusal rejects with ApiRefusal
// (status and the server's one-line reason).  The token only ever goes into
// the Authorization header; it is never logged or shown.

export const API_RETRIES = 6;
export const API_RETRY_STATUSES = Object.freeze([502, 503, 504]);

export class ApiRefusal extends Error {
  constructor(status, reason) {
    super(status === null ? reason : "server answered " + status + ": " + reason);
    this.name = "ApiRefusal";
    this.status = status; // null: the server could not be reached
    this.reason = reason;
  }
}

function apiDelay(attempt) {
  return new Promise((resolve) => setTimeout(resolve, Math.min(2000, 50 * 2 ** attempt)));
}

async function apiReason(response) {
  try {
    const value = await response.json();
    if (value && typeof value.error === "string") {
      return value.error.slice(0, 500);
    }
  } catch (error) {
    void error;
  }
  return response.statusText || "refused";
}

export async function apiCall(method, path, body = null, token = null) {
  const headers = { Accept: "application/json" };
  if (body !== null || method === "POST") {
    // The server refuses a POST under /api/ that does not say JSON (415), a body or not.
    headers["Content-Type"] = "application/json";
  }
  if (token !== null) {
    headers.Authorization = "Bearer " + token;
  }
  const init = { method, headers, cache: "no-store", credentials: "omit" };
  if (body !== null) {
    init.body = JSON.stringify(body);
  }
  let failure = "no answer";
  for (let attempt = 0; attempt <= API_RETRIES; attempt++) {
    if (attempt > 0) {
      await apiDelay(attempt);
    }
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      failure = "cannot reach the server (" + (error && error.message ? error.message : error) + ")";
      continue;
    }
    if (API_RETRY_STATUSES.includes(response.status)) {
      failure = "the server answered " + response.status + ": " + (await apiReason(response));
      continue;
    }
    if (response.status >= 400) {
      throw new ApiRefusal(response.status, await apiReason(response));
    }
    return response.json();
  }
  throw new ApiRefusal(null, failure);
}

export function apiRandomClientSeed() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function apiNewGame(player) {
  return apiCall("POST", "/api/games", { player });
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

export function apiLeaderboard(limit = 100) {
  return apiCall("GET", "/api/leaderboard?limit=" + limit);
}
