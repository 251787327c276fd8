// leaderboard_page.js: the server's "/leaderboard" page, built from GET /api/leaderboard
// (the best finished fair game of each player).  Every row links to the game's
// replay page (/games/{id}), which verifies its signed record in the browser.
// Player names are untrusted text: they only ever go in with textContent, in an
// element of their own.  A registered name (played with its secret) gets a badge beside
// that element: a green disc with a check drawn by the style sheet, holding no character,
// announced by its aria-label.  No name can imitate it (a name is text in the name's own
// element, and the server refuses check marks and their look-alikes in names).

import { apiLeaderboard } from "./api_client.js";
import { pageLanguage, say } from "./page_words.js";

const LEADERBOARD_LIMIT = 100;

function leaderboardCell(row, text, className = "") {
  const cell = document.createElement("td");
  cell.textContent = text;
  if (className) {
    cell.className = className;
  }
  row.append(cell);
  return cell;
}

function leaderboardWhen(iso) {
  const when = new Date(iso);
  if (typeof iso !== "string" || Number.isNaN(when.getTime())) {
    return "";
  }
  const language = pageLanguage();
  return when.toLocaleString(language === "en" ? undefined : language, { dateStyle: "medium", timeStyle: "short" });
}

function leaderboardRow(game) {
  const row = document.createElement("tr");
  row.dataset.gameId = String(game.id);
  leaderboardCell(row, String(game.rank), "rank");
  const player = leaderboardCell(row, "", "player");
  const name = document.createElement("span");
  name.className = "player-name";
  name.textContent = String(game.player);
  player.append(name);
  row.dataset.registered = game.registered === true ? "yes" : "no";
  if (game.registered === true) {
    const badge = document.createElement("span");
    badge.className = "registered-badge";
    badge.setAttribute("role", "img");
    badge.setAttribute("aria-label", say("registered name: played with its secret"));
    badge.title = say("registered name: played with its secret");
    player.append(badge);
  }
  if (game.suspected_bot) {
    const flag = document.createElement("span");
    flag.className = "bot-flag";
    flag.textContent = say("bot?");
    flag.title = say("suspected bot: engine-match rate or time between moves beyond the server's thresholds");
    player.append(flag);
  }
  leaderboardCell(row, String(game.score), "num score");
  leaderboardCell(row, String(game.max_tile), "num");
  leaderboardCell(row, String(game.moves), "num");
  const ended = leaderboardCell(row, leaderboardWhen(game.ended), "when");
  if (typeof game.ended === "string") {
    ended.title = game.ended;
  }
  const replay = leaderboardCell(row, "");
  const link = document.createElement("a");
  link.href = "/games/" + encodeURIComponent(String(game.id));
  link.textContent = say("replay");
  replay.append(link);
  return row;
}

async function leaderboardLoad() {
  const root = document.getElementById("leaderboard");
  const status = document.getElementById("status");
  let answer;
  try {
    answer = await apiLeaderboard(LEADERBOARD_LIMIT);
  } catch (error) {
    status.textContent = say("Could not load the leaderboard: {reason}", { reason: error.reason || error.message || error });
    status.className = "status error";
    root.dataset.state = "error";
    return;
  }
  const games = Array.isArray(answer.games) ? answer.games : [];
  const body = document.getElementById("rows");
  body.replaceChildren(...games.map(leaderboardRow));
  document.getElementById("board-table").hidden = games.length === 0;
  if (games.length === 0) {
    status.replaceChildren(say("No finished fair game yet.") + " ");
    const link = document.createElement("a");
    link.href = "/";
    link.textContent = say("Play the first one.");
    status.append(link);
  } else {
    status.textContent = games.length === 1 ? say("1 player.") : say("{count} players.", { count: games.length });
  }
  root.dataset.state = "ready";
  root.dataset.count = String(games.length);
}

if (typeof document !== "undefined") {
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", leaderboardLoad);
  } else {
    leaderboardLoad();
  }
}
