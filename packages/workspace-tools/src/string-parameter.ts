import { ConfigError, describeValue } from '@bridle/protocol';
import { errorMessage, toRe2Syntax } from '@bridle/protocol/internal';
import { RE2JS } from 're2js';
import { invalidArguments } from './check-arguments';

/** Longest parameter value accepted when the schema sets no `maxLength`. */
export const DEFAULT_MAX_PARAMETER_LENGTH = 4096;

const SUPPORTED_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'enum',
  'const',
  'pattern',
  'minLength',
  'maxLength',
  'examples',
  'format',
]);

/**
 * The `format` of a preset parameter that names a path inside the workspace:
 * `{ type: 'string', format: 'workspace-path' }`. The value is checked with the rules of `read_file`
 * (relative, no `..`, no symlink in any component, not protected, not hard-linked) and handed to the
 * program relative to the preset's `cwd`. It may name a file that does not exist yet.
 */
export const WORKSPACE_PATH_FORMAT = 'workspace-path';

/** A compiled string parameter: checks one model-supplied value. */
export interface StringParameter {
  name: string;
  schema: Record<string, unknown>;
  /** The value is a path inside the workspace (`format: 'workspace-path'`), jailed before each run. */
  path: boolean;
  check(tool: string, value: unknown): string;
}

/**
 * A preset's `pattern`, checked as ECMAScript and run on re2js (linear time): its values come from the
 * model, and a pattern such as `^([a-z]+/?)+$` would backtrack for ever on RegExp. Throws `ConfigError`
 * for an invalid pattern, or one RE2 cannot run (lookaround, backreferences, repeat counts over 1000).
 */
function linearPattern(where: string, source: string): RE2JS {
  try {
    new RegExp(source, 'u');
  } catch (error) {
    throw new ConfigError(`${where}: "pattern" is not a valid regular expression: ${errorMessage(error)}`);
  }
  try {
    return RE2JS.compile(toRe2Syntax(source));
  } catch (error) {
    throw new ConfigError(
      `${where}: "pattern" ${JSON.stringify(source)} cannot run on the linear-time engine (${errorMessage(error).replace(/^error parsing regexp: /, '')}): parameter values come from the model, so write it without lookaround, backreferences or repeat counts over 1000.`,
    );
  }
}

/**
 * Compiles a preset parameter schema. Only string schemas are allowed, with the keywords `enum`,
 * `const`, `pattern` (unicode regex, run in linear time), `minLength`, `maxLength`, `format` (only
 * {@link WORKSPACE_PATH_FORMAT}) and annotations; anything else
 * throws `ConfigError` rather than being silently unchecked.
 */
export function compileStringParameter(preset: string, name: string, schema: unknown): StringParameter {
  const where = `Preset "${preset}", parameter "${name}"`;
  if (!/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/.test(name)) {
    throw new ConfigError(`${where}: the name must match ^[a-zA-Z][a-zA-Z0-9_]{0,63}$.`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new ConfigError(
      `${where}: the schema must be an object like { type: 'string' }, got ${describeValue(schema)}.`,
    );
  }
  const record = schema as Record<string, unknown>;
  if (record.type !== 'string') throw new ConfigError(`${where}: only { type: 'string' } schemas are supported.`);
  for (const key of Object.keys(record)) {
    if (!SUPPORTED_KEYWORDS.has(key)) {
      throw new ConfigError(
        `${where}: schema keyword "${key}" is not supported (use ${[...SUPPORTED_KEYWORDS].join(', ')}).`,
      );
    }
  }
  const enumValues = record.enum;
  if (enumValues !== undefined && (!Array.isArray(enumValues) || enumValues.some((item) => typeof item !== 'string'))) {
    throw new ConfigError(`${where}: "enum" must be an array of strings.`);
  }
  if (record.format !== undefined && record.format !== WORKSPACE_PATH_FORMAT) {
    throw new ConfigError(
      `${where}: "format" ${JSON.stringify(record.format)} is not supported; the only format is "${WORKSPACE_PATH_FORMAT}" (a path inside the workspace).`,
    );
  }
  if (record.const !== undefined && typeof record.const !== 'string')
    throw new ConfigError(`${where}: "const" must be a string.`);
  const minLength = lengthKeyword(where, record, 'minLength') ?? 0;
  const maxLength = lengthKeyword(where, record, 'maxLength') ?? DEFAULT_MAX_PARAMETER_LENGTH;
  const pattern = record.pattern === undefined ? undefined : linearPattern(where, String(record.pattern));
  return {
    name,
    schema: record,
    path: record.format === WORKSPACE_PATH_FORMAT,
    check(tool, value) {
      const label = `params.${name}`;
      if (typeof value !== 'string')
        throw invalidArguments(tool, `"${label}" must be a string, got ${describeValue(value)}`);
      if (value.includes('\u0000')) throw invalidArguments(tool, `"${label}" contains a NUL byte`);
      if (value.startsWith('-')) {
        throw invalidArguments(
          tool,
          `"${label}" starts with "-", which the program could read as an option; values cannot start with "-"`,
        );
      }
      if (value.length < minLength || value.length > maxLength) {
        throw invalidArguments(
          tool,
          `"${label}" must be ${minLength} to ${maxLength} characters long, got ${value.length}`,
        );
      }
      if (enumValues !== undefined && !(enumValues as string[]).includes(value)) {
        throw invalidArguments(
          tool,
          `"${label}" must be one of ${(enumValues as string[]).map((item) => JSON.stringify(item)).join(', ')}`,
        );
      }
      if (record.const !== undefined && value !== record.const) {
        throw invalidArguments(tool, `"${label}" must be ${JSON.stringify(record.const)}`);
      }
      if (pattern !== undefined && !pattern.test(value)) {
        throw invalidArguments(tool, `"${label}" must match the pattern ${String(record.pattern)}`);
      }
      return value;
    },
  };
}

function lengthKeyword(where: string, record: Record<string, unknown>, key: string): number | undefined {
  const value = record[key];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ConfigError(`${where}: "${key}" must be a non-negative integer.`);
  }
  return value;
}
