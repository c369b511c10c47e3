import { createHash } from 'node:crypto';
import { canonicalJson } from '@bridle/protocol/internal';

/**
 * The digest that binds a decision to one pending call: SHA-256 over the run id, the call id, the tool's
 * name and the recorded arguments (canonical JSON), as `sha256:<hex>`. A decision that names it applies
 * only to that call of that run with exactly those arguments.
 */
export function approvalDigest(call: { runId: string; callId: string; name: string; arguments: unknown }): string {
  const content = canonicalJson({ runId: call.runId, callId: call.callId, name: call.name, arguments: call.arguments });
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}
