// board_view.js: draws one position of the game into a 4x4 grid of cells, in the original's look.
//
// A board is 16 exponents, row-major (0 = empty, k = tile 2**k), as rules.js gives them.
// The 16 cell elements are made once and only their text, classes and data-value change
// afterwards, so showing any position costs the same few DOM writes (a jump across 20,000
// moves is as cheap as one step).  Colours come from the generated classes .v<value>
// (background, text colour) and .d<digits> (font size): see twenty48_replay/web/theme.py.

export function boardTileValue(exponent) {
  return exponent === 0 ? 0 : 2 ** exponent;
}

export class BoardView {
  // word: "board" in the page's language, which starts the board's description.
  constructor(element, word = "board") {
    this.element = element;
    this.word = word;
    this.cells = [];
    const doc = element.ownerDocument;
    element.textContent = "";
    for (let i = 0; i < 16; i += 1) {
      const cell = doc.createElement("div");
      cell.className = "t48-cell";
      cell.dataset.cell = String(i);
      cell.dataset.value = "0";
      element.appendChild(cell);
      this.cells.push(cell);
    }
  }

  // Show `board`; `spawn` (a cell index, or null) is ringed as the new tile.
  render(board, spawn = null) {
    const values = [];
    for (let i = 0; i < 16; i += 1) {
      const value = boardTileValue(board[i]);
      values.push(value);
      const cell = this.cells[i];
      const text = value === 0 ? "" : String(value);
      let classes = "t48-cell";
      if (value !== 0) {
        classes += " v" + text + " d" + text.length;
      }
      if (spawn === i) {
        classes += " new";
      }
      if (cell.className !== classes) {
        cell.className = classes;
      }
      if (cell.textContent !== text) {
        cell.textContent = text;
        cell.dataset.value = String(value);
      }
    }
    this.element.setAttribute("aria-label", this.word + ": " + boardDescription(values));
  }
}

// The board in words for screen readers: four rows of numbers, "." for an empty cell.
function boardDescription(values) {
  const rows = [];
  for (let r = 0; r < 4; r += 1) {
    rows.push(values.slice(4 * r, 4 * r + 4).map((v) => (v === 0 ? "." : String(v))).join(" "));
  }
  return rows.join(" / ");
}
