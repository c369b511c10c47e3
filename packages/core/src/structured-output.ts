import { ConfigError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';
import { compileSchema, isStandardSchema, type StandardSchemaV1, toJsonSchema } from '@bridle/registry';

/** The outcome of checking a final answer against the `output` schema. */
export type OutputVerdict = { ok: true; value: unknown } | { ok: false; problem: string };

/** A compiled `output` option. */
export interface OutputCheck {
  /** A section for the system prompt telling the model the shape of its final answer. */
  readonly instructions: string;
  check(answer: string): OutputVerdict | Promise<OutputVerdict>;
}

// Models often wrap JSON in a Markdown fence even when told not to; accept exactly one surrounding fence.
const FENCE = /^\s*```[a-zA-Z]*\s*\n([\s\S]*?)\n\s*```\s*$/;

function parseAnswer(answer: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const text = FENCE.exec(answer)?.[1] ?? answer;
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: `it is not valid JSON (${errorMessage(error)})` };
  }
}

function issuePath(path: StandardSchemaV1.Issue['path']): string {
  let text = '$';
  for (const segment of path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    text += typeof key === 'number' ? `[${key}]` : `.${String(key)}`;
  }
  return text;
}

function standardVerdict(result: StandardSchemaV1.Result<unknown>): OutputVerdict {
  if (!result.issues) return { ok: true, value: result.value };
  return { ok: false, problem: result.issues.map((issue) => `${issuePath(issue.path)}: ${issue.message}`).join('; ') };
}

function validatorThrew(error: unknown): OutputVerdict {
  return { ok: false, problem: `the output validator threw: ${errorMessage(error, 'an unknown error')}` };
}

function describeSchema(jsonSchema: unknown): string {
  const schemaText = jsonSchema === undefined ? '' : `\n${JSON.stringify(jsonSchema)}`;
  return `<output_format>\nYour final answer (the reply without tool calls) must be only a JSON value matching this JSON Schema, with no other text:${schemaText}\n</output_format>`;
}

/**
 * Compiles the `output` option once: a JSON Schema (compiled by the registry's Ajv) or a Standard
 * Schema (zod 4 etc., validated by its own `~standard.validate`). Throws `ConfigError` for a schema
 * that does not compile.
 */
export function compileOutput(schema: unknown): OutputCheck {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    throw new ConfigError(
      'Invalid option output: expected a JSON Schema object or a Standard Schema (e.g. a zod schema).',
    );
  if (isStandardSchema(schema)) {
    let jsonSchema: unknown;
    try {
      jsonSchema = toJsonSchema(schema);
    } catch {
      // Not every Standard Schema has a JSON Schema form (e.g. zod transforms): the validator still decides.
    }
    return {
      instructions: describeSchema(jsonSchema),
      check(answer) {
        const parsed = parseAnswer(answer);
        if (!parsed.ok) return parsed;
        // A validator that throws (a buggy refine, say) fails the answer with its message instead of
        // ending the run as an internal error; the step limit bounds the retries.
        try {
          const result = schema['~standard'].validate(parsed.value);
          return result instanceof Promise ? result.then(standardVerdict, validatorThrew) : standardVerdict(result);
        } catch (error) {
          return validatorThrew(error);
        }
      },
    };
  }
  let validateValue: (value: unknown) => string[];
  try {
    validateValue = compileSchema(schema as Record<string, unknown>);
  } catch (error) {
    throw new ConfigError(`Invalid option output: the JSON Schema does not compile: ${errorMessage(error)}`, {
      cause: error,
    });
  }
  return {
    instructions: describeSchema(schema),
    check(answer) {
      const parsed = parseAnswer(answer);
      if (!parsed.ok) return parsed;
      const errors = validateValue(parsed.value);
      return errors.length === 0 ? parsed : { ok: false, problem: errors.join('; ') };
    },
  };
}

/** The user message that tells the model why its final answer was rejected. */
export function outputRetryMessage(problem: string): string {
  return `Your final answer was rejected: ${problem}. Reply again with only the corrected JSON value matching the required schema.`;
}
