import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { bridleConfigDir } from '@bridle/models';
import { ConfigError } from '@bridle/protocol';
import { errorMessage } from '@bridle/protocol/internal';

/** The decision key's file name in the user's config folder. */
export const DECISION_KEY_FILE = 'decision-key';

const KEY_TEXT = /^[0-9a-f]{64}$/;

/** Where the user's decision key is: `decision-key` in the user's config folder (`~/.config/bridle/`). */
export function decisionKeyPath(env: Record<string, string | undefined>): string {
  return join(bridleConfigDir(env), DECISION_KEY_FILE);
}

/**
 * The user's decision key (32 bytes), which signs the approval decisions runs keep in a store and the
 * chat sessions this user writes (see `decisionKey` of @bridle/core). Made on first need: the config folder
 * is created 0700 and the file 0600 (64 hex digits), never overwritten; two processes making it at once
 * agree on the first one written. Throws `ConfigError` naming the file and the fix when it cannot be read
 * or holds something else.
 */
export async function loadDecisionKey(env: Record<string, string | undefined>): Promise<Buffer> {
  const path = decisionKeyPath(env);
  const existing = await readKey(path);
  if (existing !== undefined) return existing;
  // Written whole to a private temporary name, then linked into place: a reader never sees half a key,
  // and of two processes making it at once the first link wins (the second gets EEXIST and reads it).
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await mkdir(bridleConfigDir(env), { recursive: true, mode: 0o700 });
    await writeFile(temporary, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    await link(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new ConfigError(
        `Cannot create the decision key ${path}: ${errorMessage(error)}. Bridle keeps it in your config folder (XDG_CONFIG_HOME or ~/.config/bridle): make that folder writable.`,
        { cause: error },
      );
  } finally {
    await rm(temporary, { force: true });
  }
  const made = await readKey(path);
  if (made === undefined)
    throw new ConfigError(`The decision key ${path} vanished while it was made: run the command again.`);
  return made;
}

async function readKey(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Cannot read the decision key ${path}: ${errorMessage(error)}. Make it readable by you.`, {
      cause: error,
    });
  }
  const hex = text.trim();
  if (!KEY_TEXT.test(hex))
    throw new ConfigError(
      `The decision key ${path} is not 64 hex digits: delete it and Bridle makes a new one (the approvals that paused runs kept are then asked again).`,
    );
  return Buffer.from(hex, 'hex');
}
