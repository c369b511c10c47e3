import Ajv2020 from 'ajv/dist/2020.js';
import { linearRegExp } from './linear-reg-exp';
import { uniqueItemsKeyword } from './unique-items';

/** The draft 2020-12 meta-schema id. */
export const META_SCHEMA_ID = 'https://json-schema.org/draft/2020-12/schema';

/**
 * A fresh Ajv for one root schema. One instance per schema keeps `$id`s of unrelated schemas from
 * colliding. `strictSchema` is off because 2020-12 ignores unknown keywords (and `format` is an
 * annotation); `strictNumbers` stays ON explicitly: `strict: false` would turn it off and let NaN and
 * Infinity pass as numbers. No coercion, no defaults, no removal: Ajv never mutates the input.
 * Schemas are checked against the meta-schema once, by {@link metaSchemaErrors}, not here.
 * `untrusted`: patterns run on the linear-time engine ({@link linearRegExp}) instead of `RegExp`.
 * `uniqueItems` is checked in linear time ({@link uniqueItemsKeyword}) for every schema: the array is data.
 */
export function createAjv(allErrors: boolean, untrusted: boolean): Ajv2020 {
  const ajv = new Ajv2020({
    ...(untrusted ? { code: { regExp: linearRegExp } } : {}),
    allErrors,
    verbose: true,
    ownProperties: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    strictSchema: false,
    strictNumbers: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateSchema: false,
    logger: false,
  });
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(uniqueItemsKeyword);
  return ajv;
}

let metaAjv: Ajv2020 | undefined;

/**
 * Checks a schema against the draft 2020-12 meta-schema (compiled once, shared) and returns Ajv's
 * text of the problems, or undefined when the schema is valid.
 */
export function metaSchemaErrors(schema: unknown): string | undefined {
  metaAjv ??= new Ajv2020({ strictSchema: false, allErrors: true, logger: false });
  if (metaAjv.validate(META_SCHEMA_ID, schema)) return undefined;
  return metaAjv.errorsText(metaAjv.errors?.slice(0, 5), { dataVar: 'schema' });
}
