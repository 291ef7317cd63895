/**
 * The randomness of the demo data: a small seeded generator and a mixer of two integers into a
 * seed, so that every part of the demo data is a pure function of the seed and its position.
 */

/** mulberry32: a small, fast, well-distributed 32-bit generator (numbers in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A well-mixed 32-bit seed from two integers, so that neighbouring streams do not correlate. */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class Random {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  /** `count` distinct items. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length) {
      out.push(pool.splice(Math.floor(this.next() * pool.length), 1)[0]);
    }
    return out;
  }
  /** Roughly normal around 0 with standard deviation about `sd` (sum of uniforms). */
  normal(sd: number): number {
    let s = 0;
    for (let i = 0; i < 6; i++) s += this.next();
    return (s - 3) * sd * Math.SQRT2;
  }
}

/** A seeded permutation of 0..n-1 (n < 2^30): a four-round Feistel network, cycle-walked. */
export function permute(x: number, n: number, key: number): number {
  let bits = 2;
  while (1 << bits < n) bits += 2;
  const half = bits >> 1;
  const mask = (1 << half) - 1;
  do {
    let left = x >>> half;
    let right = x & mask;
    for (let round = 0; round < 4; round++) {
      const next = left ^ (mix(key + round, right) & mask);
      left = right;
      right = next;
    }
    x = (left << half) | right;
  } while (x >= n);
  return x;
}
