/**
 * The digest in entity tags: xxHash32 (XXH32) of the UTF-8 bytes a response sends, under two
 * seeds (64 bits), in plain JavaScript, so every platform gives the same tag for the same bytes.
 * It is not a cryptographic hash: a tag only has to change when the bytes change, which 64
 * well-mixed bits do for anything short of a crafted collision, and a crafted one gains little
 * (`If-Match` is checked against the database's version, not the digest; at worst a client keeps
 * its own copy). Chosen over node:crypto's SHA-1 by measurement (bench/results.md, "The ETag's
 * digest"): in a loaded server the native call costs the same whatever it hashes, and more than
 * hashing the body in JavaScript.
 */

const encoder = new TextEncoder();

/**
 * Where bodies are encoded to be hashed: grown to the largest body seen (3 bytes a character at
 * most), up to 1 MiB; a longer body gets bytes of its own.
 */
let scratch = new Uint8Array(64 * 1024);
let scratchView = new DataView(scratch.buffer);
const MAX_SCRATCH = 1 << 20;

const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

/** The two seeds of a body's digest. */
const SEED_A = 0;
const SEED_B = 0x2545f491;

const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

/** One accumulator taking one 4-byte word of a 16-byte stripe. */
const round = (acc: number, word: number) => Math.imul(rotl((acc + Math.imul(word, P2)) | 0, 13), P1);

/** XXH32's end: the accumulators merged (or the seed, under 16 bytes), the bytes after the last stripe, the avalanche. */
function finish(accumulators: readonly number[], seed: number, view: DataView, from: number, length: number): number {
  const [v1, v2, v3, v4] = accumulators as [number, number, number, number];
  let h = length >= 16 ? rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18) : seed + P5;
  h = (h + length) | 0;
  let at = from;
  for (; at + 4 <= length; at += 4) h = Math.imul(rotl((h + Math.imul(view.getInt32(at, true), P3)) | 0, 17), P4);
  for (; at < length; at++) h = Math.imul(rotl((h + Math.imul(view.getUint8(at), P5)) | 0, 11), P1);
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return h ^ (h >>> 16);
}

/**
 * XXH32 of the first `length` bytes of `view` under two seeds, in one pass over the bytes (the
 * eight accumulators are independent, so the processor overlaps them): two 32-bit hashes, as
 * the reference implementation's `XXH32(bytes, length, seed)` for each seed, read as signed.
 *
 * @example
 * xxh32Pair(new DataView(new TextEncoder().encode('hello').buffer), 5, 0, 1) // [XXH32 seed 0, XXH32 seed 1]
 */
export function xxh32Pair(view: DataView, length: number, seedA: number, seedB: number): [number, number] {
  let a1 = (seedA + P1 + P2) | 0;
  let a2 = (seedA + P2) | 0;
  let a3 = seedA | 0;
  let a4 = (seedA - P1) | 0;
  let b1 = (seedB + P1 + P2) | 0;
  let b2 = (seedB + P2) | 0;
  let b3 = seedB | 0;
  let b4 = (seedB - P1) | 0;
  const stripes = length & ~15;
  for (let i = 0; i < stripes; i += 16) {
    const w1 = view.getInt32(i, true);
    const w2 = view.getInt32(i + 4, true);
    const w3 = view.getInt32(i + 8, true);
    const w4 = view.getInt32(i + 12, true);
    a1 = round(a1, w1);
    b1 = round(b1, w1);
    a2 = round(a2, w2);
    b2 = round(b2, w2);
    a3 = round(a3, w3);
    b3 = round(b3, w3);
    a4 = round(a4, w4);
    b4 = round(b4, w4);
  }
  return [
    finish([a1, a2, a3, a4], seedA, view, stripes, length),
    finish([b1, b2, b3, b4], seedB, view, stripes, length),
  ];
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const digit = (bits: number) => ALPHABET.charCodeAt(bits & 63);

/** A word as six base64url characters (its 32 bits, then four zero bits). */
function word64(h: number): string {
  return String.fromCharCode(
    digit(h >>> 26),
    digit(h >>> 20),
    digit(h >>> 14),
    digit(h >>> 8),
    digit(h >>> 2),
    digit(h << 4),
  );
}

/**
 * The digest of a body: XXH32 of its UTF-8 bytes under two seeds, as 12 base64url characters.
 *
 * @example
 * bodyDigest('{"data":null}') // 'gzFP2w4rIphw'
 */
export function bodyDigest(text: string): string {
  const [a, b] = xxh32Pair(...utf8(text), SEED_A, SEED_B);
  return word64(a) + word64(b);
}

/** The UTF-8 bytes of `text`, as a view and their length. */
function utf8(text: string): [DataView, number] {
  const room = text.length * 3;
  if (room > scratch.length && room <= MAX_SCRATCH) {
    scratch = new Uint8Array(room);
    scratchView = new DataView(scratch.buffer);
  }
  if (room <= scratch.length) return [scratchView, encoder.encodeInto(text, scratch).written];
  const bytes = encoder.encode(text);
  return [new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength];
}
