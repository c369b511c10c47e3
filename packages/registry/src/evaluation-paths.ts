/** Keywords whose value is a map of name -> subschema applied to the data (`$defs` is not: only `$ref` reaches it). */
const APPLIED_MAPS = ['properties', 'patternProperties', 'dependentSchemas'];
/** Keywords whose value is one subschema (or, `items` in old drafts, an array of them). */
const APPLIED_VALUES = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
];
/** Keywords whose value is an array of subschemas. */
const APPLIED_ARRAYS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'];
/** Keywords that hold subschemas without applying them: walked only to find `$id`s and anchors. */
const HOLDING_MAPS = ['$defs', 'definitions'];

/** A schema object (or any JSON object). */
export type Node = Record<string, unknown>;

/** True for a plain object (a schema, not a boolean schema or an array). */
export function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function children(node: Node, keywords: { maps: string[]; values: string[]; arrays: string[] }): unknown[] {
  const found: unknown[] = [];
  for (const keyword of keywords.maps) {
    const map = node[keyword];
    if (isNode(map)) found.push(...Object.values(map));
  }
  for (const keyword of keywords.values) {
    const value = node[keyword];
    found.push(...(Array.isArray(value) ? value : [value]));
  }
  for (const keyword of keywords.arrays) {
    const value = node[keyword];
    if (Array.isArray(value)) found.push(...value);
  }
  return found.filter(isNode);
}

const APPLIED = { maps: APPLIED_MAPS, values: APPLIED_VALUES, arrays: APPLIED_ARRAYS };
const ALL = { maps: [...APPLIED_MAPS, ...HOLDING_MAPS], values: APPLIED_VALUES, arrays: APPLIED_ARRAYS };

/** Targets a `$ref` may name inside this document: `$id`s and anchors, by their text. */
export function indexNamed(root: Node): Map<string, Node> {
  const named = new Map<string, Node>();
  const pending: Node[] = [root];
  const seen = new Set<Node>();
  while (pending.length > 0) {
    const node = pending.pop() as Node;
    if (seen.has(node)) continue;
    seen.add(node);
    for (const key of ['$id', '$anchor', '$dynamicAnchor']) {
      const name = node[key];
      if (typeof name === 'string') named.set(key === '$id' ? name.replace(/#$/, '') : `#${name}`, node);
    }
    pending.push(...(children(node, ALL) as Node[]));
  }
  return named;
}

function pointer(base: Node, fragment: string): Node | undefined {
  let current: unknown = base;
  for (const raw of fragment.split('/').slice(1)) {
    let key = raw;
    try {
      key = decodeURIComponent(raw);
    } catch {
      // A malformed escape: Ajv refuses the $ref itself.
    }
    key = key.replace(/~1/g, '/').replace(/~0/g, '~');
    current = Array.isArray(current) ? current[Number(key)] : isNode(current) ? current[key] : undefined;
  }
  return isNode(current) ? current : undefined;
}

/** Where a `$ref` points, when it points inside this document; undefined otherwise (Ajv decides). */
export function resolve(reference: string, root: Node, named: Map<string, Node>): Node | undefined {
  const hash = reference.indexOf('#');
  const base = hash === -1 ? reference : reference.slice(0, hash);
  const fragment = hash === -1 ? '' : reference.slice(hash + 1);
  const document = base === '' ? root : (named.get(base) ?? named.get(base.split('/').at(-1) as string));
  if (document === undefined) return undefined;
  if (fragment === '') return document;
  return fragment.startsWith('/') ? pointer(document, fragment) : named.get(`#${fragment}`);
}

/**
 * How many (subschema, path) evaluations one data value may cost: every applicator and every `$ref`
 * followed, counted along each path (a subschema reached by two paths counts twice), up to `cap + 1`.
 * `anyOf: [{ $ref: "#/$defs/b" }, { $ref: "#/$defs/b" }]` repeated 20 levels deep is 2^20 evaluations
 * of one value: 20 s on Ajv. A `$ref` back to a schema being evaluated (recursion) counts once: it
 * recurses into the data, whose size is bounded.
 */
export function evaluationPaths(schema: unknown, cap: number): number {
  if (!isNode(schema)) return 1;
  const named = indexNamed(schema);
  const memo = new Map<Node, number>();
  const onStack = new Set<Node>();
  const count = (node: Node): number => {
    const known = memo.get(node);
    if (known !== undefined) return known;
    if (onStack.has(node)) return 1;
    onStack.add(node);
    let total = 1;
    const next = children(node, APPLIED);
    for (const key of ['$ref', '$dynamicRef']) {
      const reference = node[key];
      const target = typeof reference === 'string' ? resolve(reference, schema, named) : undefined;
      if (target !== undefined) next.push(target);
    }
    for (const child of next) {
      total += count(child as Node);
      if (total > cap) break;
    }
    onStack.delete(node);
    const capped = Math.min(total, cap + 1);
    memo.set(node, capped);
    return capped;
  };
  return count(schema);
}
