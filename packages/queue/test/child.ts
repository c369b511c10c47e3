import { join } from 'node:path';
import { type Child, startChild as start } from '@bridle/testing';

export type { Child };

/** A child Node process running `test/fixtures/<fixture>` on the TypeScript sources. */
export function startChild(fixture: string, args: string[], env: Record<string, string> = {}): Child {
  return start(join('test', 'fixtures', fixture), args, {
    cwd: join(import.meta.dirname, '..'),
    env,
    nodeArgs: ['--conditions=@bridle/source', '--import', 'tsx'],
  });
}
