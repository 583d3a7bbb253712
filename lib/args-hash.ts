/**
 * The hash of a call's arguments that a resume journal keeps beside its call id: SHA-256 of the
 * arguments' canonical JSON (object keys sorted), as 64 hex digits. Plain TypeScript rather than
 * node:crypto, so that it runs the same in a browser; installed by `registerSteps()` (the Node
 * entry runs it), so a browser bundle that does not call it goes without it.
 *
 * @module
 */

/**
 * The hash of the arguments `args` (raw JSON text; "" means `{}`): the same for the same value
 * whatever the order of its keys or its spacing. Text that is not JSON is hashed as it is.
 */
export function argsHash(args: string): string {
  let canonical = args;
  try {
    canonical = JSON.stringify(JSON.parse(args === '' ? '{}' : args), sortKeys) ?? args;
  } catch {
    // Not JSON (or too deep for JSON.stringify): the text itself identifies the call.
  }
  return sha256Hex(new TextEncoder().encode(canonical));
}

/** A JSON.stringify replacer that writes each object's keys in sorted order. */
function sortKeys(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  // fromEntries defines each key as its own property, "__proto__" included.
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, (value as Record<string, unknown>)[key]]),
  );
}

/** SHA-256's round constants (FIPS 180-4, 4.2.2). */
const K = Uint32Array.from(
  '428a2f98 71374491 b5c0fbcf e9b5dba5 3956c25b 59f111f1 923f82a4 ab1c5ed5 d807aa98 12835b01 243185be 550c7dc3 72be5d74 80deb1fe 9bdc06a7 c19bf174 e49b69c1 efbe4786 0fc19dc6 240ca1cc 2de92c6f 4a7484aa 5cb0a9dc 76f988da 983e5152 a831c66d b00327c8 bf597fc7 c6e00bf3 d5a79147 06ca6351 14292967 27b70a85 2e1b2138 4d2c6dfc 53380d13 650a7354 766a0abb 81c2c92e 92722c85 a2bfe8a1 a81a664b c24b8b70 c76c51a3 d192e819 d6990624 f40e3585 106aa070 19a4c116 1e376c08 2748774c 34b0bcb5 391c0cb3 4ed8aa4a 5b9cca4f 682e6ff3 748f82ee 78a5636f 84c87814 8cc70208 90befffa a4506ceb bef9a3f7 c67178f2'
    .split(' ')
    .map((word) => parseInt(word, 16)),
);

/** SHA-256 (FIPS 180-4) of `bytes`, as 64 lower-case hex digits. */
export function sha256Hex(bytes: Uint8Array): string {
  // The message, a 1 bit, zeros, and its length in bits (big-endian), to a multiple of 64 bytes.
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bytes.length / 0x20000000));
  view.setUint32(padded.length - 4, bytes.length * 8);
  const h = Uint32Array.of(
    0x6a09e667,
    0xbb67ae85,
    0x3c6ef372,
    0xa54ff53a,
    0x510e527f,
    0x9b05688c,
    0x1f83d9ab,
    0x5be0cd19,
  );
  const w = new Uint32Array(64);
  for (let block = 0; block < padded.length; block += 64) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(block + t * 4);
    for (let t = 16; t < 64; t++) {
      const s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >>> 3);
      const s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >>> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    compress(h, w);
  }
  return Array.from(h, (word) => word.toString(16).padStart(8, '0')).join('');
}

/** One block's 64 rounds over the state `h`, given its message schedule `w`. */
function compress(h: Uint32Array, w: Uint32Array): void {
  let [a, b, c, d, e, f, g, hh] = h;
  for (let t = 0; t < 64; t++) {
    const t1 =
      (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) | 0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  const next = [a, b, c, d, e, f, g, hh];
  for (let i = 0; i < 8; i++) h[i] = h[i] + next[i];
}

function rotr(x: number, n: number): number {
  return (x >>> n) | (x << (32 - n));
}
