import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RunManifest } from '@bridle/protocol';
import { canonicalJson } from '@bridle/protocol/internal';

const PREFIX = 'hmac-sha256:';

/** The signed text: the presets with the workspace folder they run in, in canonical JSON (key order free). */
function signedText(presets: RunManifest['presets'], workspace: string | undefined): string {
  return canonicalJson({ bridle: 'presets/1', workspace: workspace ?? null, presets: presets ?? [] });
}

/**
 * Signs the command presets a run records in its manifest, with the workspace folder they run in (HMAC-SHA-256
 * with the user's decision key, as decisions are signed): `bridle resume` rebuilds presets from a journal only
 * when this user's key signed them. Never throws for JSON data.
 */
export function signPresets(key: Uint8Array, presets: RunManifest['presets'], workspace: string | undefined): string {
  return `${PREFIX}${createHmac('sha256', key).update(signedText(presets, workspace)).digest('hex')}`;
}

/**
 * True when the manifest's `presetsSignature` is this key's over its presets and workspace: the user who holds
 * the key recorded them, and nobody changed them, moved them to another folder, or added one since. Compared in
 * constant time; never throws.
 */
export function presetsSigned(key: Uint8Array, manifest: RunManifest): boolean {
  const given = manifest.presetsSignature;
  if (typeof given !== 'string' || !given.startsWith(PREFIX)) return false;
  const expected = Buffer.from(signPresets(key, manifest.presets, manifest.workspace));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
