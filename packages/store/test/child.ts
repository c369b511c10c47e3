import { join } from 'node:path';
import { type Child, startChild as start } from '@bridle/testing';

export type { Child };

/** A child Node process running a fixture from `test/fixtures` on the TypeScript sources. */
export function startChild(fixture: string, args: string[]): Child {
  return start(join('test', 'fixtures', fixture), args, {
    cwd: join(import.meta.dirname, '..'),
    nodeArgs: ['--conditions=@bridle/source', '--import', 'tsx'],
  });
}
