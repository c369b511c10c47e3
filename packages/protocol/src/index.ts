export type {
  AssistantMessage,
  JsonSchema,
  Message,
  Model,
  ModelRequest,
  ModelResponse,
  ModelStreamPart,
  Tool,
  ToolCall,
  ToolContext,
  ToolDefinition,
  ToolMessage,
  Usage,
  UserMessage,
} from './types';
export {
  BridleError,
  ConfigError,
  ContextLimitError,
  ModelResponseError,
  ProviderError,
  TranscriptError,
  type ProviderErrorCode,
  type ProviderErrorOptions,
} from './errors';
export { validateModelResponse } from './validate-model-response';
export { assertTranscript } from './assert-transcript';
export { describeValue } from './describe-value';
