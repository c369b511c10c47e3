import type { ServerContext } from './server-context';
import type { Caller } from './tenant-auth';

/**
 * While a stream of `caller` is open: calls `onRevoked` once when the caller's key is removed from
 * `BRIDLE_API_KEYS_FILE` (within about a second). Returns the function that stops watching.
 */
export function watchRevokedKey(context: ServerContext, caller: Caller, onRevoked: () => void): () => void {
  let revoked = false;
  return context.auth.onChange(() => {
    if (revoked || context.auth.isValid(caller)) return;
    revoked = true;
    onRevoked();
  });
}
