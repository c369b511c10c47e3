import { describe, expect, it } from 'vitest';
import { seededRandom } from '../src/index';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed and differs for another', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
  });

  it('stays in range', () => {
    const random = seededRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const n = random.int(-2, 3);
      expect(Number.isInteger(n) && n >= -2 && n <= 3).toBe(true);
      seen.add(n);
      const f = random.next();
      expect(f >= 0 && f < 1).toBe(true);
    }
    expect([...seen].sort()).toEqual([-1, -2, 0, 1, 2, 3]);
    expect(['x', 'y']).toContain(random.pick(['x', 'y']));
    expect(() => random.pick([])).toThrow('non-empty');
    expect(random.bool(0)).toBe(false);
    expect(random.bool(1)).toBe(true);
  });
});
