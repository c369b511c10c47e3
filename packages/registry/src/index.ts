export type { ExtraSchemas, SchemaDocument } from './compiled-schema';
export {
  type DefinedTool,
  defineTool,
  type JsonSchemaToolConfig,
  STANDARD_PARAMETERS,
  type StandardToolConfig,
  type ToolConfigBase,
} from './define-tool';
export { DEFAULT_MAX_DEPTH, DEFAULT_MAX_ERRORS, DEFAULT_MAX_NODES, type ValueLimits } from './limits';
export { type ParsedArguments, parseArguments } from './parse-arguments';
export { TOOL_NAME_PATTERN } from './resolve-tool';
export {
  isStandardSchema,
  type StandardJSONSchemaV1,
  type StandardSchemaV1,
  type ValidationResult,
} from './standard-schema';
export { toJsonSchema } from './to-json-schema';
export { ToolRegistry } from './tool-registry';
export { hasUntrustedSchema, UNTRUSTED_SCHEMA } from './untrusted-schema';
export {
  type AnySchema,
  compileSchema,
  type SchemaValidator,
  type ValidateOptions,
  validate,
  validateAsync,
} from './validate';
