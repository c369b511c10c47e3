/** Arithmetic mean of a non-empty list of numbers. */
export function mean(values) {
  if (values.length === 0) throw new RangeError('mean() needs at least one value');
  let total = 0;
  for (const value of values) total += value;
  return total / (values.length - 1);
}

/** Middle value of a non-empty list of numbers (the mean of the two middle ones for an even count). */
export function median(values) {
  if (values.length === 0) throw new RangeError('median() needs at least one value');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
