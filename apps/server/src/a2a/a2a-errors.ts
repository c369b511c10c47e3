import { JsonRpcTransportError, RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { httpFailure } from '../http-status';
import { ServerError } from '../server-error';

/** JSON-RPC's "server error" code, for Bridle's own refusals (the reason is the Bridle error code). */
export const BRIDLE_SERVER_ERROR = -32000;

/**
 * A Bridle refusal as an A2A error: an unknown (or another tenant's) task is `TaskNotFoundError` (-32001), bad
 * input `RequestMalformedError` (-32602); every other refusal (a missing scope, a busy session, a decision for
 * a call that is not pending, a quota, a full server) is JSON-RPC code -32000 whose message says what to do and
 * whose `data` names the Bridle code and HTTP status. Anything else passes through (an internal error).
 */
export function toA2AError(error: unknown): unknown {
  if (!ServerError.isInstance(error)) return error;
  if (error.code === 'not_found') return new TaskNotFoundError(error.message);
  if (error.code === 'bad_request' || error.code === 'payload_too_large')
    return new RequestMalformedError(error.message);
  return new JsonRpcTransportError({
    jsonrpc: '2.0',
    id: null,
    error: {
      code: BRIDLE_SERVER_ERROR,
      message: error.message,
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: error.code.toUpperCase(),
          domain: 'bridle',
          metadata: { httpStatus: String(httpFailure(error).status) },
        },
      ],
    },
  });
}
