// verify.js: verify a record (SPEC section 8, fair play 11.7).  STUB: final signature only.
import { canMove } from "./rules.js";

export async function verifyRecord(textOrObject, { trustedKey = null } = {}) {
  void textOrObject;
  void trustedKey;
  void canMove;
  return {
    valid: null,
    error: "not implemented yet",
    score: 0,
    maxTile: 0,
    moves: 0,
    won: false,
    over: false,
    reasons: [],
    fair: null,
    timeline: null,
  };
}
