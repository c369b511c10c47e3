import { join } from 'node:path';
import { type Child, startChild as start } from '@bridle/testing';
import { fixtureBundle } from '../../../vitest.fixtures';

export type { Child };

const root = join(import.meta.dirname, '..');

/**
 * A child Node process running `test/fixtures/<fixture>` on the TypeScript sources, bundled once per test
 * run by `test/bundle-fixtures.ts` (a start through tsx cost 1.3-1.7 s of CPU, 0.2 s bundled).
 */
export function startChild(fixture: string, args: string[], env: Record<string, string> = {}): Child {
  return start(fixtureBundle(root, join('test', 'fixtures', fixture)), args, { cwd: root, env, nodeArgs: [] });
}
