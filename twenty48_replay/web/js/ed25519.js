// ed25519.js: Ed25519 signature verification (RFC 8032 section 5.1.7, "pure" Ed25519), as
// strict as SPEC 11.6 requires.
//
// Before any equation: the public key A must be the canonical encoding of a curve point
// (RFC 8032 5.1.3 decoding: y < p, no x = 0 with the sign bit set) that is not of small
// order ([8]A is not the identity; the identity point itself is refused: with it one fixed
// signature verifies every message); R must be a canonical point; S must be below L.  Then
// the cofactorless equation [S]B = R + [k]A, without the optional multiplication by 8.
// WebCrypto's Ed25519 is used for the equation when the engine has it (Node 20, recent
// Chromium, secure contexts); otherwise a small BigInt implementation, so a page opened from
// file:// or in an insecure context still checks signatures.  The fallback computes
// R' = [S]B - [k]A and compares its encoding with R byte for byte (OpenSSL does the same).
//
// API:
//   async ed25519Verify(publicKey, signature, message, {webCrypto = true} = {}) -> boolean
//       publicKey Uint8Array(32), signature Uint8Array(64), message Uint8Array
//   ed25519VerifyJs(publicKey, signature, message) -> boolean   (the fallback, synchronous)
//   ed25519KeyProblem(publicKey) -> null, or why it is no usable public key (the reference's words)
//   ed25519SignatureProblem(signature) -> null, or why R or S is refused (a reason, reasons.js;
//                                         signature a Uint8Array(64))

import { reason } from "./reasons.js";
import { sha512 } from "./sha512.js";

const ED_P = (1n << 255n) - 19n;
const ED_L = (1n << 252n) + 27742317777372353535851937790883648493n;
const ED_D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const ED_SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
const ED_BASE_Y = 46316835694926478169428394003475163141307993866256225615783033603165251855960n;

function edMod(a) {
  const r = a % ED_P;
  return r < 0n ? r + ED_P : r;
}

function edPow(base, exponent) {
  let result = 1n;
  let b = edMod(base);
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % ED_P;
    b = (b * b) % ED_P;
    e >>= 1n;
  }
  return result;
}

function edInverse(a) {
  return edPow(a, ED_P - 2n);
}

function edLittleEndian(bytes) {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

function edRecoverX(y, sign) {
  // x^2 = (y^2 - 1) / (d y^2 + 1); null when no x exists (not a point).
  const y2 = (y * y) % ED_P;
  const u = edMod(y2 - 1n);
  const v = edMod(ED_D * y2 + 1n);
  const x2 = (u * edInverse(v)) % ED_P;
  if (x2 === 0n) return sign ? null : 0n;
  let x = edPow(x2, (ED_P + 3n) / 8n);
  if (edMod(x * x - x2) !== 0n) x = (x * ED_SQRT_M1) % ED_P;
  if (edMod(x * x - x2) !== 0n) return null;
  if ((x & 1n) !== BigInt(sign)) x = ED_P - x;
  return x;
}

function edDecode(bytes) {
  const copy = Uint8Array.from(bytes);
  const sign = copy[31] >>> 7;
  copy[31] &= 0x7f;
  const y = edLittleEndian(copy);
  if (y >= ED_P) return null;
  const x = edRecoverX(y, sign);
  if (x === null) return null;
  return [x, y, 1n, (x * y) % ED_P];
}

function edEncode(point) {
  const [X, Y, Z] = point;
  const zInv = edInverse(Z);
  const x = (X * zInv) % ED_P;
  let y = (Y * zInv) % ED_P;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(y & 0xffn);
    y >>= 8n;
  }
  if (x & 1n) out[31] |= 0x80;
  return out;
}

function edAdd(p, q) {
  // Extended coordinates, a = -1 (RFC 8032 section 5.1.4).
  const [X1, Y1, Z1, T1] = p;
  const [X2, Y2, Z2, T2] = q;
  const A = edMod((Y1 - X1) * (Y2 - X2));
  const B = edMod((Y1 + X1) * (Y2 + X2));
  const C = edMod(2n * T1 * T2 * ED_D);
  const D = edMod(2n * Z1 * Z2);
  const E = B - A;
  const F = D - C;
  const G = D + C;
  const H = B + A;
  return [edMod(E * F), edMod(G * H), edMod(F * G), edMod(E * H)];
}

function edDouble(p) {
  const [X1, Y1, Z1] = p;
  const A = (X1 * X1) % ED_P;
  const B = (Y1 * Y1) % ED_P;
  const C = (2n * Z1 * Z1) % ED_P;
  const H = A + B;
  const E = edMod(H - (X1 + Y1) * (X1 + Y1));
  const G = A - B;
  const F = C + G;
  return [edMod(E * F), edMod(G * H), edMod(F * G), edMod(E * H)];
}

function edMultiply(scalar, point) {
  let result = [0n, 1n, 1n, 0n];
  let addend = point;
  let k = scalar;
  while (k > 0n) {
    if (k & 1n) result = edAdd(result, addend);
    addend = edDouble(addend);
    k >>= 1n;
  }
  return result;
}

function edNegate(point) {
  const [X, Y, Z, T] = point;
  return [edMod(-X), Y, Z, edMod(-T)];
}

const ED_BASE = [edRecoverX(ED_BASE_Y, 0), ED_BASE_Y, 1n, 0n];
ED_BASE[3] = (ED_BASE[0] * ED_BASE[1]) % ED_P;

export function ed25519KeyProblem(publicKey) {
  const A = publicKey.length === 32 ? edDecode(publicKey) : null;
  if (A === null) return "the public key is not a canonical curve point";
  // Small order: [8]A is the identity (x = 0, y = z).
  const [X, Y, Z] = edMultiply(8n, A);
  return edMod(X) === 0n && edMod(Y - Z) === 0n ? "the public key is a point of small order" : null;
}

export function ed25519SignatureProblem(signature) {
  // R not canonical: y >= p, or x = 0 (y = 1 or p - 1) with the sign bit; an R that is no point
  // fails the equation (it compares encodings).
  const r = edLittleEndian(signature.subarray(0, 32));
  const y = r % (1n << 255n);
  if (y >= ED_P || (r > y && (y * y) % ED_P === 1n)) return reason("signature.r_not_canonical");
  return edLittleEndian(signature.subarray(32, 64)) >= ED_L ? reason("signature.s_not_canonical") : null;
}

export function ed25519VerifyJs(publicKey, signature, message) {
  if (signature.length !== 64 || ed25519KeyProblem(publicKey) || ed25519SignatureProblem(signature)) return false;
  const A = edDecode(publicKey);
  const R = signature.subarray(0, 32);
  const S = edLittleEndian(signature.subarray(32, 64));
  const hashed = new Uint8Array(64 + message.length);
  hashed.set(R, 0);
  hashed.set(publicKey, 32);
  hashed.set(message, 64);
  const k = edLittleEndian(sha512(hashed)) % ED_L;
  const check = edAdd(edMultiply(S, ED_BASE), edNegate(edMultiply(k, A)));
  const encoded = edEncode(check);
  for (let i = 0; i < 32; i++) if (encoded[i] !== R[i]) return false;
  return true;
}

export async function ed25519Verify(publicKey, signature, message, { webCrypto = true } = {}) {
  if (signature.length !== 64 || ed25519KeyProblem(publicKey) || ed25519SignatureProblem(signature)) return false;
  const subtle = webCrypto && globalThis.crypto && globalThis.crypto.subtle;
  if (subtle) {
    let key = null;
    try {
      key = await subtle.importKey("raw", publicKey, { name: "Ed25519" }, false, ["verify"]);
    } catch (error) {
      // No Ed25519 in this engine, or a key it refuses: the fallback decides.
      key = null;
    }
    if (key !== null) {
      try {
        return await subtle.verify({ name: "Ed25519" }, key, signature, message);
      } catch (error) {
        // fall through to the pure-JS check
      }
    }
  }
  return ed25519VerifyJs(publicKey, signature, message);
}
