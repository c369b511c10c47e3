import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@bridle/protocol';
import { describe, expect, it } from 'vitest';
import { decisionKeyPath, loadDecisionKey } from '../src/decision-key-file';
import { tempDir } from './cli-process';

describe('the decision key file', () => {
  it('is made once, 0600 in a 0700 folder; processes making it at once agree on one key', async () => {
    const env = { XDG_CONFIG_HOME: join(tempDir('bridle-config-'), 'nested') };
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadDecisionKey(env)));
    const path = decisionKeyPath(env);
    expect(path).toBe(join(env.XDG_CONFIG_HOME, 'bridle', 'decision-key'));
    for (const key of keys) expect(key.toString('hex')).toBe(readFileSync(path, 'utf8').trim());
    expect(keys[0]?.byteLength).toBe(32);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(env.XDG_CONFIG_HOME, 'bridle')).mode & 0o777).toBe(0o700);
    expect((await loadDecisionKey(env)).equals(keys[0] as Buffer)).toBe(true);
  });

  it('a file that is not 64 hex digits is a ConfigError naming it, and is never overwritten', async () => {
    const env = { XDG_CONFIG_HOME: tempDir('bridle-config-') };
    await loadDecisionKey(env);
    const path = decisionKeyPath(env);
    writeFileSync(path, 'short\n');
    const error = await loadDecisionKey(env).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      `The decision key ${path} is not 64 hex digits: delete it and Bridle makes a new one (the approvals that paused runs kept are then asked again).`,
    );
    expect(readFileSync(path, 'utf8')).toBe('short\n');
  });
});
