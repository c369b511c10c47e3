export type { BatchJobView } from './batch-jobs';
export { type BridleServer, createServer } from './create-server';
export type { ErrorBody } from './error-handler';
export { type HttpFailure, httpFailure } from './http-status';
export { isLoopbackHost } from './loopback';
export type { ChatResponse } from './routes/chat-route';
export { resolveServerConfig, type ServerConfig } from './server-config';
export { ServerError, type ServerErrorCode } from './server-error';
export type { ServerAgentOptions, ServerOptions } from './server-options';
export { MemorySessionStore, type MemorySessionStoreOptions, type Session, type SessionStore } from './session-store';
export { type StartedServer, type StartServerOptions, startServer } from './start-server';
export { authorizeRequest, type Caller, callerOf, requireScope, TenantAuth } from './tenant-auth';
export {
  type ApiKey,
  DEFAULT_TENANT,
  keyDigest,
  parseTenantKeys,
  SCOPES,
  type Scope,
  type TenantKeys,
  type TenantQuotas,
} from './tenant-keys';
