import xxhash from 'xxhash-wasm';
import { beforeAll, describe, expect, test } from 'vitest';
import { bodyDigest, xxh32Pair } from './digest.js';

/** The reference XXH32 (xxHash's C code compiled to WebAssembly), the oracle of these tests. */
let h32: (bytes: Uint8Array, seed: number) => number;
beforeAll(async () => {
  const reference = await xxhash();
  h32 = (bytes, seed) => reference.h32Raw(bytes, seed);
});

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** The two words a digest spells: six base64url characters each, 32 bits and four zero bits. */
function words(digest: string): number[] {
  return [0, 6].map((at) => {
    let value = 0;
    for (const char of digest.slice(at, at + 6)) value = value * 64 + ALPHABET.indexOf(char);
    expect(value % 16).toBe(0);
    return value / 16;
  });
}

/** Text of `length` code units drawn from ASCII, Latin-1, the BMP and astral pairs, seeded. */
function text(length: number, seed: number): string {
  const pieces = ['a', 'Z', '"', '\\', 'é', 'ß', '€', '中', '😀', '\u{10FFFF}'];
  let out = '';
  let state = seed;
  while (out.length < length) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out += pieces[state % pieces.length];
  }
  return out;
}

describe('xxh32Pair', () => {
  test('is XXH32 under each seed: the reference agrees on every length 0-100 and on long inputs', () => {
    for (const length of [...Array(101).keys(), 1000, 4099, 65537]) {
      const bytes = new Uint8Array(length).map((_, i) => (Math.imul(i + length, 2654435761) >>> 13) & 255);
      const seeds = [length % 3 === 0 ? 0 : 0x9747b28c, 0x2545f491] as const;
      const pair = xxh32Pair(new DataView(bytes.buffer), length, ...seeds).map((h) => h >>> 0);
      expect(pair, `${length} bytes`).toEqual(seeds.map((seed) => h32(bytes, seed)));
    }
  });
});

describe('bodyDigest', () => {
  test('is XXH32 of the UTF-8 bytes under its two seeds, in the scratch, in the scratch grown, and in bytes of its own', () => {
    for (const [length, seed] of [
      [0, 1],
      [1, 2],
      [782, 3],
      [30_000, 4],
      [400_000, 5],
      [783, 6],
    ] as const) {
      const body = text(length, seed);
      const digest = bodyDigest(body);
      expect(digest).toMatch(/^[A-Za-z0-9_-]{12}$/);
      const bytes = new TextEncoder().encode(body);
      expect(words(digest), `${length} characters`).toEqual([h32(bytes, 0), h32(bytes, 0x2545f491)]);
    }
  });

  test('changes with any one character changed, at any place', () => {
    const body = JSON.stringify({ data: { type: 'articles', id: '1', attributes: { title: text(300, 9) } } });
    const seen = new Set([bodyDigest(body)]);
    for (let i = 0; i < body.length; i++) {
      const changed = body.slice(0, i) + String.fromCharCode(body.charCodeAt(i) ^ 1) + body.slice(i + 1);
      seen.add(bodyDigest(changed));
    }
    expect(seen.size).toBe(body.length + 1);
  });

  test('hashes what is sent: the UTF-8 bytes, so the same text built any way has the same digest', () => {
    const flat = '{"title":"Caf\u00e9 \u{1F600}"}';
    const rope = ['{"title":', '"Caf', '\u00e9 ', '\u{1F600}"}'].reduce((a, b) => a + b, '');
    expect(bodyDigest(rope)).toBe(bodyDigest(flat));
    expect(bodyDigest('{"title":"Cafe"}')).not.toBe(bodyDigest('{"title":"Caf\u00e9"}'));
  });
});
