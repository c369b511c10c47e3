import { indexNamed, isNode, type Node, resolve } from './evaluation-paths';

const IN_PLACE_ARRAYS = ['allOf', 'anyOf', 'oneOf'];
const IN_PLACE_VALUES = ['not', 'if', 'then', 'else'];
const EACH_ITEM = ['items', 'additionalItems', 'contains', 'unevaluatedItems'];
const EACH_PROPERTY = ['additionalProperties', 'unevaluatedProperties'];

/**
 * Counts, up to a budget, the (subschema, value) checks validating `value` may cost, following every
 * branch of `anyOf` / `oneOf` / `if` and every `$ref` as Ajv may (an upper bound: Ajv stops at the
 * first passing `anyOf` branch). A schema whose branches lead twice to the same subschema for the same
 * value, through a `$ref` back to itself, costs 2^depth of the value's nesting: this count sees it
 * before Ajv runs. Iterative, so no schema or value can overflow the stack.
 */
export class EvaluationSteps {
  readonly #root: Node;
  readonly #named: Map<string, Node>;

  constructor(root: Node) {
    this.#root = root;
    this.#named = indexNamed(root);
  }

  /** True when checking `value` costs at most `budget` steps. */
  within(value: unknown, budget: number): boolean {
    const pending: [Node, unknown][] = [];
    let steps = 0;
    /** Queues one check; false once the budget is spent. */
    const add = (schema: unknown, data: unknown): boolean => {
      if (schema === undefined) return true;
      if (isNode(schema)) pending.push([schema, data]);
      return ++steps <= budget;
    };
    if (!add(this.#root, value)) return false;
    while (pending.length > 0) {
      const [schema, data] = pending.pop() as [Node, unknown];
      for (const keyword of IN_PLACE_ARRAYS) {
        const list = schema[keyword];
        if (Array.isArray(list)) for (const branch of list) if (!add(branch, data)) return false;
      }
      for (const keyword of IN_PLACE_VALUES) if (!add(schema[keyword], data)) return false;
      const dependent = schema.dependentSchemas;
      if (isNode(dependent)) for (const sub of Object.values(dependent)) if (!add(sub, data)) return false;
      for (const keyword of ['$ref', '$dynamicRef']) {
        const reference = schema[keyword];
        if (typeof reference === 'string' && !add(resolve(reference, this.#root, this.#named), data)) return false;
      }
      if (Array.isArray(data)) {
        for (const keyword of ['prefixItems', ...EACH_ITEM]) {
          const sub = schema[keyword];
          if (Array.isArray(sub)) {
            // prefixItems (and `items` as an array in old drafts): one subschema per position.
            for (let index = 0; index < Math.min(sub.length, data.length); index++)
              if (!add(sub[index], data[index])) return false;
          } else if (isNode(sub) && keyword !== 'prefixItems') {
            for (const item of data) if (!add(sub, item)) return false;
          }
        }
      } else if (isNode(data)) {
        const keys = Object.keys(data);
        const properties = schema.properties;
        if (isNode(properties)) {
          for (const key of keys) if (Object.hasOwn(properties, key) && !add(properties[key], data[key])) return false;
        }
        // Every pattern and every "additional" subschema may apply to every key: an upper bound.
        const patterns = isNode(schema.patternProperties) ? Object.values(schema.patternProperties) : [];
        for (const sub of [...patterns, ...EACH_PROPERTY.map((keyword) => schema[keyword])]) {
          if (isNode(sub)) for (const key of keys) if (!add(sub, data[key])) return false;
        }
        if (isNode(schema.propertyNames)) for (const key of keys) if (!add(schema.propertyNames, key)) return false;
      }
    }
    return true;
  }
}
