import { formatPath, type PathSegment } from './json-path';
import type { ResolvedLimits } from './limits';

interface Node {
  value: unknown;
  key: PathSegment | undefined;
  parent: Node | undefined;
  depth: number;
}

type Step = { enter: Node } | { leave: object };

function pathOf(node: Node): string {
  const segments: PathSegment[] = [];
  for (let current: Node | undefined = node; current?.key !== undefined; current = current.parent) {
    segments.push(current.key);
  }
  return formatPath(segments.reverse());
}

function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value);
  if (prototype === null || prototype === Object.prototype) return true;
  // An object from another realm (vm, iframe) has that realm's Object.prototype.
  return Object.getPrototypeOf(prototype) === null && Object.hasOwn(prototype, 'hasOwnProperty');
}

function describeNonPlain(value: object): string {
  try {
    // Only the prototype's OWN constructor names a class; an inherited one would say "Object".
    const prototype = Object.getPrototypeOf(value);
    const name = Object.hasOwn(prototype, 'constructor') ? prototype.constructor?.name : undefined;
    if (typeof name !== 'string' || name === '') return 'an object with a custom prototype';
    return `${/^[AEIOU]/.test(name) ? 'an' : 'a'} ${name}`;
  } catch {
    return 'an object with a custom prototype';
  }
}

/** Why a primitive is not JSON, or undefined when it is. */
function primitiveProblem(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${String(value)} is not valid JSON; use a finite number or null`;
    case 'undefined':
      return 'undefined is not valid JSON; omit the property or use null';
    case 'bigint':
      return `a BigInt (${String(value)}n) is not valid JSON; use a number or a string`;
    case 'function':
      return 'a function is not valid JSON';
    case 'symbol':
      return 'a symbol is not valid JSON';
    default:
      return undefined;
  }
}

/** What {@link checkJsonValue} found: error lines, and how many values it walked. */
export interface JsonValueCheck {
  errors: string[];
  nodes: number;
}

/**
 * Checks that `value` is plain JSON data within the limits: only null, booleans, strings, finite
 * numbers, arrays and plain objects; no cycles; at most `maxDepth` deep and `maxNodes` values.
 * Iterative (no recursion), so any depth is safe. Returns `$.path: message` lines; never throws.
 */
export function checkJsonValue(value: unknown, limits: ResolvedLimits): JsonValueCheck {
  const errors: string[] = [];
  const onPath = new Set<object>();
  const stack: Step[] = [{ enter: { value, key: undefined, parent: undefined, depth: 0 } }];
  let nodes = 0;
  while (stack.length > 0 && errors.length < limits.maxErrors) {
    const step = stack.pop()!;
    if ('leave' in step) {
      onPath.delete(step.leave);
      continue;
    }
    const node = step.enter;
    nodes += 1;
    if (nodes > limits.maxNodes) {
      errors.push(
        `$: the value holds more than ${limits.maxNodes} values (array items and properties); send less data`,
      );
      break;
    }
    const current = node.value;
    if (typeof current === 'object' && current !== null && unreadable.has(current)) {
      errors.push(
        `${pathOf(node)}: reading this property threw (${errorMessage(unreadable.get(current))}); send plain data`,
      );
      continue;
    }
    if (typeof current !== 'object' || current === null) {
      const problem = primitiveProblem(current);
      if (problem !== undefined) errors.push(`${pathOf(node)}: ${problem}`);
      continue;
    }
    if (onPath.has(current)) {
      errors.push(`${pathOf(node)}: circular reference to an enclosing value; JSON cannot contain cycles`);
      continue;
    }
    if (node.depth >= limits.maxDepth) {
      errors.push(`${pathOf(node)}: nested more than ${limits.maxDepth} levels deep; send a flatter value`);
      break;
    }
    try {
      pushChildren(node, current, stack, errors);
      onPath.add(current);
    } catch (error) {
      errors.push(`${pathOf(node)}: could not be read (${errorMessage(error)})`);
    }
  }
  return { errors, nodes };
}

function pushChildren(node: Node, current: object, stack: Step[], errors: string[]): void {
  const depth = node.depth + 1;
  if (Array.isArray(current)) {
    stack.push({ leave: current });
    // Pushed in reverse so that errors come out in document order.
    for (let index = current.length - 1; index >= 0; index--) {
      stack.push({ enter: { value: readChild(current, index), key: index, parent: node, depth } });
    }
    return;
  }
  if (!isPlainObject(current)) {
    errors.push(
      `${pathOf(node)}: ${describeNonPlain(current)} is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object`,
    );
    return;
  }
  stack.push({ leave: current });
  const keys = Object.keys(current);
  for (let index = keys.length - 1; index >= 0; index--) {
    const key = keys[index]!;
    stack.push({ enter: { value: readChild(current, key), key, parent: node, depth } });
  }
}

/** Stand-ins for properties whose getter threw, with the error. A WeakMap, since `instanceof` would run proxy traps. */
const unreadable = new WeakMap<object, unknown>();

function readChild(container: object, key: string | number): unknown {
  try {
    return (container as Record<string | number, unknown>)[key];
  } catch (error) {
    const marker = {};
    unreadable.set(marker, error);
    return marker;
  }
}

function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}
