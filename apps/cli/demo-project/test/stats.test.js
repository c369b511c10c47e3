import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mean, median } from '../src/stats.js';

test('mean of four numbers', () => {
  assert.equal(mean([1, 2, 3, 4]), 2.5);
});

test('mean of one number', () => {
  assert.equal(mean([7]), 7);
});

test('median of an odd and an even count', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});

test('empty input is refused', () => {
  assert.throws(() => mean([]), RangeError);
  assert.throws(() => median([]), RangeError);
});
