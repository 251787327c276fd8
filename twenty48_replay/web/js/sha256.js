// sha256.js: SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain, synchronous JavaScript.
//
// Why not only WebCrypto: crypto.subtle is missing in insecure contexts (a page
// served over plain HTTP from another host) and every call is asynchronous.  A
// 20,000-move record needs 20,002 HMACs; with the key's inner and outer states
// hashed once per seed, each spawn costs exactly two compressions here, which
// measures far faster than 20,002 awaited crypto.subtle.sign calls (numbers in
// rng.js).  WebCrypto is still used where one call does the whole job (fair.js).
//
// API:
//   sha256(bytes)                  -> Uint8Array(32)
//   hmacSha256(key, message)       -> Uint8Array(32)         (keys over 64 bytes are hashed first)
//   hmacSha256States(key)          -> {inner, outer}: Int32Array(8) states after the padded key
//   sha256Compress(state, w)       -> void; one block: state (Int32Array(8)) updated in place,
//                                     w an Int32Array(64) whose first 16 words are the block
//   toHex(bytes) / fromHex(text)   -> lowercase hex <-> Uint8Array (fromHex: null if not hex)

const SHA256_K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const SHA256_IV = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

export function sha256Compress(state, w) {
  for (let i = 16; i < 64; i++) {
    const x = w[i - 15];
    const y = w[i - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = state[0];
  let b = state[1];
  let c = state[2];
  let d = state[3];
  let e = state[4];
  let f = state[5];
  let g = state[6];
  let h = state[7];
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + SHA256_K[i] + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
  state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0;
  state[7] = (state[7] + h) | 0;
}

function sha256Blocks(state, bytes, prefixLength) {
  // Hash `bytes` as the continuation of `prefixLength` bytes already absorbed in state
  // (a multiple of 64), with the final padding; returns the digest.
  const total = prefixLength + bytes.length;
  const padded = new Uint8Array(((bytes.length + 9 + 63) >> 6) << 6);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const bits = total * 8;
  const n = padded.length;
  const high = Math.floor(bits / 0x100000000);
  padded[n - 8] = high >>> 24;
  padded[n - 7] = high >>> 16;
  padded[n - 6] = high >>> 8;
  padded[n - 5] = high;
  padded[n - 4] = bits >>> 24;
  padded[n - 3] = bits >>> 16;
  padded[n - 2] = bits >>> 8;
  padded[n - 1] = bits;
  const w = new Int32Array(64);
  for (let off = 0; off < n; off += 64) {
    for (let i = 0; i < 16; i++) {
      const j = off + i * 4;
      w[i] = (padded[j] << 24) | (padded[j + 1] << 16) | (padded[j + 2] << 8) | padded[j + 3];
    }
    sha256Compress(state, w);
  }
  return sha256StateBytes(state);
}

function sha256StateBytes(state) {
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    out[i * 4] = state[i] >>> 24;
    out[i * 4 + 1] = state[i] >>> 16;
    out[i * 4 + 2] = state[i] >>> 8;
    out[i * 4 + 3] = state[i];
  }
  return out;
}

export function sha256(bytes) {
  return sha256Blocks(Int32Array.from(SHA256_IV), bytes, 0);
}

export function hmacSha256States(key) {
  let k = key.length > 64 ? sha256(key) : key;
  const block = new Uint8Array(64);
  block.set(k);
  k = block;
  const w = new Int32Array(64);
  const states = [];
  for (const pad of [0x36, 0x5c]) {
    for (let i = 0; i < 16; i++) {
      const j = i * 4;
      w[i] =
        ((k[j] ^ pad) << 24) | ((k[j + 1] ^ pad) << 16) | ((k[j + 2] ^ pad) << 8) | (k[j + 3] ^ pad);
    }
    const state = Int32Array.from(SHA256_IV);
    sha256Compress(state, w);
    states.push(state);
  }
  return { inner: states[0], outer: states[1] };
}

export function hmacSha256(key, message) {
  const { inner, outer } = hmacSha256States(key);
  const innerDigest = sha256Blocks(inner, message, 64);
  return sha256Blocks(outer, innerDigest, 64);
}

const SHA256_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

export function toHex(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += SHA256_HEX[bytes[i]];
  return text;
}

export function fromHex(text) {
  if (typeof text !== "string" || text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.substr(i * 2, 2), 16);
  return out;
}
