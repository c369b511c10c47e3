import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../src/iso-timestamp';

describe('isoTimestamp', () => {
  it('equals toISOString at the edges and along a walk through many minutes and years', () => {
    const edges = [
      0, 1, 9, 10, 99, 100, 59_999, 60_000, 86_399_999, 951_782_400_000, 1_700_000_000_123, 4_102_444_799_999,
    ];
    for (const ms of edges) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    // A deterministic walk: small steps (same minute, cached prefix) mixed with jumps (new prefix).
    let ms = 1_700_000_000_000;
    for (let round = 1; round <= 5000; round++) {
      ms += round % 97 === 0 ? 61_003 * round : (round * 7919) % 53;
      expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
      const far = (round * 2_654_435_761) % 4_102_444_800_000;
      expect(isoTimestamp(far)).toBe(new Date(far).toISOString());
    }
  });
});
