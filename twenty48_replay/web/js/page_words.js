// page_words.js: a served page's words in the page's language (the play and leaderboard pages).
//
// The server builds each page in the reader's language (twenty48_replay/server/http/shells.py); a
// page in another language than English carries {english: translation} for the words its
// module says, and for every reason it may show, in a data block
// <script type="application/json" id="t48-messages"> (read from the same .po as the command
// line's; never run, so the page's policy needs nothing new).  An English page has no block,
// and every word stays as written.
//
// API:
//   pageTranslate            translate(english) for reasonText, or null on an English page
//   say(english, values={})  the words in the page's language, {name} filled in from values
//   pageLanguage()           the page's language (<html lang>), "en" when it names none

import { translator } from "./reasons.js";

function pageCatalog() {
  if (typeof document === "undefined") return null;
  const block = document.getElementById("t48-messages");
  if (block === null) return null;
  try {
    return JSON.parse(block.textContent);
  } catch (error) {
    void error;
    return null; // an unreadable block: the page speaks English
  }
}

export const pageTranslate = translator(pageCatalog());

export function say(english, values = {}) {
  const words = pageTranslate === null ? english : pageTranslate(english);
  return words.replace(/\{([a-z_]+)\}/g, (match, name) => (name in values ? String(values[name]) : match));
}

export function pageLanguage() {
  if (typeof document === "undefined") return "en";
  return document.documentElement.lang || "en";
}
