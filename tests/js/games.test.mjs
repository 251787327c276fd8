// Every step of every game of schema/vectors/games.json: rules + RNG (step by step, with
// rules.js and rng.js) and the verifier's timeline (verify.js), which must agree.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exponents, jsModule, readJsonFile } from "./helpers.mjs";

const { applyMove, boardToRows } = await jsModule("rules.js");
const { SpawnRng, openingBoard } = await jsModule("rng.js");
const { verifyRecord, verdictJson } = await jsModule("verify.js");

const doc = readJsonFile("schema", "vectors", "games.json");

test("games.json: version 1, at least five games", () => {
  assert.equal(doc.version, 1);
  assert.ok(doc.games.length >= 5);
});

for (const game of doc.games) {
  const name = `game ${JSON.stringify(game.seed).slice(0, 24)} (${game.moves.length} moves)`;

  test(`${name}: every step with rules.js and rng.js`, () => {
    const rng = new SpawnRng(game.seed);
    const { board: opening, first, second } = openingBoard(rng);
    assert.deepEqual(
      [first, second],
      game.opening.map((s) => ({ cell: s.cell, value: s.value })),
    );
    assert.deepEqual(boardToRows(opening), game.steps[0].board);
    let board = opening;
    let score = 0;
    for (let i = 1; i < game.steps.length; i++) {
      const step = game.steps[i];
      assert.equal(step.step, i);
      assert.equal(step.move, game.moves[i - 1]);
      const result = applyMove(board, step.move);
      assert.equal(result.moved, true, `move ${i} must change the board`);
      assert.equal(result.gained, step.gained, `gained at step ${i}`);
      score += result.gained;
      const spawn = rng.spawn(i + 1, result.board);
      assert.deepEqual(spawn, step.spawn, `spawn at step ${i}`);
      result.board[spawn.cell] = spawn.value === 4 ? 2 : 1;
      board = result.board;
      assert.deepEqual(boardToRows(board), step.board, `board at step ${i}`);
      assert.equal(score, step.score, `score at step ${i}`);
    }
  });

  test(`${name}: verifyRecord and its timeline`, async () => {
    const last = game.steps[game.steps.length - 1];
    const record = {
      format: "twenty48-record",
      version: 1,
      seed: game.seed,
      moves: game.moves,
      score: last.score,
      max_tile: Math.max(...last.board.flat()),
      final_board: last.board,
    };
    const verdict = await verifyRecord(JSON.stringify(record));
    const json = verdictJson(verdict);
    assert.deepEqual(json.reasons, []);
    assert.equal(json.valid, true);
    if (game.final) {
      for (const key of ["score", "max_tile", "moves", "won", "over"]) assert.equal(json[key], game.final[key], key);
    }
    const timeline = verdict.timeline;
    assert.equal(timeline.length, game.steps.length);
    for (const step of game.steps) {
      const at = timeline.at(step.step);
      assert.deepEqual(boardToRows(at.board), step.board);
      assert.deepEqual(
        { step: at.step, move: at.move, score: at.score, gained: at.gained, spawn: at.spawn },
        { step: step.step, move: step.move, score: step.score, gained: step.gained, spawn: step.spawn },
      );
    }
    assert.deepEqual(timeline.at(-1), timeline.at(timeline.length - 1));
    assert.deepEqual(exponents(game.steps[0].board), [...timeline.at(0).board]);
    assert.throws(() => timeline.at(timeline.length), RangeError);
  });
}
