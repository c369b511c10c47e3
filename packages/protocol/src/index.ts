export { assertTranscript } from './assert-transcript';
export { describeValue } from './describe-value';
export {
  BridleError,
  ConfigError,
  ContextLimitError,
  ModelResponseError,
  ProviderError,
  type ProviderErrorCode,
  type ProviderErrorOptions,
  TranscriptError,
} from './errors';
export { abortReason, isNetworkFailure, parseRetryAfter } from './provider-helpers';
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
export { validateModelResponse } from './validate-model-response';
