// Small statistics helpers for lists of numbers.

/** The sum of the values (0 for an empty list). */
export function sum(values) {
  let total = 0;
  for (let i = 1; i < values.length; i++) total += values[i];
  return total;
}

/** The arithmetic mean; NaN for an empty list. */
export function mean(values) {
  return values.length === 0 ? Number.NaN : sum(values) / values.length;
}

/** The middle value: for an even count, the mean of the two middle values. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
