export {
  type ApprovalView,
  type ApprovalViewField,
  type ApprovalViewOptions,
  approvalView,
  isWholeArgumentKey,
} from './approval-view';
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
export type { LedgerDay, LedgerReservation, QuotaLedger } from './quota-ledger';
export type {
  ApprovalDecidedBody,
  ApprovalRequestedBody,
  EventBase,
  InputBody,
  ModelEndBody,
  ModelErrorBody,
  ModelStartBody,
  RunEndBody,
  RunEvent,
  RunEventBody,
  RunEventOf,
  RunEventType,
  RunManifest,
  RunStartBody,
  TextDeltaBody,
  ToolEndBody,
  ToolStartBody,
} from './run-event';
export type { RunSignal, RunSignalChannel } from './run-signal';
export type { RunState } from './run-state';
export type { Sandbox, SandboxCommand, SandboxResult } from './sandbox';
export type {
  AcquireLeaseOptions,
  AcquireLeaseResult,
  AppendOptions,
  ClaimOrphansOptions,
  ListRunsQuery,
  ListSessionsQuery,
  ReadEventsQuery,
  RunLease,
  RunSummary,
  RunsOverview,
  RunsOverviewQuery,
  SessionSummary,
  Store,
  StoredRun,
  StoredSession,
} from './store';
export { DEFAULT_TENANT, MAX_TITLE_CHARS } from './store';
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
