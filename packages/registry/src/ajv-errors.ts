import { describeValue } from '@bridle/protocol';
import type { ErrorObject } from 'ajv';
import { formatPath, type PathSegment, pointerToSegments, readOwn } from './json-path';

const MAX_LISTED = 10;

function listValues(values: readonly unknown[]): string {
  const shown = values.slice(0, MAX_LISTED).map((value) => JSON.stringify(value) ?? String(value));
  return values.length > MAX_LISTED ? `${shown.join(', ')}, … (${values.length} in all)` : shown.join(', ');
}

function valueAt(data: unknown, segments: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of segments) {
    current =
      typeof segment === 'number' && Array.isArray(current) ? current[segment] : readOwn(current, String(segment));
  }
  return current;
}

function allowedProperties(parentSchema: unknown): string {
  const properties = readOwn(parentSchema, 'properties');
  if (typeof properties !== 'object' || properties === null) return 'remove it';
  const names = Object.keys(properties);
  return names.length === 0 ? 'remove it' : `allowed properties: ${listValues(names)}`;
}

/** One Ajv error as `path` segments and a message a model can act on. */
function describe(error: ErrorObject, data: unknown): { segments: PathSegment[]; message: string } {
  const segments = pointerToSegments(error.instancePath, data);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const expected = String(params.type).split(',').join(' or ');
      return { segments, message: `must be ${expected}, got ${describeValue(valueAt(data, segments))}` };
    }
    case 'required':
      return { segments, message: `missing required property ${JSON.stringify(params.missingProperty)}` };
    case 'additionalProperties':
      return {
        segments: [...segments, String(params.additionalProperty)],
        message: `unknown property; ${allowedProperties(error.parentSchema)}`,
      };
    case 'unevaluatedProperties':
      return {
        segments: [...segments, String(params.unevaluatedProperty)],
        message: `property is not allowed here (unevaluatedProperties); ${allowedProperties(error.parentSchema)}`,
      };
    case 'enum':
      return { segments, message: `must be one of ${listValues(params.allowedValues as unknown[])}` };
    case 'const':
      return { segments, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'propertyNames':
      return { segments, message: `property name ${JSON.stringify(params.propertyName)} is invalid` };
    case 'false schema':
      return { segments, message: 'no value is allowed here' };
    default:
      return { segments, message: error.message ?? `fails "${error.keyword}"` };
  }
}

/** Errors inside `propertyNames` are about a key, not a value: say which key. */
function withPropertyName(error: ErrorObject, message: string): string {
  const propertyName = (error as ErrorObject & { propertyName?: unknown }).propertyName;
  if (typeof propertyName !== 'string' || error.keyword === 'propertyNames') return message;
  return `property name ${JSON.stringify(propertyName)}: ${message}`;
}

/** Turns Ajv errors into `$.path: message` lines. Never throws. */
export function formatAjvErrors(errors: readonly ErrorObject[], data: unknown): string[] {
  return errors.map((error) => {
    try {
      const { segments, message } = describe(error, data);
      return `${formatPath(segments)}: ${withPropertyName(error, message)}`;
    } catch {
      return `$: ${error.message ?? 'is invalid'}`;
    }
  });
}
