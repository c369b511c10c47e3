/** A JSON primitive: null, a string, a boolean or a finite number (what a flat object or array may hold). */
export function isJsonLeaf(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
