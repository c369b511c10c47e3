import type { ServerConfig } from './server-config';

/** The body of `POST /api/chat`. */
export interface ChatBody {
  prompt: string;
  sessionId?: string;
  skill?: string;
  maxSteps?: number;
}

/** One item of `POST /api/batch`. */
export interface BatchItemBody {
  id?: string | number;
  prompt: string;
  maxSteps?: number;
}

/** The body of `POST /api/batch`. */
export interface BatchBody {
  items: BatchItemBody[];
  skill?: string;
  maxSteps?: number;
}

/** A message's content: a string, text parts, or null (checked in detail by the route). */
const TEXT_CONTENT = { anyOf: [{ type: 'string' }, { type: 'array' }, { type: 'null' }] };
const UUID = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const SKILL = { type: 'string', pattern: '^[a-zA-Z][a-zA-Z0-9_-]{0,63}$' };

/** JSON Schemas of every body and parameter, built from the limits in `config`. */
export function requestSchemas(config: ServerConfig) {
  const maxSteps = { type: 'integer', minimum: 1, maximum: config.maxStepsLimit };
  const prompt = { type: 'string', minLength: 1 };
  return {
    chatBody: {
      type: 'object',
      required: ['prompt'],
      additionalProperties: false,
      properties: { prompt, sessionId: { type: 'string', pattern: UUID }, skill: SKILL, maxSteps },
    },
    batchBody: {
      type: 'object',
      required: ['items'],
      additionalProperties: false,
      properties: {
        items: {
          type: 'array',
          minItems: 1,
          maxItems: config.maxBatchItems,
          items: {
            type: 'object',
            required: ['prompt'],
            additionalProperties: false,
            properties: {
              id: { anyOf: [{ type: 'string', maxLength: 200 }, { type: 'integer' }] },
              prompt,
              maxSteps,
            },
          },
        },
        skill: SKILL,
        maxSteps,
      },
    },
    openAIChatBody: {
      type: 'object',
      required: ['model', 'messages'],
      properties: {
        model: { type: 'string', description: 'bridle:<skill> (see GET /v1/models)' },
        messages: {
          type: 'array',
          minItems: 1,
          maxItems: 100_000,
          items: {
            type: 'object',
            required: ['role'],
            properties: { role: { type: 'string' }, content: TEXT_CONTENT },
          },
        },
        stream: { type: ['boolean', 'null'] },
        stream_options: { type: ['object', 'null'], properties: { include_usage: { type: 'boolean' } } },
        n: { type: ['integer', 'null'] },
        tools: { type: ['array', 'null'] },
      },
    },
    openAIResponsesBody: {
      type: 'object',
      required: ['model', 'input'],
      properties: {
        model: { type: 'string', description: 'bridle:<skill> (see GET /v1/models)' },
        input: {
          anyOf: [
            { type: 'string', minLength: 1 },
            {
              type: 'array',
              minItems: 1,
              maxItems: 100_000,
              items: {
                type: 'object',
                properties: {
                  type: { type: 'string' },
                  role: { type: 'string' },
                  content: TEXT_CONTENT,
                },
              },
            },
          ],
        },
        instructions: { type: ['string', 'null'] },
        stream: { type: ['boolean', 'null'] },
        previous_response_id: { type: ['string', 'null'] },
        tools: { type: ['array', 'null'] },
      },
    },
    runParams: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,255}$' } },
    },
    idParams: {
      type: 'object',
      required: ['id'],
      properties: { id: { type: 'string', pattern: UUID } },
    },
  } as const;
}

/** An Ajv error as Fastify hands it to the formatter. */
interface SchemaError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/**
 * Turns schema errors into one clear message: where (`body.items[2].prompt`), what is wrong, and for
 * unknown or missing properties their names.
 */
export function formatSchemaErrors(errors: readonly SchemaError[], dataVar: string): Error {
  const first = errors[0];
  if (!first) return new Error(`Invalid ${dataVar}.`);
  const path = dataVar + first.instancePath.replace(/\/(\d+)(?=\/|$)/g, '[$1]').replace(/\//g, '.');
  let problem: string;
  if (first.keyword === 'additionalProperties')
    problem = `has an unknown property "${String(first.params.additionalProperty)}"`;
  else if (first.keyword === 'required')
    problem = `is missing the required property "${String(first.params.missingProperty)}"`;
  else if (first.keyword === 'pattern' && /(sessionId|id)$/.test(path))
    problem = 'must be an id this server issued (a UUID)';
  else problem = first.message ?? `fails ${first.keyword}`;
  const hint = dataVar === 'body' ? ' See the server README for the request shapes.' : '';
  return new Error(`Invalid request: ${path} ${problem}.${hint}`);
}
