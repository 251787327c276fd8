// rng.js: spawn RNG version 1 (SPEC section 5): where the next tile appears.
//
// d = HMAC-SHA256(UTF-8(seed), k as 8 big-endian bytes); the cell is
// empties[uint64(d[0..7]) mod len(empties)], the tile a 4 when uint64(d[8..15]) mod 10 == 0.
// The 64-bit remainders are computed exactly from two 32-bit halves
// ((hi mod n) * (2^32 mod n) + lo mod n) mod n, with no BigInt and no floating-point loss.
//
// Which HMAC: measured in Node 20 on this project's shared 2-core machine with
// `node tests/bench/bench_js.mjs` (the 20,000-move record, 20,002 spawn digests): this
// synchronous pure-JS HMAC, with the key's inner and outer SHA-256 states computed once per
// seed so that a spawn costs exactly two compressions, takes about 25-30 ms; 20,002 awaited
// crypto.subtle.sign("HMAC") calls take about 1,100 ms (each is a promise and a trip to the
// crypto thread pool), and even all of them at once with Promise.all 360-830 ms.  WebCrypto
// is also absent in insecure contexts.  So the spawn loop always uses the pure-JS HMAC;
// spawnDigestWebCrypto exists for the tests, which check both give the same bytes.
//
// API:
//   MAX_SEED_LENGTH = 128
//   seedProblem(seed)        -> null, or why the seed is unusable (the reference's wording)
//   seedReason(seed)         -> null, or the same as a reason with its code (reasons.js)
//   new SpawnRng(seed)       throws RangeError(seedProblem) for an unusable seed
//     .digest(k)             -> Uint8Array(32), d of SPEC 5.2 (k a number or a BigInt, 0 <= k < 2^64)
//     .words(k)              -> the same d as an Int32Array(8) of big-endian words (reused buffer)
//     .spawn(k, board)       -> {cell, value}: board of 16 exponents with an empty cell
//     .spawnCode(k, empties, count) -> cell | 16 when the tile is a 4 (fast path of verify.js;
//                               empties: the ascending empty cells in an array of `count`)
//   openingBoard(rng)        -> {board: Uint8Array(16), first: {cell, value}, second: {cell, value}}
//   async spawnDigestWebCrypto(seed, k) -> Uint8Array(32) via crypto.subtle (null without it)

import { hmacSha256States, sha256Compress } from "./sha256.js";
import { reason, reasonText } from "./reasons.js";
import { codePointCount, loneSurrogateAt, utf8Encode } from "./text.js";

export const MAX_SEED_LENGTH = 128;

const RNG_TWO32 = 4294967296;

export function seedReason(seed) {
  if (typeof seed !== "string") return reason("seed.not_string", { type: seed === null ? "NoneType" : typeof seed });
  if (seed.length === 0) return reason("seed.empty");
  const length = codePointCount(seed);
  if (length > MAX_SEED_LENGTH) return reason("seed.too_long", { length, limit: MAX_SEED_LENGTH });
  const lone = loneSurrogateAt(seed);
  if (lone >= 0) return reason("seed.not_utf8", { character: lone + 1 });
  return null;
}

export function seedProblem(seed) {
  const problem = seedReason(seed);
  return problem === null ? null : reasonText(problem);
}

function rngCounterWords(k) {
  if (typeof k === "bigint") {
    if (k < 0n || k >= 1n << 64n) throw new RangeError("spawn number out of range");
    return [Number(k >> 32n) | 0, Number(k & 0xffffffffn) | 0];
  }
  if (!Number.isSafeInteger(k) || k < 0) throw new RangeError("spawn number out of range");
  return [Math.floor(k / RNG_TWO32) | 0, k % RNG_TWO32 | 0];
}

export class SpawnRng {
  constructor(seed) {
    const problem = seedProblem(seed);
    if (problem !== null) throw new RangeError(problem);
    this.seed = seed;
    const { inner, outer } = hmacSha256States(utf8Encode(seed));
    this.inner = inner;
    this.outer = outer;
    this.state = new Int32Array(8);
    this.w = new Int32Array(64);
  }

  // The 8 words of d for spawn k, left in this.state.
  words(k) {
    let high;
    let low;
    if (typeof k === "number" && k >>> 0 === k) {
      high = 0; // the fast path: every spawn number of a real game
      low = k | 0;
    } else {
      [high, low] = rngCounterWords(k);
    }
    const state = this.state;
    const w = this.w;
    state.set(this.inner);
    w[0] = high;
    w[1] = low;
    w[2] = 0x80000000; // padding: 0x80 then zeros
    for (let i = 3; i < 15; i++) w[i] = 0;
    w[15] = (64 + 8) * 8; // bit length: key block + 8-byte counter
    sha256Compress(state, w);
    for (let i = 0; i < 8; i++) w[i] = state[i];
    w[8] = 0x80000000;
    for (let i = 9; i < 15; i++) w[i] = 0;
    w[15] = (64 + 32) * 8; // key block + 32-byte inner digest
    state.set(this.outer);
    sha256Compress(state, w);
    return state;
  }

  digest(k) {
    const state = this.words(k);
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) {
      out[i * 4] = state[i] >>> 24;
      out[i * 4 + 1] = state[i] >>> 16;
      out[i * 4 + 2] = state[i] >>> 8;
      out[i * 4 + 3] = state[i];
    }
    return out;
  }

  spawnCode(k, empties, count) {
    const d = this.words(k);
    const aHigh = d[0] >>> 0;
    const aLow = d[1] >>> 0;
    const bHigh = d[2] >>> 0;
    const bLow = d[3] >>> 0;
    const cell = empties[((aHigh % count) * (RNG_TWO32 % count) + (aLow % count)) % count];
    const four = ((bHigh % 10) * 6 + (bLow % 10)) % 10 === 0; // 2^32 mod 10 = 6
    return four ? cell | 16 : cell;
  }

  spawn(k, board) {
    const empties = [];
    for (let i = 0; i < 16; i++) if (board[i] === 0) empties.push(i);
    if (empties.length === 0) throw new RangeError("no empty cell to spawn into");
    const code = this.spawnCode(k, empties, empties.length);
    return { cell: code & 15, value: code & 16 ? 4 : 2 };
  }
}

export function openingBoard(rng) {
  const board = new Uint8Array(16);
  const first = rng.spawn(0, board);
  board[first.cell] = first.value === 4 ? 2 : 1;
  const second = rng.spawn(1, board);
  board[second.cell] = second.value === 4 ? 2 : 1;
  return { board, first, second };
}

export async function spawnDigestWebCrypto(seed, k) {
  const subtle = globalThis.crypto && globalThis.crypto.subtle;
  if (!subtle) return null;
  const problem = seedProblem(seed);
  if (problem !== null) throw new RangeError(problem);
  const key = await subtle.importKey(
    "raw",
    utf8Encode(seed),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const [high, low] = rngCounterWords(k);
  const message = new Uint8Array(8);
  new DataView(message.buffer).setUint32(0, high >>> 0);
  new DataView(message.buffer).setUint32(4, low >>> 0);
  return new Uint8Array(await subtle.sign("HMAC", key, message));
}
