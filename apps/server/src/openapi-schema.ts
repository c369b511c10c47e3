/**
 * JSON Schema keywords that OpenAPI 3.0 schema objects lack (3.0 takes a subset of draft 5). The routes
 * keep them for validation; in `/openapi.json` each becomes an `x-` extension of the same name and value,
 * which 3.0 allows, so the document stays valid and still tells readers the rule.
 */
const NOT_IN_OPENAPI_30 = new Set([
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'if',
  'then',
  'else',
  'contains',
  'minContains',
  'maxContains',
  'prefixItems',
  'unevaluatedItems',
  'unevaluatedProperties',
  '$comment',
]);

/** Keywords whose value is one schema, or a map or a list of schemas. */
const ONE_SCHEMA = new Set(['items', 'additionalProperties', 'not', 'additionalItems']);
const SCHEMA_MAP = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
const SCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf']);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const mapValues = (value: unknown, map: (entry: unknown) => unknown) =>
  isObject(value) ? Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, map(entry)])) : value;

/** A copy of a JSON schema whose keywords OpenAPI 3.0 lacks are `x-` extensions (see above); never mutates. */
export function toOpenApi30Schema(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (NOT_IN_OPENAPI_30.has(key)) copy[`x-${key}`] = value;
    else if (ONE_SCHEMA.has(key))
      copy[key] = Array.isArray(value) ? value.map(toOpenApi30Schema) : toOpenApi30Schema(value);
    else if (SCHEMA_MAP.has(key)) copy[key] = mapValues(value, toOpenApi30Schema);
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) copy[key] = value.map(toOpenApi30Schema);
    else copy[key] = value;
  }
  return copy;
}

/** A documented response: a schema, or `{ description, content: { <type>: { schema } } }`. */
function toOpenApi30Response(response: unknown): unknown {
  if (!isObject(response) || !isObject(response.content)) return toOpenApi30Schema(response);
  const content = mapValues(response.content, (media) =>
    isObject(media) ? { ...media, schema: toOpenApi30Schema(media.schema) } : media,
  );
  return { ...response, content };
}

/**
 * A route's schema as `/openapi.json` shows it (the `transform` of @fastify/swagger): its body, query,
 * params, headers and responses with the keywords OpenAPI 3.0 lacks as `x-` extensions. The route's own
 * schema (what requests are validated against) is left as it is.
 */
export function routeSchemaForOpenApi30<T extends object>(schema: T | undefined): T | undefined {
  if (schema === undefined) return undefined;
  const copy: Record<string, unknown> = { ...(schema as Record<string, unknown>) };
  for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
    if (part in copy) copy[part] = toOpenApi30Schema(copy[part]);
  }
  if (isObject(copy.response)) copy.response = mapValues(copy.response, toOpenApi30Response);
  return copy as T;
}
