import { errorMessage } from '@bridle/protocol/internal';

const EXCERPT_LENGTH = 80;

/** What {@link parseArguments} made of the arguments. */
export type ParsedArguments = { ok: true; value: unknown } | { ok: false; errors: string[] };

function excerpt(text: string): string {
  return text.length > EXCERPT_LENGTH ? `${JSON.stringify(text.slice(0, EXCERPT_LENGTH))}…` : JSON.stringify(text);
}

/**
 * Arguments as the provider delivered them. Adapters pass parsed JSON, or the raw string when the
 * model's text was not JSON. A string is parsed here: JSON text gives its value, an empty string
 * means "no arguments" (`{}`), anything else gives an error the model can act on.
 * `JSON.parse` creates `__proto__` keys as own properties, so parsing cannot pollute prototypes.
 */
export function parseArguments(args: unknown): ParsedArguments {
  if (typeof args !== 'string') return { ok: true, value: args };
  if (args.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(args) };
  } catch (error) {
    const reason = errorMessage(error);
    return {
      ok: false,
      errors: [
        `$: expected an object of arguments, got a string that is not JSON: ${excerpt(args)} (${reason}). Send the arguments as one JSON object that matches the tool's parameters.`,
      ],
    };
  }
}
