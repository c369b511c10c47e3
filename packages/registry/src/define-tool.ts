import type { JsonSchema, Tool, ToolContext } from '@bridle/protocol';
import { resolveTool } from './resolve-tool';
import type { StandardSchemaV1 } from './standard-schema';

/**
 * Where a tool made from a Standard Schema keeps it (its `parameters` hold the derived JSON Schema).
 * A registered symbol, so tools from another copy of this package are recognised too.
 */
export const STANDARD_PARAMETERS: unique symbol = Symbol.for('bridle.tool.standardParameters') as never;

/** What every tool config has, whatever its schema. */
export interface ToolConfigBase<A, R> {
  /** Matches `^[a-zA-Z][a-zA-Z0-9_-]{0,63}$`. */
  name: string;
  /** What the tool does and when to use it: the model reads this. */
  description: string;
  /** Receives the validated (parsed) arguments. Throw an `Error` to refuse or fail. */
  execute(args: A, context: ToolContext): R | Promise<R>;
  /** No side effects: may run concurrently with other read-only calls, and is safe to retry. */
  readOnly?: boolean;
  /** The loop asks its `approve` hook before executing. */
  requiresApproval?: boolean;
}

/** A tool config whose parameters are a Standard Schema (zod 4, ...): `execute` gets its output type. */
export interface StandardToolConfig<S extends StandardSchemaV1, R>
  extends ToolConfigBase<StandardSchemaV1.InferOutput<S>, R> {
  parameters: S;
}

/** A tool config whose parameters are a JSON Schema object: `execute` gets `A` (default `unknown`). */
export interface JsonSchemaToolConfig<A, R> extends ToolConfigBase<A, R> {
  parameters: JsonSchema;
}

/** A `Tool` made by {@link defineTool}. `parameters` is always JSON Schema (what the model sees). */
export interface DefinedTool<A = unknown, R = unknown> extends Tool<A, R> {
  /** The Standard Schema the arguments are validated (and parsed) with, when the tool was made from one. */
  readonly [STANDARD_PARAMETERS]?: StandardSchemaV1<unknown, A>;
}

/**
 * Defines a tool. `parameters` is a Standard Schema (zod 4, ...) or a JSON Schema object with
 * `type: "object"`. With a Standard Schema the model sees the JSON Schema derived from it, arguments
 * are validated by the schema's own validator, and `execute` receives its typed output. Checks the
 * tool at once: throws `ConfigError` for a bad name, description, `execute` or schema.
 *
 * @example
 * const weather = defineTool({
 *   name: 'get_weather',
 *   description: 'Current weather of a city',
 *   parameters: z.object({ city: z.string() }),
 *   execute: async ({ city }) => `Sunny in ${city}`,
 * });
 */
export function defineTool<S extends StandardSchemaV1, R = unknown>(
  config: StandardToolConfig<S, R>,
): DefinedTool<StandardSchemaV1.InferOutput<S>, R>;
export function defineTool<A = unknown, R = unknown>(config: JsonSchemaToolConfig<A, R>): DefinedTool<A, R>;
export function defineTool(
  config: StandardToolConfig<StandardSchemaV1, unknown> | JsonSchemaToolConfig<unknown, unknown>,
) {
  const resolved = resolveTool(config, 'defineTool');
  const tool: DefinedTool = {
    name: config.name,
    description: config.description,
    parameters: resolved.definition.parameters,
    execute: config.execute,
  };
  if (config.readOnly !== undefined) tool.readOnly = config.readOnly;
  if (config.requiresApproval !== undefined) tool.requiresApproval = config.requiresApproval;
  // Enumerable so that `{ ...tool, name: 'other' }` keeps validating with the Standard Schema.
  if (resolved.standard !== undefined) Object.assign(tool, { [STANDARD_PARAMETERS]: resolved.standard });
  return tool;
}
