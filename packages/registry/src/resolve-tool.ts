import { ConfigError, describeValue, type JsonSchema, type ToolDefinition } from '@bridle/protocol';
import { type CompiledSchema, getCompiledSchema } from './compiled-schema';
import { isStandardSchema, type StandardSchemaV1 } from './standard-schema';
import { toJsonSchema } from './to-json-schema';
import { hasUntrustedSchema } from './untrusted-schema';

/** Tool names the providers accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

/** A checked tool: what the model sees, and how its arguments are validated. */
export interface ResolvedTool {
  definition: ToolDefinition;
  /** Validates with this Standard Schema when present, else with `compiled`. */
  standard: StandardSchemaV1 | undefined;
  compiled: CompiledSchema;
}

const STANDARD_PARAMETERS = Symbol.for('bridle.tool.standardParameters');

function readStandard(tool: object): StandardSchemaV1 | undefined {
  const hidden = (tool as Record<symbol, unknown>)[STANDARD_PARAMETERS];
  if (isStandardSchema(hidden)) return hidden;
  const parameters = (tool as { parameters?: unknown }).parameters;
  return isStandardSchema(parameters) ? parameters : undefined;
}

function checkParametersRoot(parameters: JsonSchema, label: string): void {
  const type = parameters.type;
  if (type === 'object') return;
  const got = type === undefined ? 'no type' : `type ${JSON.stringify(type)}`;
  throw new ConfigError(
    `${label} must have type "object" at the root (it has ${got}): tool arguments are always a JSON object. Use { type: "object", properties: { ... } } and put other values inside a property.`,
  );
}

function checkFlag(tool: Record<string, unknown>, flag: 'readOnly' | 'requiresApproval', label: string): void {
  const value = tool[flag];
  if (value !== undefined && typeof value !== 'boolean') {
    throw new ConfigError(`${label}: ${flag} must be true or false when given, got ${describeValue(value)}.`);
  }
}

/**
 * Checks a tool (a plain `Tool`, a `defineTool` result, or a config with a Standard Schema) and
 * compiles its schema (cached per schema object; on the linear-time pattern engine when the tool is
 * marked with `UNTRUSTED_SCHEMA`). `where` names it in errors (e.g. "tools[2]").
 * Throws `ConfigError` naming the tool and the fix.
 */
export function resolveTool(value: unknown, where: string): ResolvedTool {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(
      `${where} must be a tool object { name, description, parameters, execute }, got ${describeValue(value)}.`,
    );
  }
  const tool = value as Record<string, unknown>;
  const name = tool.name;
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigError(
      `${where} has an invalid name ${typeof name === 'string' ? JSON.stringify(name) : describeValue(name)}: a tool name must match ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$ (a letter, then up to 63 letters, digits, "_" or "-"), e.g. "read_file".`,
    );
  }
  const label = `Tool "${name}"`;
  if (typeof tool.description !== 'string') {
    throw new ConfigError(
      `${label}: description must be a string telling the model what the tool does, got ${describeValue(tool.description)}.`,
    );
  }
  if (typeof tool.execute !== 'function') {
    throw new ConfigError(
      `${label}: execute must be a function (args, context) => result, got ${describeValue(tool.execute)}.`,
    );
  }
  checkFlag(tool, 'readOnly', label);
  checkFlag(tool, 'requiresApproval', label);
  const standard = readStandard(tool);
  const raw = standard ?? tool.parameters;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ConfigError(
      `${label}: parameters must be a JSON Schema object with type "object" or a Standard Schema (such as z.object({...})), got ${describeValue(raw)}.`,
    );
  }
  let parameters: JsonSchema;
  try {
    parameters = toJsonSchema(raw as JsonSchema | StandardSchemaV1);
  } catch (error) {
    throw new ConfigError(`${label}: ${(error as Error).message}`, { cause: error });
  }
  checkParametersRoot(parameters, `${label}: parameters`);
  const compiled = getCompiledSchema(parameters, undefined, `${label}: parameters`, hasUntrustedSchema(tool));
  return { definition: Object.freeze({ name, description: tool.description, parameters }), standard, compiled };
}
