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
export { isJsonValue, jsonValueProblem } from './json-value';
export { abortReason, isNetworkFailure, parseRetryAfter } from './provider-helpers';
export type {
  EventBase,
  ModelEndBody,
  ModelErrorBody,
  ModelStartBody,
  RunEndBody,
  RunEvent,
  RunEventBody,
  RunEventOf,
  RunEventType,
  RunStartBody,
  TextDeltaBody,
  ToolEndBody,
  ToolStartBody,
} from './run-event';
export type { RunState } from './run-state';
export type {
  ListRunsQuery,
  ListSessionsQuery,
  RunSummary,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from './store';
export type {
  AssistantMessage,
  FinishReason,
  JsonSchema,
  JsonValue,
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
