/** US dollars for a summary line: cents from a dollar up, else three significant digits ($0.00123). */
export function formatUsd(amount: number): string {
  if (amount >= 1) return `$${amount.toFixed(2)}`;
  if (amount < 0.00001) return amount === 0 ? '$0' : '<$0.00001';
  return `$${Number(amount.toPrecision(3))}`;
}
