import { errorMessage, isJsonLeaf } from '@bridle/protocol/internal';
import { formatPath, type PathSegment } from './json-path';
import type { ResolvedLimits } from './limits';

/** A container (array or object) waiting to be walked; `parent` links give its path on error. */
interface Frame {
  value: object;
  key: PathSegment | undefined;
  parent: Frame | undefined;
  depth: number;
}

function pathOf(parent: Frame | undefined, key: PathSegment | undefined): string {
  const segments: PathSegment[] = key === undefined ? [] : [key];
  for (let frame = parent; frame?.key !== undefined; frame = frame.parent) segments.push(frame.key);
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
  const flat = flatNodes(value, limits.maxNodes);
  if (flat !== undefined) return { errors: [], nodes: flat };
  const errors: string[] = [];
  const stack: Frame[] = [];
  let nodes = 0;

  /** Checks one value; a container is queued. Returns false when the walk must stop. */
  const visit = (child: unknown, key: PathSegment | undefined, parent: Frame | undefined, queue: Frame[]): boolean => {
    nodes += 1;
    if (nodes > limits.maxNodes) {
      errors.push(
        `$: the value holds more than ${limits.maxNodes} values (array items and properties); send less data`,
      );
      return false;
    }
    if (typeof child !== 'object' || child === null) {
      const problem = primitiveProblem(child);
      if (problem !== undefined) errors.push(`${pathOf(parent, key)}: ${problem}`);
    } else if (unreadable.has(child)) {
      errors.push(
        `${pathOf(parent, key)}: reading this property threw (${errorMessage(unreadable.get(child))}); send plain data`,
      );
    } else {
      const frame: Frame = { value: child, key, parent, depth: parent === undefined ? 0 : parent.depth + 1 };
      if (frame.depth < limits.maxDepth) {
        queue.push(frame);
        return true;
      }
      // A cycle always ends up here (it nests without end), so cycles cost nothing on the common path.
      const cycle = firstRepeat(frame);
      errors.push(
        cycle === undefined
          ? `${pathOf(parent, key)}: nested more than ${limits.maxDepth} levels deep; send a flatter value`
          : `${pathOf(cycle.parent, cycle.key)}: circular reference to an enclosing value; JSON cannot contain cycles`,
      );
      return false;
    }
    return true;
  };

  if (!visit(value, undefined, undefined, stack)) return { errors, nodes };
  const queue: Frame[] = [];
  while (stack.length > 0 && errors.length < limits.maxErrors) {
    const frame = stack.pop()!;
    queue.length = 0;
    let proceed = true;
    try {
      proceed = visitChildren(frame, queue, visit, errors);
    } catch (error) {
      errors.push(`${pathOf(frame.parent, frame.key)}: could not be read (${errorMessage(error)})`);
    }
    if (!proceed) break;
    // Reversed, so containers are walked (and report) in document order.
    for (let index = queue.length - 1; index >= 0; index--) stack.push(queue[index]!);
  }
  return { errors, nodes };
}

/**
 * The common case without frames, paths or closures: a plain object or an array holding only JSON
 * primitives (most tool call arguments), within `maxNodes`. Its node count, or `undefined` for "walk it".
 */
function flatNodes(value: unknown, maxNodes: number): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  let nodes = 1;
  try {
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) if (!isJsonLeaf(value[index])) return undefined;
      nodes += value.length;
    } else {
      if (!isPlainObject(value)) return undefined;
      for (const key in value) {
        if (!Object.hasOwn(value, key) || !isJsonLeaf((value as Record<string, unknown>)[key])) return undefined;
        nodes += 1;
      }
    }
  } catch {
    return undefined; // a getter threw: the walk reports it with its path
  }
  return nodes <= maxNodes ? nodes : undefined;
}

/** The shallowest frame of the chain ending at `deepest` whose value also encloses it, if any. */
function firstRepeat(deepest: Frame): Frame | undefined {
  const chain: Frame[] = [];
  for (let frame: Frame | undefined = deepest; frame !== undefined; frame = frame.parent) chain.push(frame);
  const seen = new Set<object>();
  for (let index = chain.length - 1; index >= 0; index--) {
    const frame = chain[index]!;
    if (seen.has(frame.value)) return frame;
    seen.add(frame.value);
  }
  return undefined;
}

type Visit = (child: unknown, key: PathSegment | undefined, parent: Frame | undefined, queue: Frame[]) => boolean;

function visitChildren(frame: Frame, queue: Frame[], visit: Visit, errors: string[]): boolean {
  const container = frame.value;
  if (Array.isArray(container)) {
    for (let index = 0; index < container.length; index++) {
      if (!visit(readChild(container, index), index, frame, queue)) return false;
    }
    return true;
  }
  if (!isPlainObject(container)) {
    errors.push(
      `${pathOf(frame.parent, frame.key)}: ${describeNonPlain(container)} is not plain JSON; use null, a boolean, a string, a finite number, an array or a plain object`,
    );
    return true;
  }
  for (const key of Object.keys(container)) {
    if (!visit(readChild(container, key), key, frame, queue)) return false;
  }
  return true;
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
