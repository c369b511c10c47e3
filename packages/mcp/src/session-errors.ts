import { errorMessage } from '@bridle/protocol/internal';
import { SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Session } from './open-session';

/** The request got no answer within its timeout. */
export function isTimeout(error: unknown): boolean {
  return SdkError.isInstance(error) && error.code === SdkErrorCode.RequestTimeout;
}

/**
 * The server answered 404 to a request carrying a session id: it no longer knows the session (it
 * restarted, or ended the session) and ran nothing. The spec asks the client to start a new session.
 */
export function isUnknownSession(error: unknown, session: Session): boolean {
  return (
    SdkHttpError.isInstance(error) &&
    error.status === 404 &&
    session.transport instanceof StreamableHTTPClientTransport &&
    session.transport.sessionId !== undefined
  );
}

/**
 * Why an HTTP server could not be reached (`fetch failed: connect ECONNREFUSED 127.0.0.1:8080`), or
 * undefined when the error is something else (an answer, a timeout).
 */
export function unreachable(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return undefined;
  const cause = error.cause;
  return cause === undefined ? error.message : `${error.message}: ${errorMessage(cause)}`;
}
