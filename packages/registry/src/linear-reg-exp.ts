import { toRe2Syntax } from '@bridle/protocol/internal';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { RE2JS } from 're2js';

const compiled = new Map<string, { test(input: string): boolean; toString(): string }>();
/** Compiled patterns kept for reuse across schemas; a bound, so hostile listings cannot grow it forever. */
const MAX_CACHED = 1000;

/**
 * Ajv's `code.regExp` for schemas from untrusted sources: patterns run on re2js, a pure-JavaScript
 * port of RE2 whose matching time is linear in the input, so no `pattern` or `patternProperties` can
 * backtrack for ever. Throws (Ajv then fails the compile) for a pattern RE2 cannot run, naming it and why.
 */
export const linearRegExp: RegExpEngine = Object.assign(
  (pattern: string) => {
    const hit = compiled.get(pattern);
    if (hit !== undefined) return hit;
    let program: RE2JS;
    try {
      program = RE2JS.compile(toRe2Syntax(pattern));
    } catch (error) {
      const reason = (error as Error).message.replace(/^error parsing regexp: /, '');
      throw new Error(
        `pattern ${JSON.stringify(pattern)} cannot run on the linear-time engine (${reason}): a schema from an untrusted source may not use lookaround, backreferences or repeat counts over 1000`,
      );
    }
    const engine = {
      test: (input: string) => program.test(input),
      // Ajv keys compiled patterns by this text: it must differ between patterns.
      toString: () => `re2js:${pattern}`,
    };
    if (compiled.size >= MAX_CACHED) compiled.clear();
    compiled.set(pattern, engine);
    return engine;
  },
  { code: 'linearRegExp' },
);
